"""Re-record the demo environment's golden files: ``python tests/golden/record_golden.py``.

Re-recording is a deliberate act. The golden files are regression oracles (silo-format §1.2,
invariant 7): a change in their bytes means the demo's behaviour changed (its data, a tool, a
verifier, the reference solver, or the runtime's episode rules). Only re-record when that change
is intended, review the diff (``git diff tests/golden``), and commit the new files on their own
with the reason in the commit message (for example "golden: VER-003 detail wording changed").
Never re-record to make a failing test pass without knowing why it failed.

For every gate (gate.py) the episode is run twice, through ``gym.make("silo/demo-<task>")`` +
``RecordRun`` (the Gymnasium-policy form of the agent) and through ``silo_gym.run_task`` (the
Silo-agent form); the script refuses to record unless both give identical bytes. It writes
``tests/golden/demo/{solver,do-nothing}/<TASK>/{result.json,state-diff.json}`` and
``tests/golden/demo/tool-path/{result.json,state-diff.json,tool-events.jsonl}``, and prints each
episode's reward.

Runs are written to a temporary directory, removed afterwards. ``SILO_GYM_PATH`` is cleared so
that ``demo`` is the repository's ``environments/demo``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

# Before silo_gym registers anything: no SILO_GYM_PATH entry and no stray
# <cwd>/.silo/environments/demo may shadow the repository's environments/demo.
os.environ.pop("SILO_GYM_PATH", None)
os.chdir(Path(__file__).resolve().parents[2])
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from golden import gate as g  # noqa: E402
from silo_gym import format_number  # noqa: E402


def main() -> int:
    if g.registered_demo_dir().resolve() != g.DEMO_DIR.resolve():
        print(f"silo/demo-* resolves to {g.registered_demo_dir()}, not {g.DEMO_DIR}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        recorded: dict[g.Gate, dict[str, bytes]] = {}
        for gate in g.ALL_GATES:
            via_gym = g.run_gym(g.demo_factory, gate, Path(tmp) / "gym")
            via_runner = g.run_runner("demo", gate, Path(tmp) / "runner", cwd=g.REPO_ROOT)
            for name in g.RUNNER_FILES:
                if via_gym.get(name) != via_runner.get(name):
                    mismatch = g.Mismatch(f"{gate.rel_dir}/{name}", via_gym.get(name), via_runner.get(name))
                    print(f"gym and runner paths disagree ({gate}):\n{mismatch.diff()}", file=sys.stderr)
                    return 1
            recorded[gate] = via_gym
    for gate, files in recorded.items():
        out_dir = g.GOLDEN_DIR / gate.rel_dir
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (out_dir / name).write_bytes(data)
        result = json.loads(files["result.json"])
        print(f"{gate.agent:<10} {gate.task_id}  passed={str(result['passed']).lower():<5} "
              f"reward={format_number(result['reward'])}  toolCalls={result['toolCalls']}  -> {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
