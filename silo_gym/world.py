"""World preparation: the one path from an environment's hooks to the world an episode starts on.

``SiloEnv.reset`` and ``SiloEnv.check_reset`` prepare every world through :class:`WorldPreparer`;
``silo-gym serve`` resets a ``SiloEnv``, so it takes the same path; ``silo-gym env validate``
(:mod:`silo_gym.authoring.validate`, :mod:`silo_gym.authoring.validate_variants`) judges what the hooks return by
the same rules, the functions below. This is the variant hook contract (docs/variants.md §1),
stated once:

- ``create_state(variant=None) -> world``. The environment is *variant-capable* when
  ``create_state`` has a parameter named ``variant`` (:func:`silo_gym.loader.accepts_variant`).
  A world is a dict of its top-level keys (:func:`world_type_problem`) that can be copied for the
  episode's snapshot (:func:`world_snapshot`), built fresh on every call, sharing no top-level
  collection with the previous episode's world (:func:`check_fresh`).
- ``render_instruction(task, state) -> str`` (optional): the instruction of a variant world, a
  non-empty ``str`` (:func:`rendered_instruction`). Never called for the canonical world.
- ``task_preconditions(task, state) -> list[str]`` (optional): what keeps ``state`` from serving
  ``task``; ``[]`` serves it. A list or tuple of ``str`` (:func:`hook_strings`).
- ``world_problems(state) -> list[str]`` (optional; ``env validate`` only): the world's integrity
  problems, read by the same rule as ``task_preconditions``.
- ``create_state.canonical_parts() -> {key: bytes}`` (optional, an attribute of
  ``create_state``; :class:`silo_gym.kit.StateMaker` has it): the canonical world as one compact
  orjson text per top-level key, a promise that ``create_state()`` is exactly those texts parsed,
  every time. The first canonical reset checks the texts against the snapshot it takes; later
  ones keep them as their snapshot and serialise nothing (:meth:`WorldHooks.canonical_snapshot_of`).
- A hook is the module attribute of that name when it is callable (:class:`WorldHooks`). Hooks
  read the world and never change it: ``env validate`` checks that, ``reset`` trusts it.
- A hook that raises or returns the wrong type makes ``reset`` raise
  ``SiloError("runtime_contract_invalid")`` and ``env validate`` report ``variant_hook_failed``
  (``create_state_failed`` for ``create_state``).

A drawn variant comes from ``[0, VARIANT_SPACE)``; a requested one may be any int with
``0 <= k < 2**63`` (:data:`silo_gym.formats.VARIANT_LIMIT`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .errors import SiloError
from .gcpause import gc_paused
from .loader import Environment, accepts_variant
from .snapshot import Snapshot, round_trips_exactly

if TYPE_CHECKING:
    import numpy as np

    from .models import Task

__all__ = [
    "MAX_VARIANT_TRIES",
    "VARIANT_HOOKS",
    "VARIANT_SPACE",
    "PreparedWorld",
    "WorldHooks",
    "WorldPreparer",
    "check_fresh",
    "hook_strings",
    "rendered_instruction",
    "world_snapshot",
    "world_type_problem",
]

_T = TypeVar("_T")

#: Variants drawn at reset come from ``[0, VARIANT_SPACE)`` (docs/variants.md).
VARIANT_SPACE = 2**31
#: How many consecutive variant numbers a drawing reset tries before it gives up.
MAX_VARIANT_TRIES = 100
#: The optional hooks of an entrypoint besides ``create_state``, ``bind_tools`` and ``verifiers``.
VARIANT_HOOKS: tuple[str, ...] = ("render_instruction", "task_preconditions", "world_problems")


# -- the rules for what hooks return --------------------------------------------------------------

def hook_strings(value: Any) -> list[str] | None:
    """What a variant hook that lists problems returned (``task_preconditions``,
    ``world_problems``: docs/variants.md), as a list, when it is a list or a tuple of ``str``;
    else None. ``reset`` and ``env validate`` read these hooks through this one rule."""
    if isinstance(value, (list, tuple)) and all(isinstance(p, str) for p in value):
        return list(value)
    return None


def rendered_instruction(value: Any) -> str | None:
    """What ``render_instruction`` returned, when it is an instruction (a ``str`` that is not
    blank); else None. ``reset`` and ``env validate`` judge the hook by this one rule."""
    if isinstance(value, str) and value.strip():
        return value
    return None


def world_type_problem(state: Any) -> str | None:
    """Why ``state``, as ``create_state`` returned it, is not a world, or None when it is one.

    A world is a JSON object, a ``dict`` of top-level keys (silo-format §1.2.2 and §13: the
    state's keys, its ``now``; docs/variants.md §1.1). The reason reads on from "create_state() ",
    e.g. ``"returned a list, not a world: ..."``; ``reset`` refuses such a world and
    ``env validate`` reports it (``create_state_failed``).
    """
    if isinstance(state, dict):
        return None
    kind = "None" if state is None else f"a {type(state).__name__}"
    return (f"returned {kind}, not a world: it must return the world as a JSON object "
            "(a dict of its top-level keys, silo-format §1.2)")


def _depth(value: Any) -> int:
    """How many dicts, lists and tuples deep ``value`` nests (iteratively: it may be very deep)."""
    deepest = 0
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, (dict, list, tuple)) or id(node) in seen:
            continue
        seen.add(id(node))
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def world_snapshot(state: Any, exact: bool | None = None) -> tuple[Snapshot | None, str | None]:
    """``(the snapshot reset keeps of a world, None)``, or ``(None, why it cannot be kept)``.

    Every episode keeps an exact copy of its initial world (silo-format §5.1 step 6); a world
    that is not a dict, nests too deeply for a copy (Python's recursion limit) or holds a value
    that cannot be copied is refused, with a reason that reads on from "create_state() ", as in
    :func:`world_type_problem`. ``exact``: whether the world round-trips exactly through orjson
    (decided here when None).
    """
    problem = world_type_problem(state)
    if problem is not None:
        return None, problem
    try:
        return Snapshot.take(state, round_trips_exactly(state) if exact is None else exact), None
    except RecursionError:
        return None, (f"returned a world nested {_depth(state)} levels deep, too deep to copy (Python's "
                      f"recursion limit is {sys.getrecursionlimit()}); keep its records a few hundred levels "
                      "deep at most")
    except Exception as exc:  # a value pickle cannot copy: not JSON-compatible (silo-format §1.2.2)
        return None, (f"returned a world that cannot be copied ({type(exc).__name__}: {exc}); a world "
                      "holds JSON-compatible values only (silo-format §1.2)")


def check_fresh(environment: str, previous: Any, state: Any) -> None:
    """Refuse a ``create_state()`` that hands back the previous episode's world, or one of its
    top-level collections (silo-format §1.2.1). Deeper sharing is left to ``env validate``.

    Raises:
        SiloError: ``runtime_contract_invalid`` naming ``environment``.
    """
    shared = previous is state
    if not shared and isinstance(state, dict) and isinstance(previous, dict):
        shared = any(
            isinstance(v, (dict, list)) and previous.get(k) is v for k, v in state.items()
        )
    if shared:
        raise SiloError(
            "runtime_contract_invalid",
            f'create_state() of environment "{environment}" returned objects of the previous '
            "episode's world; it must build a fresh world on every call (run "
            f'"silo-gym env validate --env {environment}").',
            {"environment": environment, "missing": "create_state"},
        )


def _sentences(problems: list[str]) -> str:
    """Problems joined by ``"; "``, without their own final periods (the message adds one)."""
    return "; ".join(p.rstrip().rstrip(".") for p in problems)


# -- the hooks of one module ----------------------------------------------------------------------

class WorldHooks:
    """The hooks one loaded entrypoint module exports, read once (the contract above).

    Attributes:
        variant_capable: ``create_state`` has a parameter named ``variant``.
        render_instruction, task_preconditions, world_problems: the callable hook, or None.
        canonical_exact: whether the canonical world round-trips exactly through orjson; None
            until the first reset decides it (the canonical world is the same every time).
        canonical_parts: ``create_state.canonical_parts`` when callable, until the first
            canonical reset has judged it (then None).
        canonical_snapshot: the snapshot every canonical world shares, once the first one showed
            that ``canonical_parts()`` is its exact snapshot; else None.
    """

    __slots__ = ("variant_capable", "render_instruction", "task_preconditions", "world_problems",
                 "canonical_exact", "canonical_parts", "canonical_snapshot")

    def __init__(self, module: Any) -> None:
        self.variant_capable = accepts_variant(getattr(module, "create_state", None))
        self.render_instruction: Callable[..., Any] | None = _callable(module, "render_instruction")
        self.task_preconditions: Callable[..., Any] | None = _callable(module, "task_preconditions")
        self.world_problems: Callable[..., Any] | None = _callable(module, "world_problems")
        self.canonical_exact: bool | None = None
        parts = getattr(getattr(module, "create_state", None), "canonical_parts", None)
        self.canonical_parts: Callable[[], Any] | None = parts if callable(parts) else None
        self.canonical_snapshot: Snapshot | None = None

    def canonical_snapshot_of(self, snapshot: Snapshot) -> None:
        """Judge ``canonical_parts`` once, against ``snapshot`` of a canonical world just taken:
        when its texts are that snapshot's, keep ``snapshot`` for every later canonical world.
        A hook that raises or gives other texts is dropped (the snapshot is then taken anew on
        every reset, as without the hook)."""
        hook, self.canonical_parts = self.canonical_parts, None
        if hook is None or snapshot.parts is None:
            return
        try:
            parts = hook()
        except Exception:  # an optimisation only: without it every reset still works
            return
        if isinstance(parts, dict) and parts == snapshot.parts:
            self.canonical_snapshot = snapshot

    def exported(self) -> list[str]:
        """The names of the hooks the module exports, in :data:`VARIANT_HOOKS` order."""
        return [name for name in VARIANT_HOOKS if getattr(self, name) is not None]


def _callable(module: Any, name: str) -> Callable[..., Any] | None:
    hook = getattr(module, name, None)
    return hook if callable(hook) else None


class PreparedWorld(NamedTuple):
    """A world ready for an episode: the task (its instruction rendered for a variant world),
    the variant (None: canonical), the world and its snapshot."""

    task: Task
    variant: int | None
    state: Any
    snapshot: Snapshot


class WorldPreparer:
    """Builds and checks the worlds of one environment as one env names it (its messages do).

    Args:
        environment: the environment's name in messages.
        silo_env: the loaded environment (its ``create_state``).
        hooks: the module's :class:`WorldHooks` (shared by every env over the module).
    """

    __slots__ = ("environment", "silo_env", "hooks")

    def __init__(self, environment: str, silo_env: Environment, hooks: WorldHooks) -> None:
        self.environment = environment
        self.silo_env = silo_env
        self.hooks = hooks

    def require_variant_capable(self) -> None:
        """Raises: SiloError ``variant_unsupported`` when ``create_state`` takes no ``variant``."""
        if not self.hooks.variant_capable:
            raise SiloError(
                "variant_unsupported",
                f'Environment "{self.environment}" has no variants: its create_state() takes no '
                '"variant" argument (see docs/variants.md).',
                {"environment": self.environment},
            )

    def prepare(self, task: Task, variant: int | None, draw: bool, rng: np.random.Generator,
                previous: Any = None) -> PreparedWorld:
        """The world an episode of ``task`` starts on, with everything that may refuse it done.

        Args:
            task: the task as its file states it.
            variant: the variant asked for (None: the canonical world); ignored when ``draw``.
            draw: draw the variant with ``rng`` (the first of :data:`MAX_VARIANT_TRIES`
                consecutive numbers whose world meets the task's preconditions).
            rng: the generator a drawn variant comes from.
            previous: the running episode's world, which the new one must not share
                (:func:`check_fresh`), or None.

        Raises:
            SiloError: ``variant_preconditions_unmet``; ``runtime_contract_invalid`` when a hook
                raised or returned the wrong type, or the world cannot be an episode's; whatever
                :meth:`silo_gym.loader.Environment.create_state` raises as a ``SiloError``.
        """
        with gc_paused:  # a world allocates much and frees nothing (silo_gym.gcpause)
            return self._prepare(task, variant, draw, rng, previous)

    def _prepare(self, task: Task, variant: int | None, draw: bool, rng: np.random.Generator,
                 previous: Any) -> PreparedWorld:
        if draw:
            variant, state = self.draw_variant_world(task, rng)
        else:
            state = self.world(task, variant)
        if variant is not None:
            task = self.rendered_task(task, state, variant)
        if previous is not None:
            check_fresh(self.environment, previous, state)
        # Whether the world round-trips exactly through orjson: decided once for the canonical
        # world (the same every time), for each variant world on its own (their values vary).
        hooks = self.hooks
        if variant is not None:
            exact = round_trips_exactly(state)
        elif hooks.canonical_snapshot is not None:  # the world is its canonical_parts, parsed
            return PreparedWorld(task, None, state, hooks.canonical_snapshot)
        else:
            if hooks.canonical_exact is None:
                hooks.canonical_exact = round_trips_exactly(state)
            exact = hooks.canonical_exact
        snapshot, problem = world_snapshot(state, exact)
        if snapshot is None:
            raise self.world_refused(problem, variant)
        if variant is None and hooks.canonical_parts is not None:
            hooks.canonical_snapshot_of(snapshot)
        return PreparedWorld(task, variant, state, snapshot)

    def world(self, task: Task, variant: int | None) -> Any:
        """``create_state()`` for the canonical world, else variant ``variant`` of the world, which
        must meet the task's preconditions."""
        if variant is None:
            state = self.silo_env.create_state()
            problem = world_type_problem(state)
            if problem is not None:
                raise self.world_refused(problem, None)
            return state
        state = self.variant_world(variant)
        problems = self.unmet_preconditions(task, state, variant)
        if problems:
            raise SiloError(
                "variant_preconditions_unmet",
                f'Variant {variant} of environment "{self.environment}" does not meet the '
                f'preconditions of task "{task.id}": {_sentences(problems)}.',
                {"environment": self.environment, "taskId": task.id, "variant": variant,
                 "problems": problems},
            )
        return state

    def draw_variant_world(self, task: Task, rng: np.random.Generator) -> tuple[int, Any]:
        """The first variant from a number drawn with ``rng`` whose world meets the task's
        preconditions, trying at most :data:`MAX_VARIANT_TRIES` consecutive numbers."""
        first = int(rng.integers(VARIANT_SPACE))
        problems: list[str] = []
        for offset in range(MAX_VARIANT_TRIES):
            variant = (first + offset) % VARIANT_SPACE
            state = self.variant_world(variant)
            problems = self.unmet_preconditions(task, state, variant)
            if not problems:
                return variant, state
        raise SiloError(
            "variant_preconditions_unmet",
            f'None of {MAX_VARIANT_TRIES} variants from {first} of environment "{self.environment}" '
            f'meets the preconditions of task "{task.id}"; the last one: {_sentences(problems)}.',
            {"environment": self.environment, "taskId": task.id, "variant": first, "problems": problems},
        )

    def variant_world(self, variant: int) -> Any:
        """``create_state(variant)``, refused unless it is a world."""
        try:
            state = self.silo_env.create_state(variant)
        except SiloError:
            raise
        except Exception as exc:
            raise self.hook_failed("create_state()", exc, f"variant {variant}") from exc
        problem = world_type_problem(state)  # before the hooks read it
        if problem is not None:
            raise self.world_refused(problem, variant)
        return state

    def unmet_preconditions(self, task: Task, state: Any, variant: int) -> list[str]:
        """``task_preconditions(task, state)`` read by :func:`hook_strings` (``[]`` without it)."""
        hook = self.hooks.task_preconditions
        if hook is None:
            return []
        return self._task_hook("task_preconditions", hook, task, state, variant, hook_strings,
                               "a list (or tuple) of str")

    def rendered_task(self, task: Task, state: Any, variant: int) -> Task:
        """The task with the instruction rendered for this variant's world (docs/variants.md)."""
        hook = self.hooks.render_instruction
        if hook is None:
            return task
        instruction = self._task_hook("render_instruction", hook, task, state, variant, rendered_instruction,
                                      f'a non-empty str for task "{task.id}"')
        return task.model_copy(update={"instruction": instruction})

    def _task_hook(self, name: str, hook: Callable[..., Any], task: Task, state: Any, variant: int,
                   read: Callable[[Any], _T | None], wants: str) -> _T:
        """``read(hook(task, state))``; ``runtime_contract_invalid`` when the hook raises or
        ``read`` gives None (the message says the hook must return ``wants``)."""
        try:
            value = hook(task, state)
        except Exception as exc:
            raise self.hook_failed(f"{name}()", exc, f'variant {variant}, task "{task.id}"') from exc
        out = read(value)
        if out is None:
            raise SiloError(
                "runtime_contract_invalid",
                f'{name}() of environment "{self.environment}" must return {wants}, got {type(value).__name__}.',
                {"environment": self.environment, "missing": name},
            )
        return out

    def hook_failed(self, hook: str, exc: Exception, detail: str) -> SiloError:
        """The ``runtime_contract_invalid`` error for a hook that raised ``exc``."""
        error = SiloError(
            "runtime_contract_invalid",
            f'{hook} of environment "{self.environment}" raised {type(exc).__name__}: {exc} ({detail}).',
            {"environment": self.environment, "missing": hook.removesuffix("()")},
        )
        error.__cause__ = exc
        return error

    def world_refused(self, problem: str | None, variant: int | None) -> SiloError:
        """The ``runtime_contract_invalid`` error for a ``create_state`` result that is no world."""
        hook = "create_state()" if variant is None else f"create_state({variant})"
        return SiloError(
            "runtime_contract_invalid",
            f'{hook} of environment "{self.environment}" {problem}.',
            {"environment": self.environment, "missing": "create_state"},
        )
