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
same file an uninterrupted run writes (rows equal apart from ``run_id``).

What a resume keeps is checked first, since the directory may have been edited, copied into or
damaged: the record must be a whole record, and every row an episode row of this collection
(:func:`_check_rows`). The one damage tolerated is a last line without its newline, the trace of a
crash in the middle of a write: it is dropped and its episode played again. Anything else is
refused with a :class:`ResumeError` naming the file, the line and what to do; a refusal changes
no file (the torn last line is cut off only once the collection goes on).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple, Unpack

import gymnasium as gym

from ..errors import SiloGymError
from ..jsonfmt import dumps_compact, dumps_compact_bytes, dumps_pretty_bytes, loads_strict
from ..wrappers.record import write_atomic
from .collect import (
    EPISODE_COLUMNS,
    EnvPlan,
    check_episode_variants,
    check_group_size,
    drawn_variant,
    iter_collect,
    plan_envs,
)
from .config import CollectConfig, CollectOptions, collect_config
from .io import write
from .run_journal import RUNS_JOURNAL, RunJournal

__all__ = ["DATA_SET_NAMES", "MANIFEST", "STREAM_FILE", "ResumeError", "collect_jsonl", "read_stream"]

STREAM_FILE = "episodes.jsonl"
MANIFEST = ".collect.json"

_FIX_LINE = "Fix that line or remove it (its episode is then played again), or collect into another directory."


class ResumeError(ValueError, SiloGymError):
    """An output directory that cannot be (re)used as asked: what is there, and what to do."""


# -- JSON values described for messages ----------------------------------------------------------


def _kind(value: Any, numbers: bool = True) -> str:
    """What a JSON value is, in words: ``null``, ``a string``, ``an array``... (a number as itself
    when ``numbers``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return dumps_compact(value) if numbers else "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _quoted(names: Iterable[str]) -> str:
    return ", ".join(json.dumps(n) for n in names)


# -- the streamed file ----------------------------------------------------------------------------


class _StreamLines(NamedTuple):
    """A streamed file as read: each row with its line number (1-based), the length of the part
    that ends with the last newline, and the file's size (larger when the last line is torn)."""

    rows: list[tuple[int, dict[str, Any]]]
    whole: int
    size: int


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ResumeError(f"Cannot read {path}: {exc.strerror or exc}.") from None


def _scan(path: Path) -> _StreamLines:
    """Every whole line of ``path`` as a JSON object (blank lines skipped); the bytes after the
    last newline are a torn last line and left out. Changes nothing.

    Raises:
        ResumeError: a whole line is not JSON, or not an object (the file and the line).
    """
    if not path.exists():
        return _StreamLines([], 0, 0)
    data = _read_bytes(path)
    whole = data.rfind(b"\n") + 1
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(data[:whole].split(b"\n")[:-1], start=1):
        if not line.strip():
            continue
        try:
            row = loads_strict(line)
        except json.JSONDecodeError as exc:  # loads_strict's one error (bad UTF-8 included)
            raise ResumeError(f"{path}, line {number}: not JSON ({exc.msg} at column {exc.colno}). "
                              f"{_FIX_LINE}") from None
        if not isinstance(row, dict):
            raise ResumeError(f"{path}, line {number}: holds {_kind(row, numbers=False)}, not an episode row "
                              f"(a JSON object). {_FIX_LINE}")
        rows.append((number, row))
    return _StreamLines(rows, whole, len(data))


def read_stream(path: Path) -> list[dict[str, Any]]:
    """The rows of a streamed file: every line that ends with a newline, as a JSON object; a last
    line cut short (no newline: a crash in the middle of its write) is left out. The file is not
    changed.

    Raises:
        ResumeError: a whole line is not a JSON object (the message names the file and the line).
    """
    return [row for _, row in _scan(path).rows]


# -- what an episode row is -----------------------------------------------------------------------

