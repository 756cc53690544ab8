"""``RecordRun``: the env's episode events -> ``trace.jsonl``, ``result.json``, ``state-diff.json``,
``run.json`` (silo-format §6; gym-api.md, "Recording")."""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any, Protocol, SupportsFloat

import gymnasium as gym
import orjson

from ..episode import FloatFreeEvent
from ..jsonfmt import dumps_compact_bytes, dumps_pretty_bytes
from ..time_limit import check_no_time_limit

__all__ = ["RecordRun", "RunDirJournal", "create_run_dir", "new_run_id", "write_atomic"]

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_run_id(prefix: str = "run") -> str:
    """``<prefix>_<YYYYMMDDHHMMSS>_<4 random [0-9a-z]>`` from the UTC clock (silo-format §6.1)."""
    stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime())
    return f"{prefix}_{stamp}_{''.join(secrets.choice(_ALPHABET) for _ in range(4))}"


class RunDirJournal(Protocol):
    """Told of every run directory a recorder creates (a collection keeps the list, so that the
    directories of episodes that never gave a row can be found after a crash):
    :meth:`intend` just before the directory is made, :meth:`made` once it is (and before
    anything is written into it)."""

    def intend(self, run_dir: Path) -> None: ...

    def made(self, run_dir: Path) -> None: ...


