"""Which world each trial of an evaluation plays, fixed before any episode starts.

Trial ``i`` of task ``t`` plays ``worlds[t][i]``: a variant number, or ``None`` for the canonical
world. The table depends on the tasks, the trial count, the seed and the ``variants`` argument
only, never on the policy, so two evaluations with the same arguments play the same worlds and
can be compared trial by trial; it is recorded in ``eval.json`` (``tasks[t]["variants"]``).

``variants`` (:func:`resolve_worlds`):

``None`` / ``False``
    every trial plays the canonical world (mode ``"canonical"``).
``True``
    trial ``i`` plays the variant the seed of episode ``i`` draws, as ``collect --variants`` does
    (:func:`silo_gym.data.collect.drawn_variant`; the draw skips worlds that fail the task's
    preconditions), so each trial plays its own world (mode ``"drawn"``).
an int ``m``
    ``m`` worlds drawn that way (those of episodes ``0 .. m-1``); trial ``i`` plays world
    ``i mod m`` (mode ``"drawn"``).
a list of variant numbers
    the same list for every task (mode ``"explicit"``), trial ``i`` playing entry ``i mod m``:
    ``[5, 6, 7]`` with 6 trials plays 5, 6, 7, 5, 6, 7. Each number must suit each task (its
    preconditions hold), which is checked first; give a mapping to choose per task.
a mapping of ``"<environment>/<task_id>"`` to such a list
    per task (mode ``"explicit"``); every task evaluated must be there (other keys are ignored,
    so another evaluation's ``variants`` can be reused: :func:`read_variants_file` reads an
    ``eval.json``).

A list longer than the trial count is refused (some worlds would not be played).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium as gym

from ..data.collect import EnvPlan, drawn_variant
from ..errors import SiloError, SiloGymError
from ..formats import VARIANT_LIMIT
from ..jsonfmt import loads_strict

__all__ = ["EvalError", "Worlds", "parse_variants", "read_variants_file", "resolve_worlds"]

_NUMBERS = re.compile(r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*,?")


class EvalError(ValueError, SiloGymError):
    """An evaluation that cannot be run as asked: what is wrong, and what is accepted."""


class Worlds(NamedTuple):
    """The world table: ``mode`` (``"canonical"``, ``"drawn"`` or ``"explicit"``) and, per
    ``"<environment>/<task_id>"``, the world of each trial (``None``: canonical)."""

    mode: str
    variants: dict[str, list[int | None]]

    def distinct(self, key: str) -> list[int | None]:
        """The worlds of one task, each once, in the order of first play."""
        return list(dict.fromkeys(self.variants[key]))


def _variant_number(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < VARIANT_LIMIT:
        raise EvalError(f"{where} holds {value!r}; a variant is a whole number with 0 <= k < 2**63 "
                        "(docs/variants.md).")
    return value


def parse_variants(text: str) -> list[int]:
    """Variant numbers written as ``5,6,7`` or with ranges ``100-119,200`` (both ends included).

    Raises:
        EvalError: anything else, or an empty or reversed range.
    """
    compact = text.replace(" ", "")
    if not compact or _NUMBERS.fullmatch(compact) is None:
        raise EvalError(f'Variant numbers are written like "5,6,7" or "100-119"; got "{text}".')
    out: list[int] = []
    for part in compact.strip(",").split(","):
        low, _, high = part.partition("-")
        first, last = int(low), int(high) if high else int(low)
        if last < first:
            raise EvalError(f'The range "{part}" runs backwards; write it low-high.')
        if last - first >= 1_000_000:
            raise EvalError(f'The range "{part}" names more than a million variants.')
        out.extend(range(first, last + 1))
    return [_variant_number(v, "The list") for v in out]


def read_variants_file(path: str | os.PathLike[str]) -> list[int] | dict[str, list[int | None]]:
    """The variants a file names: a JSON array of numbers (one list for every task); a JSON
    object of ``"<environment>/<task_id>"`` to an array (numbers, or ``null`` for the canonical
    world); an ``eval.json`` (its ``tasks[...]["variants"]``, to play another evaluation's
    worlds); or plain text of numbers and ranges separated by commas, spaces or lines.

    Raises:
        EvalError: the file cannot be read or holds none of these.
    """
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"Cannot read the variants file {file}: {getattr(exc, 'strerror', None) or exc}.") from None
    stripped = text.strip()
    if not stripped.startswith(("[", "{")):
        return parse_variants(",".join(stripped.split()).replace(",,", ","))
    try:
        data = loads_strict(stripped)
    except ValueError as exc:
        raise EvalError(f"The variants file {file} is not JSON: {exc}.") from None
    if isinstance(data, list):
        return [_variant_number(v, f"The variants file {file}") for v in data]
    if isinstance(data, dict) and isinstance(data.get("tasks"), dict) and "overall" in data:
        data = {key: task.get("variants") for key, task in data["tasks"].items() if isinstance(task, dict)}
    if not isinstance(data, dict):
        raise EvalError(f"The variants file {file} holds neither an array of variant numbers nor an object "
                        'of "<environment>/<task_id>" to arrays.')
    table: dict[str, list[int | None]] = {}
    for key, worlds in data.items():
        if not isinstance(worlds, list):
            raise EvalError(f'The variants file {file}: "{key}" is not an array of variant numbers.')
        table[key] = [None if v is None else _variant_number(v, f'The variants file {file}, "{key}",')
                      for v in worlds]
    return table


def _cycled(worlds: Sequence[int | None], trials: int, key: str) -> list[int | None]:
    if not worlds:
        raise EvalError(f"No variants given for {key}.")
    if len(worlds) > trials:
        raise EvalError(f"{len(worlds)} worlds given for {key} but only {trials} trial(s): every world must be "
                        f"played; pass --trials {len(worlds)} (or a multiple), or fewer variants.")
    return [worlds[i % len(worlds)] for i in range(trials)]


def _suits(env: Any, plan: EnvPlan, task_id: str, variant: int) -> list[str]:
    """The task's unmet preconditions in variant ``variant`` (``[]``: it may be played)."""
    options: dict[str, Any] = {"variant": variant}
    if not plan.bound:
        options["task_id"] = task_id
    try:
        env.reset(options=options)
    except SiloError as exc:
        if exc.code == "variant_preconditions_unmet":
            problems = exc.details.get("problems") if isinstance(exc.details, dict) else None
            return [str(p) for p in problems] if problems else [exc.message]
        raise
    return []


