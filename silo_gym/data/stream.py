"""Streaming a collection to disk, and resuming it (issue 11, "Streaming output").

:func:`collect_jsonl` runs :func:`~silo_gym.data.iter_collect` and appends every row to
``<out_dir>/episodes.jsonl`` the moment its episode ends: one ``os.write`` of one whole line on an
``O_APPEND`` descriptor, so the file only ever holds complete rows, whatever stops the process
between two rows. Beside it, ``<out_dir>/.collect.json`` records what the collection is (ids,
policy, seed, episodes per task, env kwargs) and whether it finished.

When every episode is done the file is rewritten (atomically) in :func:`~silo_gym.data.collect`'s
order, and the record says "complete". After an interruption (Ctrl-C, SIGTERM, a crash) the file
holds the rows finished so far, in the order they finished; ``resume=True`` checks that the same
collection is asked for, keeps those rows, plays only the episodes missing, and ends with the
same file an uninterrupted run writes (rows equal apart from ``run_id``). A line cut short by a
hard kill is dropped on resume.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..jsonfmt import dumps_compact_bytes, dumps_pretty_bytes, loads_strict
from ..wrappers.record import write_atomic
from .collect import EPISODE_COLUMNS, iter_collect, plan_envs
from .io import write

__all__ = ["MANIFEST", "STREAM_FILE", "ResumeError", "collect_jsonl", "read_stream"]

STREAM_FILE = "episodes.jsonl"
MANIFEST = ".collect.json"


class ResumeError(ValueError):
    """An output directory that cannot be (re)used as asked: what is there, and what to do."""


def read_stream(path: Path) -> list[dict[str, Any]]:
    """The complete rows of a streamed file; a last line cut short (no newline, or not JSON) is
    cut off the file."""
    if not path.exists():
        return []
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    rows = []
    for line in data[:end].splitlines():
        if line.strip():
            rows.append(loads_strict(line.decode("utf-8")))
    if end != len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return rows


def _manifest(ids: list[str], policy: str, seed: int, episodes_per_task: int,
              env_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    return {"ids": ids, "policy": policy, "seed": seed, "episodesPerTask": episodes_per_task,
            "envKwargs": dict(env_kwargs or {})}


def _order_key(ids: list[str], env_kwargs: dict[str, Any] | None) -> Callable[[dict[str, Any]], tuple[int, int, int]]:
    places: dict[tuple[str, str], tuple[int, int]] = {}
    for env_pos, plan in enumerate(plan_envs(ids, env_kwargs)):
        for task_pos, task_id in enumerate(plan.task_ids):
            places.setdefault((plan.environment, task_id), (env_pos, task_pos))
    return lambda row: (*places.get((row["environment"], row["task_id"]), (len(ids), 0)), row["episode"])


def _lock(out: Path) -> int | None:
    """An exclusive lock on the directory ``out`` for this process (released when the returned
    descriptor closes; no lock file is left behind). ``None`` where ``fcntl`` does not exist.

    Raises:
        ResumeError: another process holds it: a collection is writing there now.
    """
    try:
        import fcntl
    except ImportError:  # Windows: two collections into one directory are not detected
        return None
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ResumeError(f"Another collection is writing to {out} now; wait for it to end, or write to "
                          "another directory.") from None
    return fd


def collect_jsonl(out_dir: str | os.PathLike[str], env_ids: str | Iterable[str], policy: Any, *,
                  episodes_per_task: int, seed: int = 0, resume: bool = False, policy_spec: str | None = None,
                  env_kwargs: dict[str, Any] | None = None, **collect_kwargs: Any) -> list[dict[str, Any]]:
    """Collect with every row streamed to ``<out_dir>/episodes.jsonl`` (module docs); returns all
    rows in :func:`~silo_gym.data.collect`'s order.

    Args:
        out_dir: the output directory (created).
        resume: continue the unfinished collection in ``out_dir``.
        policy_spec: how the policy is named in the record (default: ``str(policy)`` for a
            string, else the policy's ``name`` or type name); a resume must name it the same way.
        **collect_kwargs: passed to :func:`~silo_gym.data.iter_collect` (``concurrency``,
            ``runs_dir``, ``progress``...).

    Raises:
        ResumeError: ``out_dir`` holds an unfinished collection and ``resume`` is false; or
            ``resume`` is true and ``out_dir`` holds no collection, or another one; or another
            process is collecting into ``out_dir`` now (a lock on the directory). Resuming a
            complete collection plays nothing and returns its rows.
        KeyboardInterrupt: the collection was interrupted; the rows finished are in the file.
    """
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    out = Path(out_dir)
    stream = out / STREAM_FILE
    record_path = out / MANIFEST
    label = policy_spec or (policy if isinstance(policy, str) else str(getattr(policy, "name", type(policy).__name__)))
    wanted = _manifest(ids, label, seed, episodes_per_task, env_kwargs)
    # Taken before the record is read: a collection still running is not an unfinished one.
    lock = _lock(out) if out.is_dir() else None
    try:
        record = loads_strict(record_path.read_text("utf-8")) if record_path.is_file() else None
        unfinished = record is not None and not record.get("complete")
        done: list[dict[str, Any]] = []
        if resume:
            if record is None:
                raise ResumeError(f"Nothing to resume in {out}: it has no {MANIFEST} of an interrupted collection.")
            differing = [k for k in wanted if record.get(k) != wanted[k]]
            if differing:
                theirs = ", ".join(f"{k}={record.get(k)!r}" for k in differing)
                ours = ", ".join(f"{k}={wanted[k]!r}" for k in differing)
                raise ResumeError(f"{out} holds another collection ({theirs}); this one has {ours}. "
                                  "Resume with the same arguments, or write to another directory.")
            done = read_stream(stream)
            if record.get("complete"):  # nothing left to play: its rows, e.g. to write other formats
                return done
            for row in done:
                if tuple(row) != EPISODE_COLUMNS:
                    raise ResumeError(f"{stream} holds rows that are not episode rows; write to another directory.")
        elif unfinished and stream.exists() and stream.stat().st_size:
            raise ResumeError(f"{out} holds an unfinished collection ({len(read_stream(stream))} rows in {STREAM_FILE}); "
                              "pass --resume to finish it, or choose another directory.")
        skip = {(r["environment"], r["task_id"], r["episode"]) for r in done}
        # The arguments are checked here, before anything is written.
        source = iter_collect(ids, policy, episodes_per_task=episodes_per_task, seed=seed, env_kwargs=env_kwargs,
                              skip=skip, **collect_kwargs)
        rows = list(done)
        try:
            out.mkdir(parents=True, exist_ok=True)
            if lock is None:
                lock = _lock(out)
            write_atomic(record_path, dumps_pretty_bytes({**wanted, "complete": False}))
            fd = os.open(stream, os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if resume else os.O_TRUNC), 0o644)
            try:
                for row in source:
                    os.write(fd, dumps_compact_bytes(row) + b"\n")
                    rows.append(row)
            finally:
                os.close(fd)
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()
        rows.sort(key=_order_key(ids, env_kwargs))
        write(rows, out, ("jsonl",), name=STREAM_FILE[: -len(".jsonl")])
        write_atomic(record_path, dumps_pretty_bytes({**wanted, "complete": True}))
        return rows
    finally:
        if lock is not None:
            os.close(lock)  # releases the lock