_STRING = (lambda v: isinstance(v, str), "a string")
_STRING_OR_NULL = (lambda v: v is None or isinstance(v, str), "a string or null")
_ARRAY_OR_NULL = (lambda v: v is None or isinstance(v, list), "an array or null")
_COUNT_OR_NULL = (lambda v: v is None or _is_count(v), "a whole number or null")
_OBJECT_OR_NULL = (lambda v: v is None or isinstance(v, dict), "an object or null")
_FRACTION_OR_NULL = (lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1),
                     "a number from 0 to 1 or null")

#: Per column of an episode row (:data:`~silo_gym.data.EPISODE_COLUMNS`): the test of its JSON
#: value and the words for it.
_COLUMN_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "environment": _STRING,
    "task_id": _STRING,
    "episode": (_is_count, "a whole number >= 0"),
    "variant": _COUNT_OR_NULL,
    "group": _COUNT_OR_NULL,
    "run_id": _STRING_OR_NULL,
    "policy": _STRING,
    "prompt": _ARRAY_OR_NULL,
    "messages": _ARRAY_OR_NULL,
    "actions": _ARRAY_OR_NULL,
    "reward": (lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)), "a number or null"),
    "passed": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "required_passed": _COUNT_OR_NULL,
    "required_total": _COUNT_OR_NULL,
    "checks": _ARRAY_OR_NULL,
    "reward_components": _OBJECT_OR_NULL,
    "required_fraction": _FRACTION_OR_NULL,
    "optional_fraction": _FRACTION_OR_NULL,
    "state_diff": _STRING_OR_NULL,
    "termination_reason": _STRING_OR_NULL,
    "error": _STRING_OR_NULL,
    "tool_calls": _COUNT_OR_NULL,
    "tool_errors": _COUNT_OR_NULL,
    "retries": _COUNT_OR_NULL,
}
assert tuple(_COLUMN_TYPES) == EPISODE_COLUMNS

#: The columns a failed row (:func:`~silo_gym.data.failed_row`) sets; all others are null.
_FAILED_ROW_COLUMNS = ("environment", "task_id", "episode", "group", "policy", "error", "retries")
#: The columns only a failed row leaves null.
_PLAYED_COLUMNS = ("prompt", "messages", "actions", "passed", "required_passed", "required_total", "checks",
                   "reward_components", "required_fraction", "optional_fraction", "state_diff",
                   "termination_reason", "tool_calls", "tool_errors", "retries")


def _row_problem(row: dict[str, Any]) -> str | None:
    """What makes ``row`` other than an episode row (columns, their types, a failed row's nulls),
    or ``None``."""
    if tuple(row) != EPISODE_COLUMNS:
        missing = [c for c in EPISODE_COLUMNS if c not in row]
        extra = [c for c in row if c not in _COLUMN_TYPES]
        parts = []
        if missing:
            parts.append(f"lacks the column{'s' if len(missing) > 1 else ''} {_quoted(missing)}")
        if extra:
            parts.append(f"has {'columns' if len(extra) > 1 else 'a column'} not in an episode row: {_quoted(extra)}")
        return " and ".join(parts) or "has the episode columns in another order than collect writes them"
    for name, (test, words) in _COLUMN_TYPES.items():
        if not test(row[name]):
            return f'column "{name}" is {_kind(row[name])}; an episode row holds {words} there'
    if row["reward"] is None:
        if row["error"] is None:
            return "has reward null (a failed episode) but no error saying why"
        stray = [c for c in EPISODE_COLUMNS if c not in _FAILED_ROW_COLUMNS and row[c] is not None]
        if stray:
            return (f'has reward null (a failed episode) but column "{stray[0]}" set; a failed row holds only '
                    f"{', '.join(_FAILED_ROW_COLUMNS)}")
        return None
    empty = next((c for c in _PLAYED_COLUMNS if row[c] is None), None)
    if empty is not None:
        return f'has a reward but column "{empty}" is null; the row of a played episode fills it'
    return None


def _few(names: list[str], limit: int = 10) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


