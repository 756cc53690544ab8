"""Writing and reading episode rows and preference pairs: JSONL, Parquet and a Hugging Face
``datasets.Dataset`` (gym-api.md, "Reward-model and trajectory data").

Encodings:

- **JSONL** (``<name>.jsonl``) is the canonical form: one row per line, written with the
  package's compact JSON writer (silo-format §7.2). Every field is stored as it is. Numbers are
  written the JavaScript way (§7.3), so a float with an integral value inside ``actions`` (say an
  input ``5.0``) reads back as the int ``5`` (equal in Python); :func:`read` turns ``reward``,
  ``chosen_reward``, ``rejected_reward`` and the two fractions back into floats.
- **Parquet** (``<name>.parquet``, needs ``pyarrow``) and **Hugging Face** (``<name>/``, written
  with ``Dataset.save_to_disk``, needs ``datasets``) use one fixed Arrow schema per layout:

  - messages (``prompt``, ``messages``, ``chosen``, ``rejected``) are native lists of structs
    ``{role, content, tool_calls: [{id, type, function: {name, arguments}}], tool_call_id}``,
    the layout TRL reads; a key a message does not have is stored as null;
  - ``checks`` is a native list of ``{label, passed, detail, required}``;
  - ``actions`` is **JSON text** (the compact JSON of the list): actions are arbitrary JSON
    (any tool input, any answer value), which no fixed Arrow type can hold;
  - ``reward_components`` is JSON text too: its keys are the check labels, which differ from
    task to task (a fixed Arrow struct would pad every row with every task's labels);
  - ``state_diff`` is JSON text already (gym-api.md).

  :func:`read` undoes this: it parses ``actions`` and drops the null ``tool_calls`` /
  ``tool_call_id`` keys of messages, so a row reads back equal to the row written (``content``
  is kept even when null). Message ``content`` must be text or null in these formats.

Rows of another layout are written with an inferred Arrow schema and read back as Arrow gives
them.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..jsonfmt import dumps_compact, dumps_compact_bytes, loads_strict
from .collect import EPISODE_COLUMNS
from .pairs import PAIR_COLUMNS

__all__ = ["FORMATS", "check_format_libraries", "read", "write"]

#: The formats :func:`write` knows.
FORMATS = ("jsonl", "parquet", "hf")

_MESSAGE_LISTS = ("prompt", "messages", "chosen", "rejected")
_JSON_TEXT = ("actions", "reward_components")
_FLOATS = ("reward", "chosen_reward", "rejected_reward", "required_fraction", "optional_fraction")
_OPTIONAL_MESSAGE_KEYS = ("tool_calls", "tool_call_id")


def check_format_libraries(formats: Iterable[str]) -> None:
    """Fail before any work when a format's library is missing (found, not imported: cheap).

    Raises:
        ImportError: ``pyarrow`` missing for ``parquet``/``hf``, or ``datasets`` for ``hf``;
            the message names the extra to install.
    """
    wanted = {f.strip().lower() for f in formats}
    if wanted & {"parquet", "hf"} and importlib.util.find_spec("pyarrow") is None:
        raise ImportError('Parquet and Hugging Face output need pyarrow: pip install "silo-gym[data]"')
    if "hf" in wanted and importlib.util.find_spec("datasets") is None:
        raise ImportError('Hugging Face output needs datasets: pip install "silo-gym[data]"')


def _need_pyarrow() -> Any:
    try:
        import pyarrow as pa
    except ImportError as exc:
        raise ImportError('Parquet and Hugging Face output need pyarrow: pip install "silo-gym[data]"') from exc
    return pa


def _schemas(pa: Any) -> dict[str, Any]:
    tool_call = pa.struct([
        ("id", pa.string()),
        ("type", pa.string()),
        ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
    ])
    message = pa.struct([
        ("role", pa.string()),
        ("content", pa.string()),
        ("tool_calls", pa.list_(tool_call)),
        ("tool_call_id", pa.string()),
    ])
    messages = pa.list_(message)
    check = pa.struct([("label", pa.string()), ("passed", pa.bool_()), ("detail", pa.string()),
                       ("required", pa.bool_())])
    episodes = pa.schema([
        ("environment", pa.string()),
        ("task_id", pa.string()),
        ("episode", pa.int64()),
        ("variant", pa.int64()),
        ("group", pa.int64()),
        ("run_id", pa.string()),
        ("policy", pa.string()),
        ("prompt", messages),
        ("messages", messages),
        ("actions", pa.string()),
        ("reward", pa.float64()),
        ("passed", pa.bool_()),
        ("required_passed", pa.int64()),
        ("required_total", pa.int64()),
        ("checks", pa.list_(check)),
        ("reward_components", pa.string()),
        ("required_fraction", pa.float64()),
        ("optional_fraction", pa.float64()),
        ("state_diff", pa.string()),
        ("termination_reason", pa.string()),
        ("error", pa.string()),
        ("tool_calls", pa.int64()),
        ("tool_errors", pa.int64()),
        ("retries", pa.int64()),
    ])
    pairs = pa.schema([
        ("prompt", messages),
        ("chosen", messages),
        ("rejected", messages),
        ("chosen_reward", pa.float64()),
        ("rejected_reward", pa.float64()),
        ("task_id", pa.string()),
    ])
    return {"episodes": episodes, "pairs": pairs}


def _layout(rows: Sequence[dict[str, Any]]) -> str | None:
    if not rows:
        return None
    keys = tuple(rows[0])
    if keys == EPISODE_COLUMNS:
        return "episodes"
    if keys == PAIR_COLUMNS:
        return "pairs"
    return None


def _arrow_message(m: dict[str, Any]) -> dict[str, Any]:
    content = m.get("content")
    if content is not None and not isinstance(content, str):
        content = dumps_compact(content)
    return {"role": m.get("role"), "content": content, "tool_calls": m.get("tool_calls"),
            "tool_call_id": m.get("tool_call_id")}


def _utf8(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings written as its escape (``\\ud800``):
    Arrow strings are UTF-8, which cannot hold one (a Python str an agent wrote can)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_utf8(k): _utf8(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_utf8(v) for v in value]
    return value


def _to_arrow_row(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for key in _MESSAGE_LISTS:
        if key in out and out[key] is not None:
            out[key] = [_arrow_message(m) for m in out[key]]
    for key in _JSON_TEXT:  # JSON text escapes a lone surrogate itself (silo-format §7.3): exact
        if key in out:
            out[key] = dumps_compact(out[key])
    return _utf8(out)


def _table(rows: Sequence[dict[str, Any]], layout: str | None) -> Any:
    pa = _need_pyarrow()
    if layout is None:
        return pa.Table.from_pylist([_utf8(dict(r)) for r in rows])
    schema = _schemas(pa)[layout]
    return pa.Table.from_pylist([_to_arrow_row(r) for r in rows], schema=schema)


def _from_arrow_row(row: dict[str, Any], layout: str | None) -> dict[str, Any]:
    if layout is None:
        return row
    for key in _MESSAGE_LISTS:
        if key in row and row[key] is not None:
            row[key] = [{k: v for k, v in m.items() if not (k in _OPTIONAL_MESSAGE_KEYS and v is None)}
                        for m in row[key]]
    for key in _JSON_TEXT:
        if key in row and isinstance(row[key], str):
            row[key] = loads_strict(row[key])
    return row


def write(rows: Iterable[dict[str, Any]], out_dir: str | os.PathLike[str], formats: Iterable[str] = ("jsonl",),
          *, name: str | None = None) -> list[str]:
    """Write rows to ``out_dir`` (created with its parents) in each of ``formats``.

    Args:
        rows: episode rows (:func:`collect`), pair rows (:func:`preference_pairs`) or any dicts.
        formats: any of ``"jsonl"``, ``"parquet"``, ``"hf"`` (or one comma-separated string).
        name: the file stem; defaults to ``"episodes"`` or ``"pairs"`` by the rows' columns
            (``"rows"`` otherwise).

    Returns:
        The paths written: ``<name>.jsonl``, ``<name>.parquet``, and the ``<name>/`` directory of
        ``save_to_disk``.

    Raises:
        ValueError: an unknown format.
        ImportError: ``pyarrow`` / ``datasets`` missing for Parquet / ``hf``.
    """
    rows = list(rows)
    if isinstance(formats, str):
        formats = formats.split(",")
    formats = [f.strip().lower() for f in formats if f.strip()]
    for fmt in formats:
        if fmt not in FORMATS:
            raise ValueError(f'Unknown format "{fmt}"; use jsonl, parquet or hf.')
    layout = _layout(rows)
    stem = name or layout or "rows"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    table = None
    for fmt in formats:
        if fmt == "jsonl":
            path = out / f"{stem}.jsonl"
            tmp = out / f".{stem}.jsonl.tmp"
            with open(tmp, "wb") as fh:
                for row in rows:
                    fh.write(dumps_compact_bytes(row) + b"\n")
            os.replace(tmp, path)
            written.append(str(path))
        elif fmt == "parquet":
            _need_pyarrow()
            import pyarrow.parquet as pq

            if table is None:
                table = _table(rows, layout)
            path = out / f"{stem}.parquet"
            pq.write_table(table, path)
            written.append(str(path))
        else:
            _need_pyarrow()
            try:
                import datasets
            except ImportError as exc:
                raise ImportError('Hugging Face output needs datasets: pip install "silo-gym[data]"') from exc
            if table is None:
                table = _table(rows, layout)
            path = out / stem
            is_enabled = getattr(datasets, "is_progress_bar_enabled", None)
            enabled = bool(is_enabled()) if callable(is_enabled) else False
            if enabled:
                datasets.disable_progress_bars()  # no "Saving the dataset" bar on stderr
            try:
                datasets.Dataset(table).save_to_disk(str(path))
            finally:
                if enabled:
                    datasets.enable_progress_bars()
            written.append(str(path))
    return written


def read(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read rows written by :func:`write`: a ``.jsonl`` file, a ``.parquet`` file, or a
    ``save_to_disk`` directory. Episode and pair rows read back equal to the rows written."""
    p = Path(path)
    if p.is_dir():
        import datasets

        rows = datasets.load_from_disk(str(p)).to_list()
    elif p.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(p).to_pylist()
    else:
        with open(p, "rb") as fh:
            rows = [loads_strict(line) for line in fh if line.strip()]
        layout = _layout(rows)
        if layout is not None:
            for row in rows:
                for key in _FLOATS:
                    if isinstance(row.get(key), int) and not isinstance(row.get(key), bool):
                        row[key] = float(row[key])
        return rows
    layout = _layout(rows)
    return [_from_arrow_row(r, layout) for r in rows]
