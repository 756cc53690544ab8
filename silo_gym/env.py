"""``SiloEnv``: one Silo task (or a whole environment) as a ``gymnasium.Env``.

Implements gym-api.md, "One episode" and "Episode control and events", over the shared episode
rules of :mod:`silo_gym.episode` (silo-format §5).
"""

from __future__ import annotations

import copy
import numbers
import os
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, SupportsFloat

import gymnasium as gym
import orjson
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding

from .components import component_fields
from .episode import Episode, EpisodeEnd, Listener, not_recordable_reason, parse_action
from .errors import SiloError, VerifierError
from .formats import VARIANT_LIMIT
from .info import ResetInfo
from .jsonfmt import dumps_compact, dumps_compact_float_free, format_number, text_form
from .loader import Environment, open_environment, open_environment_at
from .plain_json import answer_not_recordable
from .runs.provenance import environment_hash_of
from .shaping import ProgressPotential
from .snapshot import Snapshot, round_trips_exactly
from .spaces import JsonText, ToolCall
from .time_limit import check_called_without_time_limit
from .tools import tool_list
from .verifiers import find_verifier
from .world import (
    MAX_VARIANT_TRIES,
    VARIANT_SPACE,
    WorldHooks,
    WorldPreparer,
    hook_strings,
    world_snapshot,
    world_type_problem,
)

if TYPE_CHECKING:
    import numpy as np

    from .models import Task

# hook_strings, world_snapshot, world_type_problem, MAX_VARIANT_TRIES and VARIANT_SPACE live in
# silo_gym.world (world preparation); they are named here too for code that imported them here.
__all__ = ["MAX_VARIANT_TRIES", "VARIANT_SPACE", "SiloEnv", "hook_strings", "world_snapshot", "world_type_problem"]

_NOT_STARTED = "Call reset() before step()."
_ENDED = "The episode has ended; call reset() before step()."


#: The smallest ``max_observation_length``: the replacement and end observations must fit.
MIN_OBSERVATION_LENGTH = 256

TERMINATION_REASONS = ("completed", "max_tool_calls", "timeout", "agent_error")

#: The values of ``reward_mode`` (gym-api.md; ``"shaped"``: docs/training.md, "Progress shaping").
REWARD_MODES = ("fraction", "binary", "shaped")

def _variant_text(value: Any) -> str:
    """A refused variant for a message: its ``repr``, or how many digits an int has when that is
    long (``repr`` raises beyond 4300 digits)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        magnitude = abs(int(value))
        digits = max(1, int(magnitude.bit_length() * 0.30102999566398120))  # never above the count
        while 10**digits <= magnitude:
            digits += 1
        if digits > 40:
            return f"an int of {digits} digits"
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "…"


def shorten_text(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its start followed by a marker
    saying how long it was, ``limit`` characters in all (gym-api.md, Spaces: every observation is
    inside ``observation_space``; the trace and ``result.json`` keep the full text)."""
    if len(text) <= limit:
        return text
    marker = f"… [shortened to fit the observation space; {len(text)} characters in full]"
    return text[: max(0, limit - len(marker))] + marker[: limit]


def end_observation(reason: str, error: str | None, limit: int) -> str:
    """``{"terminationReason": ..., "error": ...}`` in compact JSON, with ``error`` shortened (see
    :func:`shorten_text`) to the longest that keeps the text within ``limit`` characters."""
    text = dumps_compact({"terminationReason": reason, "error": error})
    if len(text) <= limit or error is None:
        return text
    low, high = 0, min(len(error), limit)  # escapes make the JSON longer than the text: search
    best = dumps_compact({"terminationReason": reason, "error": shorten_text(error, 0)})
    while low <= high:
        keep = (low + high) // 2
        candidate = dumps_compact({"terminationReason": reason, "error": shorten_text(error, keep)})
        if len(candidate) <= limit:
            best, low = candidate, keep + 1
        else:
            high = keep - 1
    return best