class _Plan:
    """The episodes of one collection, to tell its rows from others: which (environment, task,
    episode) it plays and how many times (ids may overlap), the policy label of its rows when known
    without running the policy, and the variant each episode plays (``episode_variants``, else the
    one its seed draws)."""

    def __init__(self, plans: list[EnvPlan], episodes_per_task: int, seed: int, env_kwargs: dict[str, Any],
                 policy_label: str | None, episode_variants: dict[str, list[int | None]] | None = None,
                 group_size: int = 1) -> None:
        self.plans = plans
        self.episode_variants = episode_variants or {}
        self.episodes_per_task = episodes_per_task
        self.group_size = group_size
        self.seed = seed
        self.env_kwargs = env_kwargs
        self.policy_label = policy_label
        self.variants = bool(env_kwargs.get("variants"))
        self.times: dict[tuple[str, str], int] = {}
        for plan in plans:
            for task_id in plan.task_ids:
                key = (plan.environment, task_id)
                self.times[key] = self.times.get(key, 0) + 1
        self._envs: dict[str, Any] = {}

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
        self._envs.clear()

    def drawn_variant(self, environment: str, task_id: str, episode: int) -> int | None:
        """The variant the episode's reset seed draws, as collect plays it (a reset of the env)."""
        plan = next(p for p in self.plans if p.environment == environment and task_id in p.task_ids)
        env = self._envs.get(plan.env_id)
        if env is None:
            env = self._envs[plan.env_id] = gym.make(plan.env_id, disable_env_checker=True, **self.env_kwargs)
        return drawn_variant(env, self.seed, environment, task_id, episode, plan.bound, self.group_size)

    def problem(self, row: dict[str, Any], first_label: tuple[int, str] | None) -> str | None:
        """Why the episode row ``row`` is not one of this collection's, or ``None``."""
        environment, task_id, episode = row["environment"], row["task_id"], row["episode"]
        environments = list(dict.fromkeys(p.environment for p in self.plans))
        if environment not in environments:
            return (f'is a row of environment "{environment}", which this collection does not play '
                    f"(it plays {_few(environments)})")
        if (environment, task_id) not in self.times:
            tasks = [t for (e, t) in self.times if e == environment]
            return f"is a row of task {task_id} of {environment}, which this collection does not play " \
                   f"(it plays {_few(tasks)})"
        if episode >= self.episodes_per_task:
            plays = (f"episodes 0 to {self.episodes_per_task - 1}" if self.episodes_per_task > 1
                     else "episode 0 only" if self.episodes_per_task == 1 else "no episodes")
            return f"is episode {episode} of task {task_id}, but this collection plays {plays} of each task"
        group = episode // self.group_size if self.group_size > 1 else None
        if row["group"] != group:
            return (f"has group {_kind(row['group'])}, but this collection plays episode {episode} of each task in "
                    + (f"group {group} (groups of {self.group_size})" if group is not None else "no group (group null)"))
        if self.policy_label is not None and row["policy"] != self.policy_label:
            return f'was played by policy "{row["policy"]}", but this collection\'s policy is "{self.policy_label}"'
        if self.policy_label is None and first_label is not None and row["policy"] != first_label[1]:
            return f'was played by policy "{row["policy"]}", but the row on line {first_label[0]} by "{first_label[1]}"'
        if row["reward"] is None:  # a failed row has no variant
            return None
        fixed = self.episode_variants.get(f"{environment}/{task_id}")
        if fixed is not None:
            if row["variant"] != fixed[episode]:
                wanted = "the canonical world (variant null)" if fixed[episode] is None else f"variant {fixed[episode]}"
                return (f"has variant {_kind(row['variant'])}, but this collection plays {wanted} for episode "
                        f"{episode} of task {task_id}")
            return None
        if not self.variants:
            if row["variant"] is not None:
                return f"has variant {row['variant']}, but this collection plays the canonical worlds (variant null)"
            return None
        drawn = self.drawn_variant(environment, task_id, episode)
        if row["variant"] != drawn:
            return (f"has variant {_kind(row['variant'])}, but seed {self.seed} draws variant {drawn} for "
                    f"episode {episode} of task {task_id}")
        return None


