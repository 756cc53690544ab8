"""Episodes of a collection: plan the environments, play one episode with a policy and turn it
into a row of :data:`EPISODE_COLUMNS` (gym-api.md, "Reward-model and trajectory data").

This is the half of :func:`silo_gym.data.collect` that every backend shares: the local backend
(:mod:`silo_gym.data.local_backend`) and the Ray backend (:mod:`silo_gym.data.ray_backend`) run
:class:`EpisodeRunner` jobs from here, and :mod:`silo_gym.data.collect` orders what they return.
It imports neither backend nor ``collect``, so the three no longer import one another. The names
stay importable from ``silo_gym.data.collect``, where they used to live.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

from ..components import component_fields
from ..errors import RunLimitError, SiloError, SiloGymError
from ..formats import VARIANT_LIMIT
from ..jsonfmt import dumps_compact, loads_strict, text_form
from ..llm.formats import action_to_chat_tool_call, to_chat_messages
from ..llm.policy import DEFAULT_SYSTEM_PROMPT, EPISODE_METER, EpisodeMeter
from ..runs.files import RUN_FILES
from ..seeds import episode_seed, group_reset_seed
from ..wrappers.record import RecordRun, RunDirJournal

__all__ = [
    "BACKENDS",
    "EPISODE_COLUMNS",
    "RUN_FILES",
    "EnvPlan",
    "EpisodeJob",
    "EpisodeNotGraded",
    "EpisodeRunner",
    "FailedAttempt",
    "RandomPolicy",
    "aplay_with_retries",
    "check_episode_variants",
    "check_group_size",
    "curriculum_jobs",
    "describe_error",
    "drawn_variant",
    "failed_row",
    "plan_envs",
    "resolve_policy",
    "transcript_messages",
]

#: The backends of :func:`collect` / :func:`iter_collect`.
BACKENDS = ("local", "ray")


#: The columns of an episode row, in order (gym-api.md).
EPISODE_COLUMNS: tuple[str, ...] = (
    "environment", "task_id", "episode", "variant", "group", "run_id", "policy", "prompt", "messages", "actions",
    "reward", "passed", "required_passed", "required_total", "checks", "reward_components", "required_fraction",
    "optional_fraction", "state_diff", "termination_reason", "error", "tool_calls", "tool_errors", "retries",
)


def drawn_variant(env: Any, seed: int, environment: str, task_id: str, episode: int, bound: bool,
                  group_size: int = 1) -> int | None:
    """The variant world episode ``episode`` of ``task_id`` plays in a collection with
    ``variants=True``, base seed ``seed`` and groups of ``group_size``: ``env`` (made with
    ``variants=True``) is reset with the episode's reset seed (:func:`group_reset_seed`), as the
    collection resets it, and ``info["variant"]`` is read. ``bound``: ``env`` is the task's own
    id (else ``options={"task_id": task_id}``)."""
    _, info = env.reset(seed=group_reset_seed(seed, environment, task_id, episode, group_size),
                        options=None if bound else {"task_id": task_id})
    variant = info.get("variant")
    return variant if isinstance(variant, int) else None


def check_episode_variants(episode_variants: Any, episodes_per_task: int) -> dict[str, list[int | None]] | None:
    """``episode_variants`` (module docs, "Worlds") checked and copied: a mapping of
    ``"<environment>/<task_id>"`` to a list of at least ``episodes_per_task`` entries, each a
    variant number (an int with ``0 <= k < 2**63``) or ``None``.

    Raises:
        TypeError: not a mapping of strings to lists, or an entry that is not a variant number.
        ValueError: a list shorter than ``episodes_per_task``.
    """
    if episode_variants is None:
        return None
    if not isinstance(episode_variants, Mapping):
        raise TypeError(f"episode_variants must be a mapping of \"<environment>/<task_id>\" to a list of variants, "
                        f"got {type(episode_variants).__name__}.")
    checked: dict[str, list[int | None]] = {}
    for key, worlds in episode_variants.items():
        if not isinstance(key, str) or "/" not in key:
            raise TypeError(f'episode_variants keys are "<environment>/<task_id>" strings, got {key!r}.')
        if isinstance(worlds, (str, bytes)) or not isinstance(worlds, Sequence):
            raise TypeError(f"episode_variants[{key!r}] must be a list of variants, got {type(worlds).__name__}.")
        for value in worlds:
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or not 0 <= value < VARIANT_LIMIT):
                raise TypeError(f"episode_variants[{key!r}] holds {value!r}; a variant is an int with "
                                "0 <= k < 2**63, or None for the canonical world (docs/variants.md).")
        if len(worlds) < episodes_per_task:
            raise ValueError(f"episode_variants[{key!r}] names {len(worlds)} world(s) for {episodes_per_task} "
                             "episodes per task; give one per episode.")
        checked[key] = list(worlds)
    return checked


class RandomPolicy:
    """The ``"random"`` baseline: ``1..max_calls`` calls drawn with ``env.action_space.sample()``
    (inputs valid against each tool's schema), then the answer ``answer``.

    The number of calls and the space's RNG are seeded from the episode seed, so episodes are
    reproducible.
    """

    name = "random"

    def __init__(self, max_calls: int = 3, answer: str = "") -> None:
        if max_calls < 0:
            raise ValueError("max_calls must be >= 0")
        self.max_calls = max_calls
        self.answer = answer

    def actions_for(self, env: Any, seed: int) -> Callable[[Any, dict[str, Any]], Any]:
        """A Gymnasium policy playing one random episode on ``env``."""
        space = env.action_space
        space.seed(seed)
        count = int(np.random.default_rng(seed).integers(1, self.max_calls + 1)) if self.max_calls else 0
        made = [0]

        def policy(observation: Any, info: dict[str, Any]) -> Any:
            if made[0] >= count:
                return {"answer": self.answer}
            made[0] += 1
            return space.sample()

        return policy


def _positional_count(fn: Callable[..., Any]) -> int | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    count = 0
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            count += 1
        elif p.kind is p.VAR_POSITIONAL:
            return None
    return count


def resolve_policy(policy: Any, cwd: str | os.PathLike[str] | None = None) -> tuple[str, Any, str, str | None]:
    """Classify a policy: returns ``(kind, object, label, agent_path)`` where ``kind`` is
    ``"episode"`` (has ``run_episode``), ``"random"``, ``"gym"`` (2 parameters) or ``"agent"``
    (4 parameters); ``agent_path`` is the spec string when it was loaded from a file.

    Raises:
        SiloError: ``agent_invalid`` when a ``path.py[:name]`` cannot be imported.
        TypeError: a callable with another signature.
    """
    label: str | None = None
    agent_path: str | None = None
    if isinstance(policy, str) and policy == "random":
        return "random", RandomPolicy(), "random", None
    if isinstance(policy, (str, os.PathLike)):
        from ..runner import load_agent

        agent_path = os.fspath(policy)
        label = agent_path
        policy = load_agent(agent_path, cwd)
    for _ in range(2):
        if isinstance(policy, RandomPolicy):
            return "random", policy, label or "random", agent_path
        if callable(getattr(policy, "run_episode", None)):
            return "episode", policy, label or str(getattr(policy, "name", type(policy).__name__)), agent_path
        if not callable(policy):
            break
        name = label or getattr(policy, "__qualname__", None) or type(policy).__name__
        count = _positional_count(policy)
        if count == 2:
            return "gym", policy, name, agent_path
        if count == 4:
            return "agent", policy, name, agent_path
        if count == 0:
            policy = policy()  # a factory such as make_policy()
            continue
        break
    raise TypeError(
        "A policy must be a ChatPolicy/TextProtocolPolicy (run_episode), \"random\", a Gymnasium policy "
        "policy(observation, info), a Silo agent agent(task, tools, call_tool, signal), or a factory "
        f"returning one; got {policy!r}."
    )


def _expand_id(env_id: str) -> str:
    return env_id if "/" in env_id else f"silo/{env_id}"


def transcript_messages(instruction: str, actions: list[Any], observations: list[str],
                        system_prompt: str = DEFAULT_SYSTEM_PROMPT) -> list[dict[str, Any]]:
    """The chat-format conversation of an episode played by a policy that is not a chat model
    (module docs): system, user, then per tool call an assistant ``tool_calls`` message and its
    ``tool`` message, and a final assistant message for the answer."""
    messages: list[dict[str, Any]] = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    messages.append({"role": "user", "content": instruction})
    n = 0
    for action, observation in zip(actions, observations, strict=False):
        value = action
        if isinstance(action, str):
            try:
                value = loads_strict(action)
            except ValueError:
                value = action
        if isinstance(value, dict) and "answer" in value and "tool" not in value and len(value) == 1:
            messages.append({"role": "assistant", "content": text_form(value["answer"])})
            continue
        n += 1
        call_id = f"call_{n}"
        if isinstance(value, dict) and isinstance(value.get("tool"), str):
            call = action_to_chat_tool_call({"tool": value["tool"], "input": value.get("input")}, call_id)
        else:
            raw = value if isinstance(value, str) else dumps_compact(value)
            call = {"id": call_id, "type": "function", "function": {"name": "", "arguments": raw}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": observation})
    return messages


class _Played:
    """What one episode produced, whatever the policy kind."""

    def __init__(self, prompt: list[Any], messages: list[Any], actions: list[Any],
                 reward: float, result: dict[str, Any], state_diff: dict[str, Any], retries: int = 0) -> None:
        self.retries = retries
        self.prompt = prompt
        self.messages = messages
        self.actions = actions
        self.reward = reward
        self.result = result
        self.state_diff = state_diff


def _abort_open(env: Any, exc: BaseException) -> None:
    unwrapped = env.unwrapped
    episode = getattr(unwrapped, "episode", None)
    if episode is not None and not episode.done:
        unwrapped.abort(str(exc) or type(exc).__name__)


def _play_gym(env: Any, policy: Callable[[Any, dict[str, Any]], Any], seed: int,
              options: dict[str, Any] | None) -> _Played:
    obs, info = env.reset(seed=seed, options=options)
    instruction = obs
    actions: list[Any] = []
    observations: list[str] = []
    while True:
        try:
            action = policy(obs, info)
        except Exception as exc:
            _abort_open(env, exc)
            raise
        obs, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        observations.append(obs)
        if terminated or truncated:
            break
    messages = transcript_messages(instruction, actions, observations)
    return _Played(messages[:2], messages, actions, float(reward), info["result"], info["state_diff"])


def _play_agent(env: Any, agent: Callable[..., Any], seed: int, options: dict[str, Any] | None) -> _Played:
    from ..runner import drive_agent

    instruction, info = env.reset(seed=seed, options=options)
    unwrapped = env.unwrapped
    episode = unwrapped.episode
    actions: list[Any] = []
    observations: list[str] = []
    lock = threading.Lock()
    refused = [False]

    def call_tool(name: Any, input: Any = None) -> dict[str, Any]:
        action = {"tool": name, "input": input}
        try:
            result = episode.call_tool(name, input)
        except RunLimitError as exc:
            with lock:
                if not refused[0]:
                    refused[0] = True
                    actions.append(action)
                    observations.append(dumps_compact({"terminationReason": exc.reason, "error": exc.message}))
            raise
        with lock:
            actions.append(action)
            observations.append(dumps_compact(result))
        return result

    returned = drive_agent(unwrapped, instruction, agent, call_tool)
    end = episode.end
    assert end is not None
    if end.outcome is None or end.result is None or end.state_diff is None:
        raise EpisodeNotGraded(end.error or "the world was not graded")
    assert end.outcome is not None and end.result is not None
    with lock:
        actions = list(actions)
        observations = list(observations)
    if returned:
        actions.append({"answer": end.raw_output})
        observations.append(dumps_compact({"terminationReason": end.reason, "error": end.error}))
    if unwrapped.reward_mode == "binary":
        reward = 1.0 if end.outcome.passed else 0.0
    else:
        reward = float(end.outcome.reward)
    messages = transcript_messages(instruction, actions, observations)
    return _Played(messages[:2], messages, actions, reward, end.result, end.state_diff)


def _played_episode(ep: Any) -> _Played:
    messages = to_chat_messages(ep.messages, ep.api)
    prompt_length = getattr(ep, "prompt_length", 2)
    return _Played(messages[:prompt_length], messages, list(ep.actions), float(ep.reward),
                   ep.info["result"], ep.info["state_diff"], int(getattr(ep, "retries", 0) or 0))


def _play_episode_policy(env: Any, policy: Any, seed: int, options: dict[str, Any] | None) -> _Played:
    return _played_episode(policy.run_episode(env, seed=seed, options=options))


def _row(environment: str, task_id: str, index: int, run_id: str | None, label: str, played: _Played,
         variant: int | None = None, group: int | None = None) -> dict[str, Any]:
    result = played.result
    components = component_fields(result["checks"])
    return {
        "environment": environment,
        "task_id": task_id,
        "episode": index,
        "variant": variant,
        "group": group,
        "run_id": run_id,
        "policy": label,
        "prompt": played.prompt,
        "messages": played.messages,
        "actions": played.actions,
        "reward": played.reward,
        "passed": bool(result["passed"]),
        "required_passed": int(result["requiredPassed"]),
        "required_total": int(result["requiredTotal"]),
        "checks": [dict(c) for c in result["checks"]],
        "reward_components": components["reward_components"],
        "required_fraction": components["required_fraction"],
        "optional_fraction": components["optional_fraction"],
        "state_diff": dumps_compact(played.state_diff),
        "termination_reason": result["terminationReason"],
        "error": result["error"],
        "tool_calls": int(result["toolCalls"]),
        "tool_errors": int(result["toolErrors"]),
        "retries": played.retries,
    }


def failed_row(environment: str, task_id: str, episode: int, policy: str, error: str,
               retries: int | None = None, group: int | None = None) -> dict[str, Any]:
    """The row of an episode whose every attempt failed (module docs): the identity columns
    (``group`` too, for grouped collection), ``policy``, ``error`` and ``retries`` (the model calls
    retried, ``None`` when unknown); every other column ``None`` (``reward`` included: never a
    made-up 0)."""
    row: dict[str, Any] = dict.fromkeys(EPISODE_COLUMNS)
    row.update(environment=environment, task_id=task_id, episode=episode, group=group, policy=policy, error=error,
               retries=retries)
    return row


class EpisodeNotGraded(SiloGymError):
    """A Silo agent's run ended ungraded: a tool call was still running at deadline + grace
    (silo-format §5.3, amended). Its row is a failed row, and it is not played again."""


class FailedAttempt(NamedTuple):
    """Why one attempt of an episode produced no row: the error text, the model calls it retried,
    and whether it ran out of time (``episode_timeout_s``: not attempted again)."""

    error: str
    retries: int
    timed_out: bool = False


class EpisodeJob(NamedTuple):
    """One episode to play: which env (a position in the runner's ids), task and episode index,
    with its reset seed. ``order`` is the row's place in :func:`collect`'s result. Grouped
    (module docs): ``group`` is its group, ``seed`` the group's reset seed and ``policy_seed`` the
    episode's own seed (what the ``"random"`` policy draws from); ungrouped, ``group`` is None and
    ``policy_seed`` is None (the reset seed is the episode's own). ``item``: see below."""

    order: tuple[int, int, int]
    env_pos: int
    task_id: str
    episode: int
    seed: int
    bound: bool
    group: int | None = None
    policy_seed: int | None = None
    #: The ``CurriculumItem`` a curriculum drew for this episode (its variant is asked for at reset).
    item: Any = None


class EnvPlan(NamedTuple):
    """What one id of a collection stands for: its environment, its tasks (in id order) and the
    environment directory it was registered from (``None`` when unknown)."""

    env_id: str
    environment: str
    task_ids: tuple[str, ...]
    bound: bool
    path: str | None

    def jobs(self, env_pos: int, episodes_per_task: int, seed: int, group_size: int = 1) -> Iterator[EpisodeJob]:
        for task_pos, task_id in enumerate(self.task_ids):
            for index in range(episodes_per_task):
                own = episode_seed(seed, self.environment, task_id, index)
                if group_size == 1:
                    yield EpisodeJob((env_pos, task_pos, index), env_pos, task_id, index, own, self.bound)
                    continue
                group = index // group_size
                yield EpisodeJob((env_pos, task_pos, index), env_pos, task_id, index,
                                 group_reset_seed(seed, self.environment, task_id, index, group_size),
                                 self.bound, group, own)


def curriculum_jobs(plans: Sequence[EnvPlan], curriculum: Any, total: int, seed: int,
                    group_size: int = 1) -> Iterator[EpisodeJob]:
    """``total`` episodes whose tasks and variants ``curriculum`` draws, one draw per group of
    ``group_size`` episodes, each draw made when the job is taken (so it sees every result
    reported before). A task's episodes are numbered in the order drawn; each plays on the first
    of ``plans`` that has its task (a ``silo/<env>`` plan before a per-task one).

    Raises:
        ValueError: (at once) an item of the curriculum that no plan plays.
    """
    where: dict[tuple[str, str], tuple[int, int]] = {}
    for pos in sorted(range(len(plans)), key=lambda p: plans[p].bound):
        plan = plans[pos]
        for task_pos, task_id in enumerate(plan.task_ids):
            where.setdefault((plan.environment, task_id), (pos, task_pos))
    strays = [tuple(i) for i in curriculum.items if (i.environment, i.task_id) not in where]
    if strays:
        raise ValueError(f"The curriculum has items no id of this collection plays: "
                         f"{', '.join(map(str, strays[:3]))}{' ...' if len(strays) > 3 else ''}.")
    return _drawn_jobs(plans, curriculum, where, total, seed, group_size)


def _drawn_jobs(plans: Sequence[EnvPlan], curriculum: Any, where: dict[tuple[str, str], tuple[int, int]],
                total: int, seed: int, group_size: int) -> Iterator[EpisodeJob]:
    played: dict[tuple[str, str], int] = {}
    for _ in range(total // group_size):
        item = curriculum.sample()
        key = (item.environment, item.task_id)
        pos, task_pos = where[key]
        first = played.get(key, 0)
        played[key] = first + group_size
        for index in range(first, first + group_size):
            own = episode_seed(seed, item.environment, item.task_id, index)
            if group_size == 1:
                yield EpisodeJob((pos, task_pos, index), pos, item.task_id, index, own, plans[pos].bound, item=item)
            else:
                yield EpisodeJob((pos, task_pos, index), pos, item.task_id, index,
                                 group_reset_seed(seed, item.environment, item.task_id, index, group_size),
                                 plans[pos].bound, index // group_size, own, item)


def _plan_of(env_id: str, env: Any) -> EnvPlan:
    unwrapped = env.unwrapped
    spec = gym.registry.get(env_id)
    path = spec.kwargs.get("path") if spec is not None else None
    return EnvPlan(env_id, unwrapped.environment_name, tuple(t.id for t in unwrapped.tasks),
                   unwrapped.task_id is not None, path)


def plan_envs(env_ids: Sequence[str], env_kwargs: dict[str, Any] | None = None) -> list[EnvPlan]:
    """Build each id's env once (then close it) to list its tasks, for a driver that does not play
    episodes itself."""
    plans = []
    for env_id in env_ids:
        env = gym.make(_expand_id(env_id), disable_env_checker=True, **(env_kwargs or {}))
        try:
            plans.append(_plan_of(_expand_id(env_id), env))
        finally:
            env.close()
    return plans


def describe_error(exc: BaseException) -> str:
    """``"<type>: <message>"`` (just the type when the message is empty)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class EpisodeRunner:
    """Plays whole episodes of one collection: the policy is resolved once, then :meth:`run` (or
    :meth:`arun`, on an event loop) plays any :class:`EpisodeJob` on an env of its id. Each
    episode in flight has an env of its own, taken from a pool per id (built on first use, kept
    for the next episode). The local backend uses one runner in the calling process; the Ray
    backend one inside every actor.

    Args:
        env_ids: the collection's ids (``<env>`` is expanded to ``silo/<env>``).
        policy: as for :func:`collect`; a ``path.py[:name]`` is resolved against ``cwd``.
        runs_dir: record every episode there with ``RecordRun``.
        ship_artifacts: with ``runs_dir`` (then a private staging directory), read each finished
            run's files into the outcome and delete the run directory.
        env_paths: per id, the environment directory to register when the id is unknown in this
            process (a Ray worker started without the driver's ``SILO_GYM_PATH``).
        episode_timeout_s: with :meth:`arun`, the time one attempt may take, in seconds.
        episode_variants: the world of each episode, checked (:func:`check_episode_variants`).
        run_journal: told of every run directory it creates (``RecordRun``'s ``journal``).
    """

    def __init__(self, env_ids: Sequence[str], policy: Any, *, env_kwargs: dict[str, Any] | None = None,
                 policy_name: str | None = None, runs_dir: str | os.PathLike[str] | None = None,
                 ship_artifacts: bool = False, cwd: str | os.PathLike[str] | None = None,
                 env_paths: Sequence[str | None] | None = None, episode_timeout_s: float | None = None,
                 episode_variants: Mapping[str, Sequence[int | None]] | None = None,
                 run_journal: RunDirJournal | None = None) -> None:
        self.kind, self.policy, label, self.agent_path = resolve_policy(policy, cwd)
        self.label = policy_name if policy_name is not None else label
        self.env_ids = [_expand_id(e) for e in env_ids]
        self.env_kwargs = dict(env_kwargs or {})
        self.runs_dir = runs_dir
        self.ship_artifacts = ship_artifacts
        self.env_paths = list(env_paths) if env_paths is not None else [None] * len(self.env_ids)
        self.episode_timeout_s = episode_timeout_s
        self.episode_variants = episode_variants
        self.run_journal = run_journal
        self._free: dict[str, list[Any]] = {}
        self._all: dict[str, list[Any]] = {}

    @property
    def plays_on_loop(self) -> bool:
        """True when the policy's episodes await their model (``arun_episode``): they can share
        one event loop, with a timeout each."""
        return self.kind == "episode" and callable(getattr(self.policy, "arun_episode", None))

    def _make(self, env_id: str) -> Any:
        if env_id not in gym.registry:
            path = next((p for i, p in zip(self.env_ids, self.env_paths, strict=True) if i == env_id and p), None)
            if path is not None and os.path.isdir(path):
                from ..registration import register_environment

                register_environment(path)
        env = gym.make(env_id, disable_env_checker=True, **self.env_kwargs)
        if self.runs_dir is not None:
            env = RecordRun(env, runs_dir=self.runs_dir, agent_path=self.agent_path, journal=self.run_journal)
        self._all.setdefault(env_id, []).append(env)
        return env

    def acquire(self, env_id: str) -> Any:
        """An env of ``env_id`` for one episode (from the pool, or new); give it back with
        :meth:`release`."""
        free = self._free.get(env_id)
        return free.pop() if free else self._make(env_id)

    def release(self, env_id: str, env: Any) -> None:
        self._free.setdefault(env_id, []).append(env)

    def env(self, env_id: str) -> Any:
        """An env of ``env_id``, kept in the pool (for listing tasks)."""
        env = self.acquire(env_id)
        self.release(env_id, env)
        return env

    def open_all(self) -> None:
        """Build one env of every id now (a worker's start-up check)."""
        for env_id in self.env_ids:
            self.env(env_id)

    def plan(self, env_pos: int) -> EnvPlan:
        env_id = self.env_ids[env_pos]
        return _plan_of(env_id, self.env(env_id))

    def close_env(self, env_id: str) -> None:
        """Close every env of ``env_id`` (none may be in use)."""
        self._free.pop(env_id, None)
        for env in self._all.pop(env_id, []):
            with contextlib.suppress(Exception):
                env.close()

    def close(self) -> None:
        for env_id in list(self._all):
            self.close_env(env_id)

    async def aclose(self) -> None:
        """:meth:`close`, and let the policy close its model clients on this loop."""
        close = getattr(self.policy, "aclose", None)
        if callable(close):
            with contextlib.suppress(Exception):
                await close()
        self.close()

    def _play(self, env: Any, seed: int, options: dict[str, Any] | None, policy_seed: int | None = None) -> _Played:
        if self.kind == "episode":
            return _play_episode_policy(env, self.policy, seed, options)
        if self.kind == "random":
            own = seed if policy_seed is None else policy_seed
            return _play_gym(env, self.policy.actions_for(env, own), seed, options)
        if self.kind == "gym":
            return _play_gym(env, self.policy, seed, options)
        return _play_agent(env, self.policy, seed, options)

    def _begin(self, job: EpisodeJob) -> tuple[str, Any, RecordRun | None, str | None, dict[str, Any] | None]:
        env_id = self.env_ids[job.env_pos]
        env = self.acquire(env_id)
        recorder = env if isinstance(env, RecordRun) else None
        before = recorder.run_dir if recorder is not None else None
        options: dict[str, Any] | None = None if job.bound else {"task_id": job.task_id}
        if self.episode_variants is not None:
            worlds = self.episode_variants.get(f"{env.unwrapped.environment_name}/{job.task_id}")
            if worlds is not None:
                options = {**(options or {}), "variant": worlds[job.episode]}
        if job.item is not None:  # drawn by a curriculum: its variant (None: the canonical world)
            options = {"task_id": job.task_id, "variant": job.item.variant}
        return env_id, env, recorder, before, options

    @staticmethod
    def _drop_run_dir(recorder: RecordRun | None, before: str | None) -> None:
        if recorder is not None and recorder.run_dir is not None and recorder.run_dir != before:
            shutil.rmtree(recorder.run_dir, ignore_errors=True)

    def _discard(self, env: Any, recorder: RecordRun | None, before: str | None, exc: BaseException) -> None:
        """Throw an unfinished attempt away: end its episode, delete its run directory."""
        with contextlib.suppress(Exception):
            _abort_open(env, exc)
        self._drop_run_dir(recorder, before)

    def _outcome(self, job: EpisodeJob, env: Any, recorder: RecordRun | None, before: str | None,
                 played: _Played) -> tuple[str, Any, dict[str, bytes] | None]:
        run_id = recorder.run_id if recorder is not None else None
        episode = env.unwrapped.episode
        if env.unwrapped.reward_mode == "shaped":  # the row's reward is the episode's, not the last step's
            played.reward = float(played.result["reward"])
        row = _row(env.unwrapped.environment_name, job.task_id, job.episode, run_id, self.label, played,
                   episode.variant if episode is not None else None, job.group)
        files: dict[str, bytes] | None = None
        if self.ship_artifacts and recorder is not None and recorder.run_dir is not None:
            run_dir = Path(recorder.run_dir)
            files = {name: (run_dir / name).read_bytes() for name in RUN_FILES if (run_dir / name).is_file()}
            self._drop_run_dir(recorder, before)
        return "ok", row, files

    def run(self, job: EpisodeJob) -> tuple[str, Any, dict[str, bytes] | None]:
        """Play one attempt of ``job`` in this thread.

        Returns:
            ``("ok", row, files)``, ``files`` being ``{name: bytes}`` of the run directory with
            ``ship_artifacts`` (else ``None``); or ``("failed", FailedAttempt, None)`` when the
            policy raised: the episode was aborted and its run directory deleted.

        Raises:
            SiloError, gymnasium.error.Error: errors of the environment or the setup.
            BaseException: an interruption (the attempt is thrown away first).
        """
        env_id, env, recorder, before, options = self._begin(job)
        meter = EpisodeMeter()
        token = EPISODE_METER.set(meter)
        try:
            try:
                played = self._play(env, job.seed, options, job.policy_seed)
            except (SiloError, gym.error.Error):
                if self.ship_artifacts:
                    self._drop_run_dir(recorder, before)
                raise
            except EpisodeNotGraded as exc:  # never a made-up reward; not played again
                self._drop_run_dir(recorder, before)
                return "failed", FailedAttempt(f"Episode not graded: {exc}", meter.retries, True), None
            except Exception as exc:
                self._discard(env, recorder, before, exc)
                return "failed", FailedAttempt(describe_error(exc), meter.retries), None
            except BaseException as exc:
                self._discard(env, recorder, before, exc)
                raise
            return self._outcome(job, env, recorder, before, played)
        finally:
            EPISODE_METER.reset(token)
            self.release(env_id, env)

    async def arun(self, job: EpisodeJob) -> tuple[str, Any, dict[str, bytes] | None]:
        """:meth:`run` on the running event loop: a policy with ``arun_episode`` is awaited (under
        ``episode_timeout_s``); any other is played inline. A timed-out attempt gives
        ``("failed", FailedAttempt(..., timed_out=True), None)``; a cancellation throws the
        attempt away (episode ended, run directory deleted) and propagates."""
        if not self.plays_on_loop:
            return self.run(job)
        fresh_env = not self._free.get(self.env_ids[job.env_pos])
        env_id, env, recorder, before, options = self._begin(job)
        if fresh_env:  # building an env takes milliseconds: let the episodes in flight move on first
            await asyncio.sleep(0)
        meter = EpisodeMeter()
        token = EPISODE_METER.set(meter)
        limit = self.episode_timeout_s
        clock = asyncio.timeout(limit)
        try:
            try:
                async with clock:
                    episode = await self.policy.arun_episode(env, seed=job.seed, options=options)
                played = _played_episode(episode)
            except (SiloError, gym.error.Error):
                if self.ship_artifacts:
                    self._drop_run_dir(recorder, before)
                raise
            except Exception as exc:
                self._discard(env, recorder, before, exc)
                if isinstance(exc, TimeoutError) and clock.expired():
                    return "failed", FailedAttempt(_timeout_text(limit, meter), meter.retries, True), None
                return "failed", FailedAttempt(describe_error(exc), meter.retries), None
            except BaseException as exc:
                self._discard(env, recorder, before, exc)
                raise
            return self._outcome(job, env, recorder, before, played)
        finally:
            EPISODE_METER.reset(token)
            self.release(env_id, env)


def check_group_size(group_size: Any, episodes_per_task: int) -> None:
    """Refuse a ``group_size`` that is not an int >= 1 dividing ``episodes_per_task``.

    Raises:
        ValueError: with what was wrong and what is accepted.
    """
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError(f"group_size must be an int >= 1, got {group_size!r}.")
    if episodes_per_task % group_size:
        raise ValueError(f"episodes_per_task ({episodes_per_task}) must be a multiple of group_size ({group_size}): "
                         "every group plays group_size episodes of one world.")


def _timeout_text(limit: float | None, meter: EpisodeMeter) -> str:
    what = (f"the model call of turn {meter.turns} did not return" if meter.waiting
            else f"the policy had not finished after {meter.turns} model call(s)")
    return f"Episode timed out after {limit:g} s (episode_timeout_s): {what}."


async def aplay_with_retries(runner: EpisodeRunner, environment: str, job: EpisodeJob,
                             max_retries: int) -> dict[str, Any]:
    """Play ``job`` (:meth:`EpisodeRunner.arun`) until an attempt gives a row, at most
    ``max_retries + 1`` times; else its failed row. A timed-out attempt is not played again:
    its failed row's ``error`` says what timed out."""
    retries = 0
    error = ""
    for attempt in range(max_retries + 1):
        status, value, _files = await runner.arun(job)
        if status == "ok":
            value["retries"] += retries
            return value  # type: ignore[no-any-return]
        retries += value.retries
        error = f"Episode failed after {attempt + 1} attempt(s): {value.error}"
        if value.timed_out:
            error = value.error
            break
    return failed_row(environment, job.task_id, job.episode, runner.label, error, retries, job.group)