class _ModuleShared:
    """What every env over one loaded environment module shares: the tool list (as a list and as
    orjson bytes for fresh copies), the action-space template and the module's world hooks
    (:class:`silo_gym.world.WorldHooks`: the variant hooks, whether the canonical world
    round-trips exactly through orjson)."""

    __slots__ = ("tools", "tools_json", "space", "hooks", "__weakref__")

    def __init__(self, env: Environment) -> None:
        module = env.module
        self.tools = tool_list(module.bind_tools(env.create_state()))
        self.tools_json = orjson.dumps(self.tools) if round_trips_exactly(self.tools) else None
        self.space = ToolCall(self.tools)
        self.hooks = WorldHooks(module)


_shared_by_module: weakref.WeakKeyDictionary[Any, _ModuleShared] = weakref.WeakKeyDictionary()
_shared_lock = threading.Lock()


def _module_shared(env: Environment) -> _ModuleShared:
    with _shared_lock:
        shared = _shared_by_module.get(env.module)
        if shared is None:
            shared = _shared_by_module[env.module] = _ModuleShared(env)
        return shared


class _Start(NamedTuple):
    """What ``reset`` prepares before it touches the running episode."""

    task: Task
    verifier: Any
    variant: int | None
    state: Any
    snapshot: Snapshot
    potential: ProgressPotential | None  # reward_mode="shaped": Φ of the initial world


class _Checked(NamedTuple):
    """A reset that ``check_reset`` prepared: the next ``reset`` with the same arguments, on the
    same running episode, uses it instead of building the world a second time."""

    seed: int | None
    options: dict[str, Any] | None
    episode: Any
    start: _Start
    rng: np.random.Generator  # the generator after the draws, as that reset would leave it

    def matches(self, seed: int | None, options: dict[str, Any] | None, episode: Any) -> bool:
        try:
            return episode is self.episode and seed == self.seed and bool(options == self.options)
        except Exception:  # options holding values that do not compare (arrays): prepare again
            return False