def _check_rows(path: Path, lines: _StreamLines, plan: _Plan) -> list[dict[str, Any]]:
    """The rows of a streamed file that a resume keeps, checked: each an episode row
    (:data:`~silo_gym.data.EPISODE_COLUMNS` in order, each column of its type, a failed row's
    nulls), of the collection ``plan`` (environment, task, episode index, policy, the variant its
    seed draws), and each episode at most as many times as the plan plays it (once, unless ids
    overlap).

    Raises:
        ResumeError: the first line that fails, with what is wrong and what to do.
    """
    seen: dict[tuple[str, str, int], list[int]] = {}
    first_label: tuple[int, str] | None = None
    for number, row in lines.rows:
        problem = _row_problem(row)
        if problem is not None:
            raise ResumeError(f"{path}, line {number}: {problem}. {_FIX_LINE}")
        problem = plan.problem(row, first_label)
        if problem is not None:
            raise ResumeError(f"{path}, line {number}: {problem}. Remove that line, or collect into another "
                              "directory.")
        first_label = first_label or (number, row["policy"])
        key = (row["environment"], row["task_id"], row["episode"])
        earlier = seen.setdefault(key, [])
        if len(earlier) >= plan.times[key[:2]]:
            raise ResumeError(f"{path}, line {number}: repeats episode {key[2]} of task {key[1]} ({key[0]}), "
                              f"already on line {earlier[0]}. Remove one of the two lines, or collect into "
                              "another directory.")
        earlier.append(number)
    return [row for _, row in lines.rows]


# -- the record -----------------------------------------------------------------------------------

#: The keys of ``.collect.json``: the test of each value and the words for it.
_RECORD_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "ids": (lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v), "an array of strings"),
    "policy": _STRING,
    "seed": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "episodesPerTask": (_is_count, "a whole number >= 0"),
    "envKwargs": (lambda v: isinstance(v, dict), "an object"),
    "complete": (lambda v: isinstance(v, bool), "true or false"),
}
#: Keys a record has only sometimes (``groupSize``: a grouped collection; ``episodeVariants``:
#: worlds fixed per episode; ``runsDir``: absent from records of earlier versions), with their tests.
_OPTIONAL_RECORD_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "groupSize": (lambda v: _is_count(v) and v >= 1, "a whole number >= 1"),
    "episodeVariants": (lambda v: isinstance(v, dict), "an object"),
    "runsDir": _STRING_OR_NULL,
}


def _recorded(record: dict[str, Any], key: str) -> Any:
    """``record[key]``, with a missing ``groupSize`` read as 1 (an ungrouped collection) and a
    missing ``episodeVariants`` as ``None`` (worlds drawn from the seeds)."""
    if key == "groupSize":
        return record.get(key, 1)
    return record.get(key) if key in _OPTIONAL_RECORD_TYPES else record[key]


def _record_problem(record: Any) -> str | None:
    if not isinstance(record, dict):
        return f"it is {_kind(record, numbers=False)}, not an object"
    for key, (test, words) in _OPTIONAL_RECORD_TYPES.items():
        if key in record and not test(record[key]):
            return f'"{key}" is {_kind(record[key])}; a record holds {words} there'
    missing = [k for k in _RECORD_TYPES if k not in record]
    if missing:
        return f"it lacks {_quoted(missing)}"
    optional = {k: t for k, t in _OPTIONAL_RECORD_TYPES.items() if k in record}
    for key, (test, words) in {**_RECORD_TYPES, **optional}.items():
        value = record[key]
        if not test(value):
            kind = _kind(value)
            if isinstance(value, list) and value and key == "ids":
                kind += " holding " + _kind(next(i for i in value if not isinstance(i, str)), numbers=False)
            return f'"{key}" is {kind}; a record holds {words} there'
    return None


def _read_record(path: Path) -> dict[str, Any] | None:
    """The checked ``.collect.json`` at ``path``, ``None`` when there is none.

    Raises:
        ResumeError: it is not a file, cannot be read, or is not a whole record.
    """
    if not path.exists():
        return None
    _require_file(path, "the record of the collection")
    data = _read_bytes(path)
    record: Any = None
    problem: str | None
    try:
        record = loads_strict(data)
    except json.JSONDecodeError as exc:  # loads_strict's one error (bad UTF-8 included)
        problem = f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    else:
        problem = _record_problem(record)
    if problem is not None:
        raise ResumeError(f"{path} is not a collection record: {problem}. It was damaged, or not written by "
                          "silo-gym collect: restore it, or collect into another directory.")
    return record  # type: ignore[no-any-return]


