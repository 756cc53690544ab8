"""The variant checks of ``silo-gym env validate`` (docs/variants.md, "Validation").

An environment is variant-capable when its ``create_state`` has a parameter named ``variant``.
:func:`check_variants` then builds a fixed sample of variants and reports:

- ``create_state_failed`` (error): ``create_state(k)`` raised or returned no world that ``reset``
  accepts (``None``, not a dict, too deep or otherwise impossible to copy);
- ``variant_nondeterministic`` (error): the same ``k`` gave different worlds, on two calls in this
  process or in another process with different string hashing;
- ``variant_integrity`` (error): a variant whose top-level keys, their order or their JSON types
  differ from the canonical world's, that lacks an id a task names (its ``entities``), or for which
  the environment's ``world_problems(state)`` reports a problem (the canonical world included);
- ``variant_preconditions_unmet`` (error): a task whose ``task_preconditions`` held in none of the
  sampled variants, so ``gym.make(..., variants=True)`` could never hand one out;
- ``variant_hook_failed`` (error): ``render_instruction``, ``task_preconditions`` or
  ``world_problems`` raised, returned the wrong type, or changed the world it was given;
- ``variant_instruction_mismatch`` (warning): ``render_instruction(task, create_state())`` is not
  the task file's instruction, so the canonical task and its variants do not share one template;
- ``variant_hooks_unused`` (warning): variant hooks are exported but ``create_state`` takes no
  ``variant``, so no variant is ever built.

Every check runs environment code, so each one turns any exception into a finding. What a hook
must return is judged by the rules of :mod:`silo_gym.world`, the ones ``reset`` applies (the hook
contract is stated there); only the wording of the findings is this module's.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol

from ..jsonfmt import dumps_compact_bytes
from ..loader import Environment, accepts_variant
from ..world import WorldHooks, hook_strings, rendered_instruction, world_snapshot, world_type_problem

__all__ = ["SAMPLE", "VARIANT_FINDING_CODES", "accepts_variant", "check_variants"]

#: The finding codes of this module, in the order they are first reported.
VARIANT_FINDING_CODES: tuple[str, ...] = (
    "variant_hooks_unused",
    "variant_instruction_mismatch",
    "variant_nondeterministic",
    "variant_integrity",
    "variant_hook_failed",
    "variant_preconditions_unmet",
)

#: The variant numbers validation builds: the first ones, and a few far out.
SAMPLE: tuple[int, ...] = (*range(16), 1_000, 65_537, 2**31 - 1, 10**12)

#: At most this many findings of one code; the last says how many more there were.
_MAX_PER_CODE = 8
_CAUGHT = (Exception, SystemExit)


class _Reporter(Protocol):
    def error(self, code: str, message: str) -> None: ...

    def warning(self, code: str, message: str) -> None: ...


def _message(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _ids(world: Any) -> set[str]:
    """The record ids a world holds: keys of its top-level objects, and the ``id`` of each record
    in those objects and in its top-level arrays."""
    found: set[str] = set()
    if not isinstance(world, dict):
        return found
    for value in world.values():
        records = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        if isinstance(value, dict):
            found.update(k for k in value if isinstance(k, str))
        for record in records:
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                found.add(record["id"])
    return found


def _first_difference(a: Any, b: Any, path: str = "state") -> str:
    """The path of the first place two JSON values differ (keys in order, then items)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return path
        for key in a:
            if dumps_compact_bytes(a[key]) != dumps_compact_bytes(b[key]):
                return _first_difference(a[key], b[key], f"{path}.{key}")
        return path
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if dumps_compact_bytes(x) != dumps_compact_bytes(y):
                return _first_difference(x, y, f"{path}[{i}]")
    return path


class _Findings:
    """Findings of one code, capped at ``_MAX_PER_CODE`` with a closing count."""

    def __init__(self, run: _Reporter) -> None:
        self.run = run
        self.counts: dict[str, int] = {}

    def add(self, level: str, code: str, message: str) -> None:
        n = self.counts.get(code, 0) + 1
        self.counts[code] = n
        if n <= _MAX_PER_CODE:
            (self.run.error if level == "error" else self.run.warning)(code, message)

    def close(self) -> None:
        for code, n in self.counts.items():
            if n > _MAX_PER_CODE:
                self.run.error(code, f"... and {n - _MAX_PER_CODE} more {code} findings.")


def _digest(world: Any) -> str:
    return hashlib.sha256(dumps_compact_bytes(world)).hexdigest()


#: Run in a child Python: the digest of each sampled variant, or the exception it raised.
_CHILD = """
import hashlib, json, sys
from silo_gym.jsonfmt import dumps_compact_bytes
from silo_gym.loader import open_environment_at
name, path, ks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
create_state = open_environment_at(name, path, fresh=True).module.create_state
out = {}
for k in ks:
    try:
        out[str(k)] = hashlib.sha256(dumps_compact_bytes(create_state(k))).hexdigest()
    except Exception as exc:
        out[str(k)] = "raised " + type(exc).__name__
print(json.dumps(out))
"""


