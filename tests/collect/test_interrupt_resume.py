"""``silo-gym collect`` with a served model: SIGINT/SIGTERM in the middle leave only complete rows
and complete run directories, and ``--resume`` finishes to the rows of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import sigint_as_default

from silo_gym.data import collect, read
from silo_gym.llm import ChatPolicy, openai_acomplete

pytest.importorskip("aiohttp")
pytest.importorskip("openai")

from silo_gym.mock_model import MockModelServer  # noqa: E402

from ._helpers import ROOT  # noqa: E402

RUN_FILES = ["result.json", "run.json", "state-diff.json", "trace.jsonl"]


@pytest.fixture(scope="module")
def server():
    with MockModelServer(latency_ms=60) as srv:
        yield srv


def _command(server, out, runs, *extra):
    return [sys.executable, "-m", "silo_gym", "collect", "--env", "demo", "--policy", "openai:m",
            "--base-url", server.openai_base_url, "--episodes-per-task", "12", "--concurrency", "16",
            "--out", str(out), "--runs-dir", str(runs), *extra]


def _interrupt(cmd, out, sig):
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_default)
    stream = out / "episodes.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if stream.exists() and stream.read_bytes().count(b"\n") >= 10:
            break
        if proc.poll() is not None:
            pytest.fail("the collection ended before it was interrupted: " + proc.stderr.read())
        time.sleep(0.02)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    return proc.returncode, stderr


def _strip(rows):
    return [{k: v for k, v in r.items() if k != "run_id"} for r in rows]


@pytest.mark.slow  # make test-fast leaves it out (README, "Developing")
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_then_resume(server, tmp_path, sig, code):
    out, runs = tmp_path / "out", tmp_path / "runs"
    returncode, stderr = _interrupt(_command(server, out, runs), out, sig)
    assert returncode == code, stderr
    assert "--resume" in stderr
    lines = (out / "episodes.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""  # ends with a whole line
    partial = [json.loads(line) for line in lines[:-1]]
    assert 10 <= len(partial) < 72
    assert all(r["reward"] == 1.0 for r in partial)
    # every run directory left is complete and belongs to a finished row: the cancelled ones are gone
    assert sorted(p.name for p in runs.iterdir()) == sorted(r["run_id"] for r in partial)
    for run in runs.iterdir():
        assert sorted(p.name for p in run.iterdir()) == RUN_FILES, run
    assert not (out / "pairs.jsonl").exists()

    # Resuming with other arguments is refused and changes nothing.
    wrong = subprocess.run(_command(server, out, runs, "--seed", "9", "--resume"), cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 1 and "holds another collection" in wrong.stderr
    assert len(read(out / "episodes.jsonl")) == len(partial)
    fresh = subprocess.run(_command(server, out, runs), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert fresh.returncode == 1 and "pass --resume" in fresh.stderr

    done = subprocess.run(_command(server, out, runs, "--resume"), cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    final = read(out / "episodes.jsonl")
    policy = ChatPolicy(openai_acomplete(server.openai_base_url, "m", lean=True), model="m")
    uninterrupted = collect(["silo/demo"], policy, episodes_per_task=12, concurrency=16, policy_name="openai:m")
    assert _strip(final) == _strip(uninterrupted)
    assert {r["run_id"] for r in partial} <= {r["run_id"] for r in final}  # the first rows were kept
    assert sorted(p.name for p in runs.iterdir()) == sorted(r["run_id"] for r in final)
    assert (out / "pairs.jsonl").exists()
    # Resuming a complete collection plays nothing and writes its files again.
    before = (out / "episodes.jsonl").read_bytes()
    runs_before = sorted(p.name for p in runs.iterdir())
    again = subprocess.run(_command(server, out, runs, "--resume"), cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr
    assert (out / "episodes.jsonl").read_bytes() == before and sorted(p.name for p in runs.iterdir()) == runs_before


def test_model_flags_are_checked(tmp_path, capsys):
    from silo_gym.cli import main

    out = str(tmp_path / "o")
    assert main(["collect", "--env", "demo", "--policy", "random", "--out", out, "--base-url", "http://x"]) == 1
    assert "--base-url applies to --policy openai:<model> or anthropic:<model>." in capsys.readouterr().err
    assert main(["collect", "--env", "demo", "--policy", "openai:", "--out", out]) == 1
    assert "needs a model name" in capsys.readouterr().err
    assert main(["collect", "--env", "demo", "--policy", "anthropic:m", "--api", "chat", "--out", out]) == 1
    assert 'anthropic models speak "messages"' in capsys.readouterr().err
    assert main(["collect", "--env", "demo", "--policy", "openai:m", "--client", "fast", "--out", out]) == 1
    assert "--client must be lean or sdk" in capsys.readouterr().err
    assert main(["collect", "--env", "demo", "--policy", "random", "--concurrency", "4", "--out", out]) == 1
    assert "concurrency=4 needs a policy that awaits its model" in capsys.readouterr().err
    assert main(["collect", "--env", "demo", "--policy", "openai:m", "--episode-timeout", "0", "--out", out]) == 1
    assert "--episode-timeout must be a number above 0." in capsys.readouterr().err
    assert not os.path.exists(out) or not os.listdir(out)


def test_an_unreachable_model_server_is_reported_before_any_episode(tmp_path, capsys, monkeypatch):
    import socket
    import time

    from silo_gym.cli import main

    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out, runs = tmp_path / "o", tmp_path / "runs"
    started = time.monotonic()
    code = main(["collect", "--env", "demo", "--policy", "openai:m", "--base-url", f"http://127.0.0.1:{port}/v1",
                 "--out", str(out), "--runs-dir", str(runs)])
    assert code == 1 and time.monotonic() - started < 30  # not a minute of retries per episode
    err = capsys.readouterr().err
    assert f"Cannot reach the model server at http://127.0.0.1:{port}/v1 (Connection refused)." in err
    assert "silo-gym mock-model" in err
    assert not out.exists() and not runs.exists()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "ftp://example")
    assert main(["collect", "--env", "demo", "--policy", "anthropic:m", "--out", str(out)]) == 1
    assert '--base-url must be an http:// or https:// URL with a host; got "ftp://example".' in capsys.readouterr().err


def test_anthropic_policy_from_the_shell_with_the_sdk(server, tmp_path, capsys):
    pytest.importorskip("anthropic")
    from silo_gym.cli import main

    code = main(["collect", "--env", "demo", "--tasks", "TASK-004,TASK-006", "--policy", "anthropic:claude-x",
                 "--base-url", server.anthropic_base_url, "--client", "sdk", "--concurrency", "4",
                 "--episodes-per-task", "2", "--max-tokens", "256", "--out", str(tmp_path / "o")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows = read(tmp_path / "o" / "episodes.jsonl")
    assert [r["reward"] for r in rows] == [1.0] * 4 and {r["policy"] for r in rows} == {"anthropic:claude-x"}


def test_mock_model_command_serves_until_interrupted(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "silo_gym", "mock-model", "--port", "0", "--latency-ms", "1"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_default)
    try:
        banner = proc.stdout.readline()
        assert "OpenAI base URL http://127.0.0.1:" in banner, proc.stderr.read() if proc.poll() else banner
        base = banner.split("OpenAI base URL ")[1].split(",")[0]
        policy = ChatPolicy(openai_acomplete(base, "m", lean=True))
        rows = collect(["silo/demo-TASK-005"], policy, episodes_per_task=1)
        assert rows[0]["reward"] == 1.0
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    assert proc.returncode == 0


def test_mock_model_command_refuses_bad_faults(capsys):
    from silo_gym.cli import main

    assert main(["mock-model", "--fault", "teapot@1"]) == 1
    assert 'Bad fault "teapot@1"' in capsys.readouterr().err


def test_progress_bar_shows_done_in_flight_failed_and_mean_reward(monkeypatch):
    import io

    from silo_gym.cli.progress import CollectProgress
    from silo_gym.data import CollectCounters

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    counters = CollectCounters(started=5, finished=2, skipped=3)
    bar = CollectProgress("collect demo", 10, counters)
    bar({"reward": 1.0})
    bar({"reward": 0.5})
    bar({"reward": None})
    bar.bar.refresh()
    text = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    bar.close()
    assert "6/10" in text  # 3 resumed rows + 3 new
    assert "in flight 3, failed 1, mean reward 0.75" in text
    assert "ep/s" in text or "s/ep" in text