def _require_file(path: Path, what: str) -> None:
    if path.exists() and not path.is_file():
        raise ResumeError(f"{path} is not a file; a collection keeps {what} there. Move it away, or collect into "
                          "another directory.")


def _manifest(ids: list[str], policy: str, seed: int, episodes_per_task: int,
              env_kwargs: dict[str, Any] | None, runs_dir: str | None, group_size: int = 1) -> dict[str, Any]:
    record = {"ids": ids, "policy": policy, "seed": seed, "episodesPerTask": episodes_per_task,
              "envKwargs": dict(env_kwargs or {}), "runsDir": runs_dir}
    if group_size != 1:  # only grouped collections record it: older records stay valid
        record["groupSize"] = group_size
    return record


#: The files a collection writes into ``--out`` besides its record: ``episodes`` and ``pairs`` in
#: each format (a Hugging Face data set is a directory named by the stem).
DATA_SET_NAMES = ("episodes.jsonl", "episodes.parquet", "episodes", "pairs.jsonl", "pairs.parquet", "pairs")
#: Files a Hugging Face ``save_to_disk`` directory always holds.
_HF_MARKERS = ("dataset_info.json", "state.json")


def _data_set_files(out: Path) -> list[str]:
    """The names of :data:`DATA_SET_NAMES` present in ``out`` (a link counts)."""
    return [name for name in DATA_SET_NAMES if os.path.lexists(out / name)]


def _check_replaceable(out: Path, names: list[str]) -> None:
    """Refuse to replace a path among ``names`` that collect would not have written: a directory
    that is not a saved data set, or a data-set file name held by a directory.

    Raises:
        ResumeError: naming the path.
    """
    for name in names:
        path = out / name
        if os.path.islink(path):
            continue  # the link is removed, never what it points to
        is_dir = path.is_dir()
        if "." not in name:  # a Hugging Face data set directory
            if not is_dir or not all((path / marker).is_file() for marker in _HF_MARKERS):
                raise ResumeError(f"{path} is not a data set silo-gym wrote (a Hugging Face save_to_disk "
                                  "directory), so --overwrite leaves it alone and stops: move it away, or collect "
                                  "into another directory.")
        elif is_dir:
            raise ResumeError(f"{path} is a directory, where a collection writes a file; move it away, or collect "
                              "into another directory.")


def _remove_data_set(out: Path, names: list[str]) -> None:
    """Delete the data-set files ``names`` of ``out`` (checked by :func:`_check_replaceable`)."""
    for name in names:
        path = out / name
        if path.is_dir() and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            path.unlink()


def _order_key(plans: list[EnvPlan]) -> Callable[[dict[str, Any]], tuple[int, int, int]]:
    places: dict[tuple[str, str], tuple[int, int]] = {}
    for env_pos, plan in enumerate(plans):
        for task_pos, task_id in enumerate(plan.task_ids):
            places.setdefault((plan.environment, task_id), (env_pos, task_pos))
    return lambda row: (*places.get((row["environment"], row["task_id"]), (len(plans), 0)), row["episode"])


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


def _row_label(policy: Any, policy_name: str | None) -> str | None:
    """The ``policy`` column the rows will hold, when it is known without loading the policy:
    ``policy_name``, else a string or path policy names itself (:func:`~silo_gym.data.resolve_policy`)."""
    if policy_name is not None:
        return policy_name
    if isinstance(policy, (str, os.PathLike)):
        return os.fspath(policy)
    return None