def _other_process_digests(env: Environment, ks: Sequence[int]) -> tuple[dict[str, str] | None, str]:
    """The variants' digests computed by another Python process whose string hashing differs
    from this one's, or ``None`` and the reason it could not run."""
    seed = os.environ.get("PYTHONHASHSEED")
    child_seed = "1" if seed != "1" else "2"
    child_env = {**os.environ, "PYTHONHASHSEED": child_seed, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, env.name, str(env.path), json.dumps(list(ks))],
            capture_output=True, text=True, timeout=300, env=child_env, cwd=str(env.path),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, _message(exc)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return None, tail[0]
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, "unreadable output"
    return (result, "") if isinstance(result, dict) else (None, "unreadable output")


def _hook_result(
    findings: _Findings, name: str, call: Callable[[], Any], world: Any, where: str, kind: type
) -> tuple[bool, Any]:
    """Call a hook on ``world``; a raise, a changed world or a result that is not ``kind`` (``list``:
    :func:`silo_gym.world.hook_strings`; ``str``: :func:`silo_gym.world.rendered_instruction`) is a
    ``variant_hook_failed`` finding. Returns ``(ok, result)``."""
    before = dumps_compact_bytes(world)
    try:
        result = call()
    except _CAUGHT as exc:
        findings.add("error", "variant_hook_failed", f"{name}({where}) raised {_message(exc)}")
        return False, None
    if dumps_compact_bytes(world) != before:
        findings.add("error", "variant_hook_failed", f"{name}({where}) changed the world it was given; hooks only read.")
        return False, None
    if kind is list:  # a list or a tuple of strings, read as reset reads it
        strings = hook_strings(result)
        if strings is None:
            findings.add("error", "variant_hook_failed",
                         f"{name}({where}) returned {type(result).__name__}, not a list of strings.")
            return False, None
        return True, strings
    instruction = rendered_instruction(result)  # an instruction, read as reset reads it
    if instruction is None and not isinstance(result, str):
        findings.add("error", "variant_hook_failed", f"{name}({where}) returned {type(result).__name__}, not a string.")
        return False, None
    if instruction is None:
        findings.add("error", "variant_hook_failed", f"{name}({where}) returned an empty instruction.")
        return False, None
    return True, instruction


