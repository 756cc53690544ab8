"""One MCP session's episode without the MCP SDK: ``silo_gym.serve.episodes.ServedEpisode``."""

from __future__ import annotations

import gc
import json
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from silo_gym.serve.episodes import (
    ABANDON_WAIT_S,
    SERVER_STOPPED,
    SESSION_CLOSED,
    EpisodeSettings,
    ServedEpisode,
)


def _episode(runs: Path, **kwargs: object) -> ServedEpisode:
    return ServedEpisode(EpisodeSettings("demo", "TASK-004", runs_dir=runs, **kwargs))  # type: ignore[arg-type]


def test_an_ended_episode_lets_its_world_go_and_refuses_every_call(runs_dir: Path) -> None:
    served = _episode(runs_dir)
    assert served.env is not None
    env_ref = weakref.ref(served.env)
    reply = served.submit("twelve")
    assert not reply.is_error and reply.result is not None
    assert reply.result["agentOutput"] == "twelve"
    assert served.done and served.env is None
    gc.collect()
    assert env_ref() is None, "the ended episode's env (and its world) must be released"
    for late in (served.call_tool("get_current_date", None), served.submit("again")):
        assert late.is_error
        assert late.payload == {"code": "completed",
                                "message": "Run ended: completed. Open a new MCP session to play the task again."}
    served.abandon(SERVER_STOPPED)  # a no-op now
    result = json.loads((Path(served.run_dir) / "result.json").read_text())
    assert result["terminationReason"] == "completed"


def test_calls_racing_the_end_are_either_run_or_refused(runs_dir: Path) -> None:
    served = _episode(runs_dir, max_tool_calls=1000)
    replies = []

    def hammer() -> None:
        for _ in range(50):
            replies.append(served.call_tool("get_current_date", None))

    threads = [threading.Thread(target=hammer) for _ in range(3)]
    for t in threads:
        t.start()
    served.abandon(SERVER_STOPPED)
    for t in threads:
        t.join()
    ran = [r for r in replies if not r.is_error]
    refused = [r for r in replies if r.is_error]
    assert len(ran) + len(refused) == 150
    assert all(r.payload["code"] == "agent_error" for r in refused), [r.payload for r in refused if r.payload["code"] != "agent_error"][:3]
    result = json.loads((Path(served.run_dir) / "result.json").read_text())
    assert (result["terminationReason"], result["error"]) == ("agent_error", SERVER_STOPPED)
    assert result["toolCalls"] == len(ran)


def test_a_session_closing_during_a_stuck_tool_call_ends_ungraded(tmp_path: Path, make_env_dir: Any) -> None:
    make_env_dir(tmp_path / ".silo" / "environments", "sluggish")
    served = ServedEpisode(EpisodeSettings("sluggish", "TASK-001", runs_dir=tmp_path / "runs", cwd=str(tmp_path)))
    caller = threading.Thread(target=served.call_tool, args=("slow", {"seconds": 5.0}))
    caller.start()
    time.sleep(0.2)
    started = time.monotonic()
    served.abandon(SESSION_CLOSED)
    waited = time.monotonic() - started
    caller.join()
    assert ABANDON_WAIT_S <= waited < ABANDON_WAIT_S + 2.0  # well before the tool's 5 s
    run_dir = Path(served.run_dir)
    assert not (run_dir / "result.json").exists() and not (run_dir / "state-diff.json").exists()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["terminationReason"] == "agent_error"
    run_end = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()
               if '"run_end"' in line][0]
    assert run_end["error"] == f'Tool "slow" was still running when the episode ended: {SESSION_CLOSED}'
    assert served.done and served.call_tool("peek", None).payload["code"] == "agent_error"