def collect_jsonl(out_dir: str | os.PathLike[str], env_ids: str | Iterable[str], policy: Any,
                  config: CollectConfig | None = None, *, resume: bool = False, overwrite: bool = False,
                  policy_spec: str | None = None, **options: Unpack[CollectOptions]) -> list[dict[str, Any]]:
    """Collect with every row streamed to ``<out_dir>/episodes.jsonl`` (module docs); returns all
    rows in :func:`~silo_gym.data.collect`'s order.

    With ``runs_dir`` (a setting) every run directory created is listed in
    ``<out_dir>/.collect-runs`` (:mod:`silo_gym.data.run_journal`) and the record names the runs
    directory; before any episode is played, the listed run directories that no kept row names
    (episodes in flight when a crash stopped an earlier attempt) are deleted, so that in the end
    each run directory is named by one row.

    Args:
        out_dir: the output directory (created).
        resume: continue the unfinished collection in ``out_dir``. Its rows are checked first
            (:func:`_check_rows`; with ``variants`` that resets an env once per row kept); a
            last line without its newline is dropped and its episode played again.
        overwrite: replace the data set already in ``out_dir`` (the files of
            :data:`DATA_SET_NAMES`, the record, and the run directories its journal lists),
            once this collection's arguments are checked; other files there are kept.
        policy_spec: how the policy is named in the record (default: ``str(policy)`` for a
            string, else the policy's ``name`` or type name); a resume must name it the same way.
        config: the collection's settings (:class:`~silo_gym.data.config.CollectConfig`), with
            ``options`` replacing its fields; without it, the settings are ``options``.
        **options: the settings as keyword arguments, as for :func:`~silo_gym.data.iter_collect`
            (``episodes_per_task``, ``seed``, ``concurrency``, ``runs_dir``, ``progress``...);
            ``variants=True`` is recorded as an env kwarg, and ``episode_variants`` as
            ``episodeVariants`` (a resume checks each kept row's variant against it). ``skip`` and
            ``run_journal`` are this function's own.

    Raises:
        ValueError: ``resume`` and ``overwrite`` both true.
        ResumeError: ``out_dir`` holds a data set (a collection, finished or with rows, or any
            file of :data:`DATA_SET_NAMES`) and neither ``resume`` nor ``overwrite`` is true;
            ``overwrite`` and one of those paths is not what a collection writes; or
            ``resume`` is true and ``out_dir`` holds no collection, or another one, or rows that
            are not this collection's (not an episode row, outside its plan, repeated; the
            message names the file and the line); or ``.collect.json`` is damaged; or a path
            the collection writes is not a file (``out_dir`` not a directory); or another
            process is collecting into ``out_dir`` now (a lock on the directory). Nothing on
            disk is changed then. Resuming a complete collection plays nothing and returns its
            rows.
        KeyboardInterrupt: the collection was interrupted; the rows finished are in the file.
    """
    settings = collect_config(config, options, "collect_jsonl")
    if resume and overwrite:
        raise ValueError("resume and overwrite exclude each other: finish the collection there, or replace it.")
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    episodes_per_task, seed, group_size = settings.episodes_per_task, settings.seed, settings.group_size
    check_group_size(group_size, episodes_per_task)
    env_kwargs = settings.env_kwargs
    if settings.variants is not False:  # recorded with the env kwargs, so a resume must ask for it too
        env_kwargs = {**(env_kwargs or {}), "variants": settings.variants}
    settings = settings.replace(env_kwargs=env_kwargs, variants=False)
    out = Path(out_dir)
    stream = out / STREAM_FILE
    record_path = out / MANIFEST
    label = policy_spec or (policy if isinstance(policy, str) else str(getattr(policy, "name", type(policy).__name__)))
    runs_dir = settings.runs_dir
    runs_root = os.path.abspath(runs_dir) if runs_dir is not None else None
    wanted = _manifest(ids, label, seed, episodes_per_task, env_kwargs, runs_root, group_size)
    fixed_worlds = check_episode_variants(settings.episode_variants, episodes_per_task)
    if fixed_worlds is not None:  # recorded only when given: a plain collection's record is as it was
        wanted["episodeVariants"] = fixed_worlds
    if out.exists() and not out.is_dir():
        raise ResumeError(f"{out} is not a directory; collect into a directory (it is created when missing).")
    # Taken before the record is read: a collection still running is not an unfinished one.
    lock = _lock(out) if out.is_dir() else None
    try:
        record = _read_record(record_path)
        _require_file(stream, "its rows")
        unfinished = record is not None and not record["complete"]
        done: list[dict[str, Any]] = []
        lines = _StreamLines([], 0, 0)
        plans: list[EnvPlan] | None = None
        if resume:
            if record is None:
                raise ResumeError(f"Nothing to resume in {out}: it has no {MANIFEST} of an interrupted collection.")
            keys = [*_RECORD_TYPES, *_OPTIONAL_RECORD_TYPES]
            keys.remove("complete")
            # A record of an earlier version has no runsDir: then any runs directory goes.
            differing = [k for k in keys if (k != "runsDir" or k in record)
                         and _recorded(record, k) != _recorded(wanted, k)]
            if differing:
                theirs = ", ".join(f"{k}={_recorded(record, k)!r}" for k in differing)
                ours = ", ".join(f"{k}={_recorded(wanted, k)!r}" for k in differing)
                raise ResumeError(f"{out} holds another collection ({theirs}); this one has {ours}. "
                                  "Resume with the same arguments, or write to another directory.")
            lines = _scan(stream)
            plans = plan_envs(ids, env_kwargs)
            plan = _Plan(plans, episodes_per_task, seed, dict(env_kwargs or {}),
                         _row_label(policy, settings.policy_name), fixed_worlds, group_size)
            try:
                done = _check_rows(stream, lines, plan)
            finally:
                plan.close()
            planned = sum(plan.times.values()) * episodes_per_task
            if record["complete"] and len(done) == planned and lines.whole == lines.size:
                return done  # nothing left to play: its rows, e.g. to write other formats
        elif unfinished and stream.exists() and stream.stat().st_size and not overwrite:
            rows_there = _read_bytes(stream).count(b"\n")
            raise ResumeError(f"{out} holds an unfinished collection ({rows_there} rows in {STREAM_FILE}); "
                              "pass --resume to finish it, --overwrite to replace it, or choose another directory.")
        present = [] if resume or not out.is_dir() else _data_set_files(out)
        if not resume and not overwrite and (present or (record is not None and record["complete"])):
            shown = ", ".join(present) or MANIFEST
            raise ResumeError(f"{out} already holds a data set ({shown}). Collect into another directory; pass "
                              "--resume to keep that collection (finishing it, or writing its other formats), or "
                              "--overwrite to replace the whole data set (its files and its run directories).")
        if overwrite:
            _check_replaceable(out, present)
        skip = {(r["environment"], r["task_id"], r["episode"]) for r in done}
        # The arguments are checked here, before anything is written.
        journal = RunJournal(out / RUNS_JOURNAL)
        source = iter_collect(ids, policy, settings.replace(
            skip=skip, run_journal=journal if runs_root is not None else None))
        rows = list(done)
        try:
            out.mkdir(parents=True, exist_ok=True)
            if lock is None:  # the directory did not exist when the checks ran
                lock = _lock(out)
                if record_path.exists() or stream.exists():  # another collection began there meanwhile
                    raise ResumeError(f"Another collection started writing to {out} while this one was "
                                      "starting; run again to see its state, or write to another directory.")
            # Run directories of episodes that gave no kept row (a crash, or a replaced collection).
            kept_runs = [os.path.join(runs_root, r["run_id"]) for r in done
                         if runs_root is not None and isinstance(r["run_id"], str)]
            journal.sweep(kept_runs)
            if overwrite:
                _remove_data_set(out, present)
            write_atomic(record_path, dumps_pretty_bytes({**wanted, "complete": False}))
            if runs_root is not None:
                journal.open()
            if lines.whole < lines.size:  # a crash in the middle of the last write: that episode is played again
                with open(stream, "r+b") as fh:
                    fh.truncate(lines.whole)
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
            journal.close()
        rows.sort(key=_order_key(plans if plans is not None else plan_envs(ids, env_kwargs)))
        write(rows, out, ("jsonl",), name=STREAM_FILE[: -len(".jsonl")])
        write_atomic(record_path, dumps_pretty_bytes({**wanted, "complete": True}))
        return rows
    finally:
        if lock is not None:
            os.close(lock)  # releases the lock