def check_variants(run: _Reporter, env: Environment, sample: Sequence[int] = SAMPLE, processes: bool = True) -> None:
    """Report the variant findings of ``env`` to ``run`` (``run.error(code, message)`` and
    ``run.warning(code, message)``), building the variants in ``sample``.

    Does nothing for an environment that is not variant-capable and exports no variant hook, or
    whose canonical ``create_state()`` fails (validation already reported that). With
    ``processes`` (the default) one child Python rebuilds the sample to compare the bytes across
    processes. Never raises.
    """
    module = env.module
    create_state = getattr(module, "create_state", None)
    hooks = WorldHooks(module)
    exported = hooks.exported()
    capable = hooks.variant_capable
    if not capable:
        if exported:
            run.warning(
                "variant_hooks_unused",
                f"{', '.join(exported)} {'is' if len(exported) == 1 else 'are'} exported, but create_state() "
                "takes no variant parameter, so no variant is ever built; declare create_state(variant=None).",
            )
        if hooks.world_problems is None:
            return
    findings = _Findings(run)
    try:
        base = create_state()  # type: ignore[misc]
    except _CAUGHT:
        return  # reported as create_state_failed by the state checks
    if world_type_problem(base) is not None:
        return  # reported by the state checks; variants are compared with it
    render, preconditions, problems_of = hooks.render_instruction, hooks.task_preconditions, hooks.world_problems

    # the canonical world
    if callable(problems_of):
        ok, problems = _hook_result(findings, "world_problems", partial(problems_of, base), base, "canonical world", list)
        for problem in problems if ok else ():
            findings.add("error", "variant_integrity", f"Canonical world: {problem}")
    if capable and callable(render):
        for task in env.tasks:
            ok, text = _hook_result(
                findings, "render_instruction", partial(render, task, base), base, f"{task.id}, canonical world", str
            )
            if ok and text != task.instruction:
                at = next((i for i, (x, y) in enumerate(zip(text, task.instruction, strict=False)) if x != y),
                          min(len(text), len(task.instruction)))
                run.warning(
                    "variant_instruction_mismatch",
                    f'render_instruction({task.id}) on the canonical world differs from the task file\'s instruction '
                    f"from character {at}: {text[at:at + 40]!r} instead of {task.instruction[at:at + 40]!r}.",
                )
    if not capable:
        findings.close()
        return

    base_keys = list(base) if isinstance(base, dict) else []
    base_types = {k: _json_type(v) for k, v in base.items()} if isinstance(base, dict) else {}
    base_ids = _ids(base)
    entities = [(task.id, e) for task in env.tasks for e in task.entities if e in base_ids]
    met: dict[str, int] = {task.id: 0 for task in env.tasks}
    reasons: dict[str, list[str]] = {task.id: [] for task in env.tasks}
    digests: dict[str, str] = {}
    nondeterministic = False
    for k in sample:
        worlds = []
        for _ in range(2):
            try:
                world = create_state(variant=k)  # type: ignore[misc]
            except _CAUGHT as exc:
                findings.add("error", "create_state_failed", f"create_state({k}) raised {_message(exc)}")
                break
            if world is None:
                findings.add("error", "create_state_failed", f"create_state({k}) returned None; it must return a world.")
                break
            problem = world_type_problem(world)
            if problem is not None:
                findings.add("error", "create_state_failed", f"create_state({k}) {problem}.")
                break
            worlds.append(world)
        if len(worlds) < 2:
            continue
        world = worlds[0]
        _, problem = world_snapshot(world)  # what reset refuses
        if problem is not None:
            findings.add("error", "create_state_failed", f"create_state({k}) {problem}.")
            continue
        try:
            digests[str(k)] = _digest(world)
            second = _digest(worlds[1])
        except _CAUGHT as exc:
            findings.add("error", "variant_integrity", f"Variant {k} is not JSON-compatible: {_message(exc)}")
            continue
        if second != digests[str(k)] and not nondeterministic:
            nondeterministic = True
            findings.add(
                "error", "variant_nondeterministic",
                f"create_state({k}) built two different worlds on two calls (first difference at "
                f"{_first_difference(world, worlds[1])}); derive every choice from the variant number "
                "(random.Random(variant)), never from the clock or a global random state.",
            )

        # shape and the ids the tasks name
        if not isinstance(world, dict) or list(world) != base_keys:
            got = list(world) if isinstance(world, dict) else _json_type(world)
            findings.add("error", "variant_integrity",
                         f"Variant {k}: top-level keys {got} differ from the canonical world's {base_keys}.")
            continue
        for key, kind in base_types.items():
            if _json_type(world[key]) != kind:
                findings.add("error", "variant_integrity",
                             f'Variant {k}: "{key}" is {_json_type(world[key])}, in the canonical world {kind}.')
        ids = _ids(world)
        for task_id, entity in entities:
            if entity not in ids:
                findings.add("error", "variant_integrity", f'Variant {k}: "{entity}", named by {task_id}, is missing.')
        if callable(problems_of):
            ok, problems = _hook_result(findings, "world_problems", partial(problems_of, world), world,
                                        f"variant {k}", list)
            for problem in problems if ok else ():
                findings.add("error", "variant_integrity", f"Variant {k}: {problem}")

        # each task's hooks
        for task in env.tasks:
            if callable(render):
                _hook_result(findings, "render_instruction", partial(render, task, world), world,
                             f"{task.id}, variant {k}", str)
            if callable(preconditions):
                ok, unmet = _hook_result(findings, "task_preconditions", partial(preconditions, task, world),
                                         world, f"{task.id}, variant {k}", list)
                if ok and not unmet:
                    met[task.id] += 1
                elif ok:
                    reasons[task.id] += [r for r in unmet if r not in reasons[task.id]]
            else:
                met[task.id] += 1

    # Across processes (string hashing differs there), unless no variant differs from the
    # canonical world: then nothing depends on the variant number.
    try:
        base_digest = _digest(base)
    except _CAUGHT:
        base_digest = ""
    varies = any(d != base_digest for d in digests.values())
    if processes and varies and not nondeterministic:
        other, why = _other_process_digests(env, [int(k) for k in digests])
        if other is None:
            run.warning("variant_nondeterministic",
                        f"Could not rebuild the variants in another process to compare them ({why}).")
        else:
            for key, digest in digests.items():
                if other.get(key) != digest:
                    detail = f" (there it {other[key]})" if str(other.get(key, "")).startswith("raised") else ""
                    findings.add(
                        "error", "variant_nondeterministic",
                        f"create_state({key}) built a different world in another process{detail}; iterate lists "
                        "and dicts, not sets, and never use hash() of a string: it changes between processes.",
                    )
                    break

    built = len(digests)
    for task in env.tasks:
        if built and met[task.id] == 0 and callable(preconditions):
            first = "; ".join(reasons[task.id][:3]) or "no reason given"
            findings.add("error", "variant_preconditions_unmet",
                         f'Task "{task.id}" met its preconditions in none of the {built} sampled variants: {first}')
    findings.close()