def resolve_worlds(plans: Sequence[EnvPlan], trials: int, seed: int, variants: Any,
                   env_kwargs: Mapping[str, Any] | None = None) -> Worlds:
    """The world table of an evaluation (module docs).

    Raises:
        EvalError: a bad ``variants`` value, a list longer than ``trials``, a task the mapping
            leaves out, or a variant whose world fails a task's preconditions (all such pairs are
            named).
        SiloError: ``variant_unsupported`` for variants of an environment that has none.
    """
    keys = [(plan, task_id, f"{plan.environment}/{task_id}") for plan in plans for task_id in plan.task_ids]
    kwargs = dict(env_kwargs or {})
    if variants is None or variants is False:
        return Worlds("canonical", {key: [None] * trials for _, _, key in keys})
    if variants is True or (isinstance(variants, int) and not isinstance(variants, bool)):
        count = trials if variants is True else int(variants)
        if count < 1:
            raise EvalError(f"variants={variants!r}: the number of worlds to draw must be at least 1.")
        table: dict[str, list[int | None]] = {}
        envs: dict[str, Any] = {}
        try:
            for plan, task_id, key in keys:
                env = envs.get(plan.env_id)
                if env is None:
                    env = envs[plan.env_id] = gym.make(plan.env_id, disable_env_checker=True,
                                                       **{**kwargs, "variants": True})
                drawn = [drawn_variant(env, seed, plan.environment, task_id, i, plan.bound) for i in range(count)]
                table[key] = _cycled(drawn, trials, key)
        finally:
            for env in envs.values():
                env.close()
        return Worlds("drawn", table)
    if isinstance(variants, Mapping):
        missing = [key for _, _, key in keys if key not in variants]
        if missing:
            raise EvalError(f"The variants given name no worlds for {', '.join(missing[:5])}"
                            + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                            + '; name every task evaluated ("<environment>/<task_id>": [variants]).')
        given = {key: [None if v is None else _variant_number(v, f'variants["{key}"]') for v in variants[key]]
                 for _, _, key in keys}
    elif isinstance(variants, Sequence) and not isinstance(variants, (str, bytes)):
        common = [_variant_number(v, "variants") for v in variants]
        given = {key: list(common) for _, _, key in keys}
    else:
        raise EvalError(f"variants must be None, True, a number of worlds to draw, a list of variant numbers or a "
                        f'mapping of "<environment>/<task_id>" to lists; got {variants!r}.')
    table = {key: _cycled(given[key], trials, key) for _, _, key in keys}
    _check_suitable(keys, table, kwargs)
    return Worlds("explicit", table)


def _check_suitable(keys: Sequence[tuple[EnvPlan, str, str]], table: dict[str, list[int | None]],
                    env_kwargs: dict[str, Any]) -> None:
    unsuitable: list[str] = []
    envs: dict[str, Any] = {}
    try:
        for plan, task_id, key in keys:
            env = envs.get(plan.env_id)
            if env is None:
                env = envs[plan.env_id] = gym.make(plan.env_id, disable_env_checker=True, **env_kwargs)
            for variant in dict.fromkeys(table[key]):
                if variant is None:
                    continue
                problems = _suits(env, plan, task_id, variant)
                if problems:
                    unsuitable.append(f"variant {variant} for {key} ({problems[0]})")
    finally:
        for env in envs.values():
            env.close()
    if unsuitable:
        shown = "; ".join(unsuitable[:5]) + (f"; and {len(unsuitable) - 5} more" if len(unsuitable) > 5 else "")
        raise EvalError(f"Some variants fail their task's preconditions, so they cannot be played: {shown}. "
                        'Choose other variants, or give them per task ("<environment>/<task_id>": [variants]).')
