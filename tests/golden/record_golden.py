"""Re-record golden files: ``python tests/golden/record_golden.py [demo|project ...]`` (default: both).

Re-recording is a deliberate act. The golden files are regression oracles (silo-format §1.2,
invariant 7): a change in their bytes means a world's behaviour changed (its data, a tool, a
verifier, the reference solver, or the runtime's episode rules). Only re-record when that change
is intended, review the diff (``git diff tests/golden``), and commit the new files on their own
with the reason in the commit message (for example "golden: VER-003 detail wording changed").
Never re-record to make a failing test pass without knowing why it failed.

For every gate of each world named (gate.py) the episode is run twice, through
``gym.make("silo/<world>-<task>")`` + ``RecordRun`` (the Gymnasium-policy form of the agent) and
through ``silo_gym.run_task`` (the Silo-agent form); the script refuses to record unless both give
identical bytes. It writes ``tests/golden/<world>/{solver,do-nothing}/<TASK>/{result.json,
state-diff.json}`` and ``tests/golden/<world>/tool-path/{result.json,state-diff.json,
tool-events.jsonl}``, and prints each episode's reward.

Runs are written to a temporary directory, removed afterwards. ``SILO_GYM_PATH`` is cleared so
that the worlds are the repository's ``environments/<world>``.
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


def main(argv: list[str]) -> int:
    worlds = argv or list(g.WORLDS)
    unknown = [w for w in worlds if w not in g.WORLDS]
    if unknown:
        print(f"unknown world(s) {unknown}; known: {', '.join(g.WORLDS)}", file=sys.stderr)
        return 1
    for world in worlds:
        if g.registered_dir(world).resolve() != g.WORLDS[world].env_dir.resolve():
            print(f"silo/{world}-* resolves to {g.registered_dir(world)}, not {g.WORLDS[world].env_dir}",
                  file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory() as tmp:
        recorded: dict[g.Gate, dict[str, bytes]] = {}
        for world in worlds:
            for gate in g.gates(world):
                via_gym = g.run_gym(g.FACTORIES[world], gate, Path(tmp) / "gym")
                via_runner = g.run_runner(world, gate, Path(tmp) / "runner", cwd=g.REPO_ROOT)
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
        print(f"{gate.environment:<8} {gate.agent:<10} {gate.task_id}  passed={str(result['passed']).lower():<5} "
              f"reward={format_number(result['reward'])}  toolCalls={result['toolCalls']}  -> {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