def create_run_dir(runs_dir: Path, journal: RunDirJournal | None = None) -> tuple[str, Path]:
    """Create a run directory exclusively; retry with a new suffix on a clash (silo-format §6.1).

    ``journal`` is told of the directory before and after it is made (:class:`RunDirJournal`).

    Raises:
        OSError: the last error after 100 attempts, or any error creating ``runs_dir``, or the
            journal's error (the directory is then removed).
    """
    runs_dir.mkdir(parents=True, exist_ok=True)
    last: OSError | None = None
    for _ in range(100):
        run_id = new_run_id()
        path = runs_dir / run_id
        if journal is not None:
            journal.intend(path)
        try:
            path.mkdir()
        except FileExistsError as exc:
            last = exc
            continue
        if journal is not None:
            try:
                journal.made(path)
            except BaseException:
                os.rmdir(path)
                raise
        return run_id, path
    assert last is not None
    raise last


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` (name starting with ``.``), then rename
    it over ``path`` (silo-format §6.6). The temporary file never survives an error.

    Raises:
        OSError: the write or the rename failed (disk full, permissions), after cleaning up.
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def _fast_line(event: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(event)
    except (TypeError, OverflowError, RecursionError):
        return dumps_compact_bytes(event)


class _RunWriter:
    """Writes one run: trace lines as events arrive, the three JSON files at the end.

    Each trace line goes out with one unbuffered ``os.write`` on an ``O_APPEND`` descriptor, so a
    crash keeps every line written so far (silo-format §6.6) at one system call per event. A
    short write is completed; a write that fails part-way is cut back to the last whole line
    before the error propagates, so every line but the last is always whole (a process killed
    mid-write can leave only the last line torn, which :func:`silo_gym.trace.read_trace` reports).
    """

    __slots__ = ("run_dir", "run_id", "_fd", "_size")

    def __init__(self, run_dir: Path, run_id: str) -> None:
        self.run_dir = run_dir
        self.run_id = run_id
        self._fd: int | None = os.open(run_dir / "trace.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._size = 0  # bytes of whole lines written

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "episode_end":
            self._end(event)
            return
        if kind == "episode_discarded":  # an episode that received no action (SiloEnv.close)
            self.discard()
            return
        if kind == "run_start" and event["runId"] != self.run_id:
            # Another RecordRun around the same env records this episode too, and the episode
            # carries its id: each run directory's files name their own run.
            event = {**event, "runId": self.run_id}
        line = dumps_compact_bytes(event) if type(event) is not FloatFreeEvent else _fast_line(event)
        if self._fd is not None:
            self._append(line + b"\n")

    def _append(self, data: bytes) -> None:
        fd = self._fd
        assert fd is not None
        written = os.write(fd, data)  # almost always the whole line at once
        if written != len(data):
            view = memoryview(data)
            try:
                while written < len(data):
                    n = os.write(fd, view[written:])
                    if n <= 0:
                        raise OSError(f"could not append to {self.run_dir / 'trace.jsonl'}: write returned {n}")
                    written += n
            except BaseException:
                try:
                    os.ftruncate(fd, self._size)  # undo the partial line
                except OSError:
                    pass
                raise
        self._size += written

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def _end(self, note: dict[str, Any]) -> None:
        try:
            self.close()
            if note["stateDiff"] is not None:  # None: the world was not graded (§5.3, amended)
                write_atomic(self.run_dir / "state-diff.json", dumps_pretty_bytes(note["stateDiff"]))
            if note["result"] is not None:
                write_atomic(self.run_dir / "result.json", dumps_pretty_bytes(note["result"]))
            run = note["run"]
            if run["runId"] != self.run_id:  # as for run_start, above
                run = {**run, "runId": self.run_id}
            write_atomic(self.run_dir / "run.json", dumps_pretty_bytes(run))
        finally:
            self.close()

    def discard(self) -> None:
        self.close()
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def __del__(self) -> None:
        self.close()


class RecordRun(gym.Wrapper[str, Any, str, Any], gym.utils.RecordConstructorArgs):
    """Record every episode of a ``SiloEnv`` as a Silo run directory (gym-api.md, "Recording").

    Each ``reset`` creates ``<runs_dir>/<runId>/`` and subscribes to the env's events; the run
    gets ``trace.jsonl`` (one compact JSON line per event, flushed as it happens), then
    ``state-diff.json``, ``result.json`` (not when grading failed) and ``run.json``, each written
    atomically when the episode ends, however it ends (``step``, ``finish``, ``abort``, or an
    abandoning ``reset``/``close``). ``run_id`` and ``run_dir`` (absolute ``str``) are added to the
    reset info and to every step's info of that episode.

    Args:
        env: a ``SiloEnv`` or a wrapper around one.
        runs_dir: where run directories go; a relative path is resolved against the current
            directory when the wrapper is built. Created with its parents.
        agent_path: recorded as ``config.agentPath`` (``None`` gives ``null``).
        journal: told of every run directory before and after it is created
            (:class:`RunDirJournal`; a streamed collection passes its ``.collect-runs``).

    Raises:
        TypeError: the unwrapped env is not a ``SiloEnv`` (it has no ``add_listener``).
        ValueError: a Gymnasium ``TimeLimit`` is inside ``env`` (:mod:`silo_gym.time_limit`).
        OSError: ``reset`` could not create the run directory; writing the trace or the files.
    """

    def __init__(self, env: gym.Env[str, Any], runs_dir: str | os.PathLike[str] = ".silo/runs",
                 agent_path: str | None = None, journal: RunDirJournal | None = None) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, runs_dir=runs_dir, agent_path=agent_path)
        gym.Wrapper.__init__(self, env)
        if not hasattr(env.unwrapped, "add_listener"):
            raise TypeError("RecordRun wraps a silo_gym SiloEnv (its unwrapped env has no add_listener).")
        check_no_time_limit(env)
        self.runs_dir = Path(os.path.abspath(runs_dir))
        self.agent_path = agent_path
        self.journal = journal
        self.run_id: str | None = None
        self.run_dir: str | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        run_id, run_dir = create_run_dir(self.runs_dir, self.journal)
        try:
            writer = _RunWriter(run_dir, run_id)
        except BaseException:
            shutil.rmtree(run_dir, ignore_errors=True)
            raise
        unwrapped = self.env.unwrapped
        unwrapped.add_listener(writer, run_id=run_id, agent_path=self.agent_path)  # type: ignore[attr-defined]
        try:
            obs, info = self.env.reset(seed=seed, options=options)
        except BaseException:
            # A wrapper in between may fail before SiloEnv.reset took the listener: withdraw it.
            unwrapped.remove_listener(writer)  # type: ignore[attr-defined]
            writer.discard()
            raise
        self.run_id, self.run_dir = run_id, str(run_dir)
        info["run_id"] = run_id
        info["run_dir"] = self.run_dir
        return obs, info

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["run_id"] = self.run_id
        info["run_dir"] = self.run_dir
        return obs, reward, terminated, truncated, info