class SiloEnv(gym.Env[str, dict[str, Any]]):
    """A Silo task as a Gymnasium environment (gym-api.md).

    Args:
        environment: the environment name (resolved like silo-format §2.2 unless ``path`` is given).
        task_id: the task this env is bound to; ``None`` makes the per-environment env, whose task
            is chosen at ``reset`` by ``options={"task_id": ...}`` or drawn with ``np_random``.
        max_tool_calls: the tool-call budget; call N+1 truncates the episode (silo-format §5.2).
        timeout_ms: the deadline in milliseconds from ``reset``; a later call truncates.
        reward_mode: ``"fraction"`` (the verifier's reward), ``"binary"`` (1.0 if passed) or
            ``"shaped"`` (the verifier's reward plus a potential-based progress term on every
            step, :mod:`silo_gym.shaping`; it runs the verifier on every step). The artifacts are
            the same in every mode.
        max_observation_length: longest observation text, in characters (see ``JsonText``); at
            least 256. Every observation fits: a longer tool result is replaced by an
            ``observation_too_large`` error, a longer instruction or ending ``error`` is shortened
            with a marker (the trace and ``result.json`` keep the full text).
        render_mode: ``None`` or ``"ansi"`` (a readable transcript).
        path: the environment directory (registration passes it, so later ``chdir`` does not matter).
        cwd: the project root used to resolve ``environment`` when ``path`` is not given.
        variants: when True, each ``reset`` draws a variant world of the task from ``np_random``
            (docs/variants.md); the default plays the canonical task. ``options={"variant": k}``
            picks variant ``k`` (``None``: the canonical world) in either mode.

    Observations are ``str``: the instruction after ``reset``, the compact JSON of the tool result
    after a call, ``{"terminationReason": ..., "error": ...}`` on the last step. Actions are
    ``{"tool": name, "input": {...}}``, ``{"answer": value}``, or either as a JSON string.

    Raises:
        SiloError: ``environment_not_found``, ``unsafe_name``, ``task_not_found``,
            ``verifier_not_found`` and the loading errors of silo-format §2.4;
            ``variant_unsupported`` for ``variants=True`` on an environment whose
            ``create_state`` takes no ``variant``.
        ValueError: a bad ``reward_mode``, ``render_mode`` or limit.
        TypeError: ``variants`` is not a bool.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        environment: str,
        task_id: str | None = None,
        *,
        max_tool_calls: int = 100,
        timeout_ms: int = 120000,
        reward_mode: Literal["fraction", "binary", "shaped"] = "fraction",
        max_observation_length: int = 1_048_576,
        render_mode: str | None = None,
        path: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        variants: bool = False,
    ) -> None:
        if not isinstance(variants, bool):
            raise TypeError(f"variants must be True or False, got {variants!r}.")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f'reward_mode must be "fraction", "binary" or "shaped", got {reward_mode!r}.')
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f'render_mode must be None or "ansi", got {render_mode!r}.')
        if isinstance(max_observation_length, int) and 0 <= max_observation_length < MIN_OBSERVATION_LENGTH:
            raise ValueError(
                f"max_observation_length must be at least {MIN_OBSERVATION_LENGTH} characters (room for the "
                f"observation_too_large and end-of-episode observations), got {max_observation_length}."
            )
        for label, value in (("max_tool_calls", max_tool_calls), ("timeout_ms", timeout_ms),
                             ("max_observation_length", max_observation_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{label} must be a non-negative int, got {value!r}.")
        self.environment_name = environment.lower() if path is not None else environment
        if path is not None:
            self.silo_env: Environment = open_environment_at(self.environment_name, path, fresh=False)
        else:
            self.silo_env = open_environment(environment, cwd=cwd, fresh=False)
        self.task_id = task_id
        self.max_tool_calls = max_tool_calls
        self.timeout_ms = timeout_ms
        self.reward_mode = reward_mode
        self.max_observation_length = max_observation_length
        self.render_mode = render_mode
        self._module = self.silo_env.module
        self._verifiers = list(self._module.verifiers)
        if task_id is not None:
            self._bound_task: Task | None = self.silo_env.task(task_id)
            self._verifier_for(self._bound_task)
        else:
            self._bound_task = None
            if not self.silo_env.tasks:
                self.silo_env.task("")  # raises task_not_found: no tasks
        # The action space comes from a throwaway world and never changes (gym-api.md, Spaces);
        # it and the serialised tool list are built once per loaded module and shared.
        self._shared = _module_shared(self.silo_env)
        self.action_space = self._shared.space.share()
        self.observation_space = JsonText(max_length=max_observation_length)
        self._world = WorldPreparer(self.environment_name, self.silo_env, self._shared.hooks)
        self.variants = variants
        if variants:
            self._world.require_variant_capable()
        self._environment_hash: str | None = None
        self._checked: _Checked | None = None
        self._pending: list[tuple[Listener, str | None, str | None]] = []
        self.episode: Episode | None = None
        #: The potential of the running episode under ``reward_mode="shaped"``, else None, and per
        #: verifier id which check labels read the answer (silo_gym.shaping), learned once per env.
        self._potential: ProgressPotential | None = None
        self._answer_reads: dict[Any, dict[str, bool]] = {}
        self._transcript: list[str] = []

    # -- helpers --------------------------------------------------------------------------------

    @property
    def tasks(self) -> tuple[Task, ...]:
        """The tasks this env can run (all of the environment's for the per-environment env)."""
        return (self._bound_task,) if self._bound_task is not None else self.silo_env.tasks

    def _verifier_for(self, task: Task) -> Any:
        verifier = find_verifier(self._verifiers, task.verifier_id)
        if verifier is None:
            raise SiloError(
                "verifier_not_found",
                f'Verifier "{task.verifier_id}" for task "{task.id}" was not found.',
                {"verifierId": task.verifier_id, "taskId": task.id},
            )
        return verifier

    def _requested_task(self, options: dict[str, Any] | None) -> Task | None:
        """The task ``options["task_id"]`` asks for (checked before anything else happens)."""
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"reset(options=...) takes a dict or None, got {type(options).__name__}.")
        requested = options.get("task_id") if options else None
        if requested is not None and not isinstance(requested, str):
            raise TypeError(
                f'options["task_id"] must be a task id (str), got {type(requested).__name__}; '
                "a list of ids (one per sub-env) works only under silo_gym's vector entry point."
            )
        if self._bound_task is not None:
            if requested is not None and requested != self._bound_task.id:
                raise ValueError(
                    f'This env is bound to task "{self._bound_task.id}"; '
                    f'use "silo/{self.environment_name}" to choose a task at reset.'
                )
            return self._bound_task
        return self.silo_env.task(requested) if requested is not None else None

    def _draw_task(self, rng: np.random.Generator) -> Task:
        """The per-environment env's task when none was asked for: drawn with ``rng`` (the env's
        ``np_random``, or a copy of it when a reset is only checked)."""
        tasks = self.silo_env.tasks
        return tasks[int(rng.integers(len(tasks)))]

    def fresh_tool_list(self) -> list[dict[str, Any]]:
        """A new copy of the tool list agents receive (``name``, ``description``,
        ``inputSchema``), sharing no object with any other copy or with the tools themselves."""
        if self._shared.tools_json is not None:
            return orjson.loads(self._shared.tools_json)  # type: ignore[no-any-return]
        return copy.deepcopy(self._shared.tools)

    # -- listeners (gym-api.md, "Episode control and events") -----------------------------------

    def add_listener(self, fn: Listener, run_id: str | None = None, agent_path: str | None = None) -> None:
        """Subscribe ``fn`` to the events of the episode the next ``reset`` starts.

        ``fn(event)`` receives each trace event (``seq``, ``type``, ``at`` filled in), then one
        ``{"type": "episode_end", "result", "stateDiff", "run"}`` notification after grading; it is
        dropped after that. ``run_id`` and ``agent_path`` go into ``run_start`` and ``run.json``.
        """
        self._pending.append((fn, run_id, agent_path))

    def remove_listener(self, fn: Listener) -> None:
        """Withdraw a listener added for the next episode (a wrapper whose reset failed)."""
        self._pending = [entry for entry in self._pending if entry[0] is not fn]

    def log_model_step(
        self,
        messages: list[Any],
        reply: Any,
        usage: dict[str, Any] | None = None,
        latency_ms: float | None = None,
        api: str = "chat",
        model: str | None = None,
    ) -> None:
        """Report one model turn; emitted as a ``model_step`` trace event (silo-format §6.5).

        Without listeners (no ``RecordRun``) it does nothing.

        Raises:
            ValueError: ``api`` is not ``chat``, ``responses``, ``anthropic`` or ``text``.
        """
        ep = self.episode
        if ep is None or ep.done or not ep.listeners:
            return
        if api not in ("chat", "responses", "anthropic", "text"):
            raise ValueError(f'api must be one of chat, responses, anthropic, text; got {api!r}.')
        with ep.lock:
            ep.acted = True
            ep.emit("model_step", {
                "messages": messages,
                "reply": reply,
                "usage": usage,
                "latencyMs": latency_ms,
                "api": api,
                "model": model,
            })

    # -- Gymnasium API ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode on a fresh world (gym-api.md, "One episode").

        Returns ``(instruction, info)`` with info keys ``environment``, ``task_id``, ``title``,
        ``variant`` (``None`` for the canonical world), ``tools``, ``tool_calls`` (0) and
        ``max_tool_calls``. An unfinished episode is first ended, once the new world has been
        built: as ``abort("Episode abandoned by reset().")`` when it received an action, else
        discarded, neither graded nor recorded (docs/spec-amendments.md).

        ``options``: ``task_id`` (the per-environment env), ``variant`` (an int >= 0, or ``None``
        for the canonical world; docs/variants.md). With ``reward_mode="shaped"`` the info also
        has ``potential``, Φ of the initial world (:mod:`silo_gym.shaping`).

        Raises:
            SiloError: ``task_not_found`` for an unknown ``options["task_id"]``;
                ``verifier_not_found``; ``variant_unsupported``; ``variant_preconditions_unmet``
                when the requested variant's world (or every drawn one) fails the task's
                preconditions; ``runtime_contract_invalid`` when a hook raised or returned the
                wrong type, e.g. ``create_state`` returned no world (not a dict, or one too deep to
                copy); ``VerifierError`` from grading an abandoned episode, or (with
                ``reward_mode="shaped"``) from grading the new initial world, which comes before
                the running episode is touched. Only the abandoned episode's comes after the
                running episode was ended.
            ValueError, TypeError: malformed options, or a per-task env given another task id;
                ``ValueError`` when called through Gymnasium's ``TimeLimit``
                (``max_episode_steps``; :mod:`silo_gym.time_limit`).
        """
        check_called_without_time_limit()  # gym.make(id, max_episode_steps=N): never a cut-off episode
        # Listeners added for this reset belong to the new episode only, even if this reset fails.
        listeners, self._pending = self._pending, []
        requested = self._requested_task(options)  # bad options fail before the episode ends
        pick_variant, variant = self._requested_variant(options)
        super().reset(seed=seed)
        checked, self._checked = self._checked, None
        if checked is not None and checked.matches(seed, options, self.episode):
            start = checked.start
            self.np_random.bit_generator.state = checked.rng.bit_generator.state
        else:
            start = self._prepare(requested, pick_variant, variant, self.np_random)
        task, variant, state = start.task, start.variant, start.state
        previous = self.episode
        if previous is not None and not previous.done:
            if previous.acted:
                self._abandon("Episode abandoned by reset().")
            else:  # nothing was played (a vector env's auto-reset episode): nothing to grade
                previous.discard()
        tools = self._module.bind_tools(state)
        self.episode = Episode(
            environment=self.environment_name,
            task=task,
            verifier=start.verifier,
            state=state,
            snapshot=start.snapshot,
            tools=list(tools),
            max_tool_calls=self.max_tool_calls,
            timeout_ms=self.timeout_ms,
            listeners=listeners,
            variant=variant,
            environment_hash=self.environment_hash() if listeners else None,
        )
        if self.render_mode == "ansi":
            self._transcript = [f"Task {task.id}: {task.title}", f"Instruction: {task.instruction}"]
        observation = task.instruction
        if len(observation) > self.max_observation_length:
            observation = shorten_text(observation, self.max_observation_length)
        tools_json = self._shared.tools_json
        info = ResetInfo(
            environment=self.environment_name,
            task_id=task.id,
            title=task.title,
            variant=variant,
            # copied on first read (silo_gym.info): no object is shared, no copy is made unread
            tools=orjson.Fragment(tools_json) if tools_json is not None else self.fresh_tool_list(),
            tool_calls=0,
            max_tool_calls=self.max_tool_calls,
        )
        self._potential = start.potential
        if start.potential is not None:
            info["potential"] = start.potential.value
        return observation, info

    def _shape(self, ep: Episode, info: dict[str, Any]) -> float:
        """The shaping term of a step that ended no episode: Φ(world now) - Φ(world before); the
        potential is held (term 0.0) when the verifier fails on this world, with its message in
        ``info["shaping_error"]`` (the episode goes on; its end is graded as always)."""
        potential = self._potential
        assert potential is not None
        before = potential.value
        error = ""
        try:
            potential.value = potential.of(ep.state)
        except VerifierError as exc:
            error = str(exc)
        term = potential.value - before
        info["potential"] = potential.value
        info["shaping"] = term
        info["shaping_error"] = error
        return term

    def check_reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Raise what ``reset(seed=seed, options=options)`` would raise before it touches the running
        episode, and change nothing: the same checks of ``options``, the same task drawn (from
        ``seed``, else from a copy of ``np_random``), the same world built and checked against the
        task's preconditions, the same instruction rendered and the same snapshot taken.

        A vector env calls it on every sub-env to be reset before it resets any, so a value one
        sub-env refuses leaves every running episode intact (docs/variants.md). What it prepared
        is kept for the next ``reset`` with the same ``seed`` and ``options`` on the same running
        episode, which then builds nothing again.

        Raises:
            The errors of :meth:`reset` but ``VerifierError`` (no episode is ended here).
        """
        requested = self._requested_task(options)
        pick_variant, variant = self._requested_variant(options)
        rng = seeding.np_random(seed)[0] if seed is not None else copy.deepcopy(self.np_random)
        self._checked = None
        start = self._prepare(requested, pick_variant, variant, rng)
        self._checked = _Checked(seed, copy.deepcopy(options), self.episode, start, rng)

    def _prepare(self, requested: Task | None, pick_variant: bool, variant: int | None,
                 rng: np.random.Generator) -> _Start:
        """Every part of a reset that may refuse it, done before the running episode is touched: the
        task (drawn with ``rng`` when none was asked for), its verifier, then the world through
        :meth:`silo_gym.world.WorldPreparer.prepare` (a variant world meets the task's
        preconditions, the instruction rendered, the world fresh, its snapshot taken)."""
        task = requested if requested is not None else self._draw_task(rng)
        verifier = self._verifier_for(task)
        previous = self.episode
        world = self._world.prepare(task, variant, not pick_variant and self.variants, rng,
                                    previous.state if previous is not None else None)
        task, state = world.task, world.state
        potential = None
        if self.reward_mode == "shaped":  # silo_gym.shaping: the verifier grades the initial world
            reads = self._answer_reads.setdefault(getattr(verifier, "id", None), {})
            potential = ProgressPotential(verifier, task, world.snapshot.restore(), reads)
            potential.value = potential.of(state)
        return _Start(task, verifier, world.variant, state, world.snapshot, potential)

    # -- variants (docs/variants.md; the hooks are read in silo_gym.world) -------------------------

    def environment_hash(self) -> str:
        """The environment's content hash (``config.environmentHash``), computed once per env."""
        if self._environment_hash is None:
            self._environment_hash = environment_hash_of(self.silo_env, self._shared.tools)
        return self._environment_hash

    def _requested_variant(self, options: dict[str, Any] | None) -> tuple[bool, int | None]:
        """``(whether options pick a variant, the variant)``, checked before anything else happens."""
        if not options or "variant" not in options:
            return False, None
        value = options["variant"]
        if value is None:
            return True, None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) < VARIANT_LIMIT:
            raise TypeError(
                'options["variant"] must be a variant number, an int with 0 <= k < 2**63, or None for the '
                f"canonical world (docs/variants.md); got {_variant_text(value)}."
            )
        self._world.require_variant_capable()
        return True, int(value)

    def _active(self) -> Episode:
        ep = self.episode
        if ep is None:
            raise ResetNeeded(_NOT_STARTED)
        if ep.done:
            raise ResetNeeded(_ENDED)
        return ep

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Run one action (gym-api.md, "One episode").

        Returns ``(observation, reward, terminated, truncated, info)``. ``reward`` is 0.0 until the
        step that ends the episode. Info keys: ``tool_calls``, ``tool_errors``, ``call_id``,
        ``tool``, ``is_error`` (``0``, ``""`` and ``False`` when the step executed no call; ``tool``
        is ``""`` for an invalid action whose tool is not a string); on the last step also
        ``termination_reason``, ``error``, ``passed``, ``reward_components`` (check label ->
        ``{"passed", "required"}``), ``required_fraction``, ``optional_fraction``
        (:mod:`silo_gym.components`), ``result`` and ``state_diff``.

        With ``reward_mode="shaped"`` every step's reward is the shaping term ``Φ(after) -
        Φ(before)`` (the last step's: the verifier's reward minus Φ of the last world) and every
        info has ``potential``, ``shaping`` and ``shaping_error`` (:mod:`silo_gym.shaping`).

        Raises:
            gymnasium.error.ResetNeeded: before ``reset`` or after the episode ended.
            VerifierError: grading failed on the step that ended the episode.
        """
        ep = self.episode
        if ep is None or ep.done:
            ep = self._active()  # raises ResetNeeded with the right message
        parsed = parse_action(action)
        kind, _, _, answer, _, traced_tool, traced_input = parsed  # one unpack: hot path
        if kind == "answer":
            return self._finish(ep, answer, None, None)
        # Single-threaded by Gymnasium's contract; the runner's threads use call_tool and its lock.
        if ep.check_limits() is not None:
            return self._finish(ep, None, ep.limit_message, None)
        result, call_id, has_float = ep.run_call(parsed)
        text = dumps_compact(result) if has_float else dumps_compact_float_free(result)
        if len(text) > self.max_observation_length:
            text = dumps_compact({
                "output": {
                    "code": "observation_too_large",
                    "message": f"The tool result is {len(text)} characters long; "
                               f"the limit is {self.max_observation_length}.",
                },
                "isError": True,
            })
        if self.render_mode == "ansi":
            self._transcript.append(f"[{call_id}] {traced_tool} {dumps_compact(traced_input)}")
            self._transcript.append(f"  -> {text}")
        info = {
            "tool_calls": ep.tool_calls,
            "tool_errors": ep.tool_errors,
            "call_id": call_id,
            "tool": traced_tool if traced_tool is not None else "",
            "is_error": "isError" in result,
        }
        if self._potential is not None:  # reward_mode="shaped"
            return text, self._shape(ep, info), False, False, info
        return text, 0.0, False, False, info

    def _finish(self, ep: Episode, output: Any, error: str | None,
                reason: str | None) -> tuple[str, float, bool, bool, dict[str, Any]]:
        end: EpisodeEnd = ep.finish(output, error=error, reason=reason)
        return self._final_tuple(ep, end)

    def _final_tuple(self, ep: Episode, end: EpisodeEnd) -> tuple[str, float, bool, bool, dict[str, Any]]:
        outcome = end.outcome
        assert outcome is not None and end.result is not None
        if self.reward_mode == "binary":
            reward = 1.0 if outcome.passed else 0.0
        else:
            reward = float(outcome.reward)
        potential = self._potential
        shaping = 0.0
        if potential is not None:  # reward_mode="shaped": the ended episode's potential is 0
            shaping, potential.value = 0.0 - potential.value, 0.0
            reward += shaping
        terminated = end.reason == "completed"
        obs = end_observation(end.reason, end.error, self.max_observation_length)
        if self.render_mode == "ansi":
            if end.raw_output is not None:
                self._transcript.append(f"Answer: {text_form(end.raw_output)}")
            self._transcript.append(
                f"End: {end.reason}" + (f" ({end.error})" if end.error else "")
                + f"; passed={str(outcome.passed).lower()} reward={format_number(reward)}"
            )
        info = {
            "tool_calls": ep.tool_calls,
            "tool_errors": ep.tool_errors,
            "call_id": 0,  # no call executed: one type per key on every step (gym-api.md, amended)
            "tool": "",
            "is_error": False,
            "termination_reason": end.reason,
            "error": end.error,
            "passed": outcome.passed,
            **component_fields(outcome.checks),
            "result": end.result,
            "state_diff": end.state_diff,
        }
        if potential is not None:
            info["potential"] = 0.0
            info["shaping"] = shaping
            info["shaping_error"] = ""
        return obs, reward, terminated, not terminated, info

    # -- episode control (gym-api.md, "Episode control and events") ------------------------------

    def call_tool(self, name: str, input: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool the runner's way (silo-format §5.2): returns the tool result dict.

        Raises:
            RunLimitError: when a limit already fired or fires now; the episode stays open.
            gymnasium.error.ResetNeeded: before ``reset``.
        """
        if self.episode is None:
            raise ResetNeeded(_NOT_STARTED)
        return self.episode.call_tool(name, input)

    def expire(self) -> None:
        """Record the ``timeout`` limit (the runner's deadline timer calls this)."""
        if self.episode is not None:
            self.episode.expire()

    def finish(
        self, output: Any, *, error: str | None = None, reason: str | None = None,
        traceback: str | None = None,
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """End the episode (silo-format §5.5) and return the final 5-tuple.

        The reason is the first limit that fired; else ``reason``; else ``completed`` when
        ``error`` is None, else ``agent_error``. ``terminated`` is ``reason == "completed"``.
        ``traceback`` (the agent's formatted traceback) is recorded in the trace's ``run_end``.

        Raises:
            gymnasium.error.ResetNeeded: before ``reset`` or after the episode ended.
            ValueError: ``reason`` is not one of Silo's four termination reasons (silo-format §5.3).
            TypeError: ``error`` is neither a ``str`` nor ``None`` (silo-format §6.2).
            ValueError: ``output`` holds ``NaN`` or an infinity, or containers nested deeper than
                100 levels: its record could not carry it (the episode stays open).
            VerifierError: grading failed.
        """
        if reason is not None and reason not in TERMINATION_REASONS:
            raise ValueError(
                f"reason must be one of {', '.join(TERMINATION_REASONS)} (or None), got {reason!r}."
            )
        if error is not None and not isinstance(error, str):
            raise TypeError(f"error must be a str or None, got {type(error).__name__}.")
        ep = self._active()
        problem = answer_not_recordable(output)
        if problem is not None:  # it would be graded as one value and recorded as another
            raise ValueError(not_recordable_reason(problem, "output"))
        end: EpisodeEnd = ep.finish(output, error=error, reason=reason, traceback=traceback)
        return self._final_tuple(ep, end)

    def end_ungraded(self, error: str, *, reason: str = "timeout") -> None:
        """End the episode without grading it, for a runner whose agent is stuck inside a tool
        call that may still change the world (silo-format §5.3, amended): no reward, no
        ``result.json``, no ``state-diff.json``; ``run_end`` is traced and ``run.json`` written.

        Raises:
            gymnasium.error.ResetNeeded: before ``reset`` or after the episode ended.
            ValueError: ``reason`` is not one of Silo's four termination reasons.
            TypeError: ``error`` is not a ``str``.
        """
        if reason not in TERMINATION_REASONS:
            raise ValueError(f"reason must be one of {', '.join(TERMINATION_REASONS)}, got {reason!r}.")
        if not isinstance(error, str):
            raise TypeError(f"error must be a str, got {type(error).__name__}.")
        self._active().end_ungraded(error, reason=reason)

    def end_unless_stuck(self, error: str, *, stuck_error: Callable[[Any], str], reason: str = "timeout",
                         wait_s: float = 0.05) -> bool:
        """End the episode at a deadline: ``finish(None, error=error, reason=reason)``, graded,
        unless a tool call still holds the episode after ``wait_s`` seconds; then it ends
        ungraded (:meth:`end_ungraded`) with ``stuck_error(<the running call's tool name, or
        None>)``. Returns True when the episode was graded.

        Raises:
            VerifierError: grading failed.
        """
        ep = self._active()
        if ep.lock.acquire(timeout=wait_s):
            try:
                self.finish(None, error=error, reason=reason)
            finally:
                ep.lock.release()
            return True
        running = ep.running
        self.end_ungraded(stuck_error(running.traced_tool if running is not None else None), reason=reason)
        return False

    def abort(self, error: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """End the episode as ``agent_error`` with ``error`` (truncated); the verifier still runs.

        Raises:
            TypeError: ``error`` is not a ``str``.
        """
        if not isinstance(error, str):
            raise TypeError(f"abort(error) needs the error message as a str, got {type(error).__name__}.")
        return self.finish(None, error=error, reason="agent_error")

    def _abandon(self, message: str) -> None:
        ep = self.episode
        if ep is not None and not ep.done:
            ep.finish(None, error=message, reason="agent_error")

    def render(self) -> str | None:  # type: ignore[override]
        """With ``render_mode="ansi"``, the transcript of the episode so far."""
        if self.render_mode != "ansi":
            return None
        return "\n".join(self._transcript) + "\n"

    def close(self) -> None:
        """End an unfinished episode: one that received an action (a call, a model turn) is ended
        as ``abort("Episode abandoned by close().")``, graded and recorded; one that received
        nothing (typically the episode a vector env auto-reset into) is discarded, neither graded
        nor recorded, so run directories count the episodes played (gym-api.md, amended)."""
        ep = self.episode
        if ep is not None and not ep.done:
            if ep.acted:
                self._abandon("Episode abandoned by close().")
            else:
                ep.discard()
        super().close()
