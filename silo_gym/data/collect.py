"""``collect``: run a policy over tasks and turn every episode into a data-set row
(gym-api.md, "Reward-model and trajectory data").

A row has exactly the columns of :data:`EPISODE_COLUMNS`, in that order:

``environment``, ``task_id``
    the environment name and the task id.
``episode``
    the episode's index within its task (0, 1, ...).
``run_id``
    the run id when the episode was recorded (``runs_dir`` given), else ``None``.
``policy``
    the policy's label: ``"random"``, the ``path.py[:name]`` spec it was loaded from, a
    ``ChatPolicy``'s ``name`` (``chat:<model>``...), else the callable's qualified name.
``prompt``, ``messages``
    the system and user messages, and the whole conversation, in OpenAI Chat format (the
    conversational format TRL reads). A ``ChatPolicy`` with ``api="responses"`` or
    ``"anthropic"`` has its conversation converted (:func:`silo_gym.llm.to_chat_messages`); a
    ``TextProtocolPolicy`` keeps its text conversation. For policies that are not chat models
    (``"random"``, Gymnasium policies, Silo agents) the conversation is built from what they did:
    the :data:`~silo_gym.llm.DEFAULT_SYSTEM_PROMPT` system message, the instruction as user
    message, then for each tool call (valid or not) an assistant message with one ``tool_calls``
    entry (id ``call_<n>``, ``arguments`` the compact JSON of ``input``, or the raw text of a
    malformed one) followed by a ``tool`` message holding the observation, and finally an
    assistant message whose ``content`` is the answer's text form (silo-format §5.4).
``actions``
    every action the policy submitted, in order (dicts; a ``str`` only for an unparseable
    text-protocol call). A refused call (over budget or deadline) is included: it is the step
    that ended the episode.
``reward``
    the env's reward for the episode (the verifier's fraction, or 0/1 with ``reward_mode="binary"``).
``passed``, ``required_passed``, ``required_total``, ``checks``
    from ``result.json`` (``checks`` is the list of ``{label, passed, detail, required}``).
``state_diff``
    the state diff as compact JSON text (silo-format §7.2).
``termination_reason``, ``error``, ``tool_calls``, ``tool_errors``
    as in ``result.json``.

Policies, told apart by type and then by signature:

- an object with a ``run_episode(env, *, seed, options)`` method (``ChatPolicy``,
  ``TextProtocolPolicy``);
- the string ``"random"``: :class:`RandomPolicy` (a few ``action_space.sample()`` calls, then an
  answer);
- any other string or path: ``path.py[:name]`` (name defaults to ``agent``), imported like
  ``silo-gym run``'s agents, then told apart as below;
- a callable of 2 positional parameters: a Gymnasium policy ``policy(observation, info) -> action``;
- a callable of 4 positional parameters: a Silo agent ``agent(task, tools, call_tool, signal)``,
  run through the env's episode control like ``run_task`` (its raising, limits and timeout
  follow the runner's table, silo-format §5.3);
- a callable of no parameters: a factory, called once to make the policy.

Seeds: episode ``i`` of a task is reset with :func:`episode_seed` ``(seed, environment, task_id,
i)``, a SHA-256 of those values (stable across processes and Python versions, unlike ``hash``),
so the same ``seed`` gives the same rows, apart from ``run_id``.

If a Gymnasium policy or a chat model raises, the episode is aborted (``agent_error``, graded and
recorded) and the exception propagates: collection stops rather than fill a data set with
failures of the serving stack. A Silo agent's exception is part of its episode (``agent_error``).
"""

from __future__ import annotations

import hashlib
import inspect
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium as gym
import numpy as np

from ..errors import RunLimitError
from ..jsonfmt import dumps_compact, loads_strict, text_form
from ..llm.formats import action_to_chat_tool_call, to_chat_messages
from ..llm.policy import DEFAULT_SYSTEM_PROMPT
from ..tools import tool_list
from ..wrappers.record import RecordRun

__all__ = [
    "EPISODE_COLUMNS",
    "RandomPolicy",
    "collect",
    "episode_seed",
    "resolve_policy",
    "transcript_messages",
]

#: The columns of an episode row, in order (gym-api.md).
EPISODE_COLUMNS: tuple[str, ...] = (
    "environment", "task_id", "episode", "run_id", "policy", "prompt", "messages", "actions", "reward",
    "passed", "required_passed", "required_total", "checks", "state_diff", "termination_reason", "error",
    "tool_calls", "tool_errors",
)


def episode_seed(seed: int, environment: str, task_id: str, episode: int) -> int:
    """The reset seed of one episode: the first 4 bytes of
    ``sha256("silo-gym/collect\\0<seed>\\0<environment>\\0<task_id>\\0<episode>")``, big-endian
    (an int in ``[0, 2**32)``)."""
    text = f"silo-gym/collect\x00{seed}\x00{environment}\x00{task_id}\x00{episode}"
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


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
                 reward: float, result: dict[str, Any], state_diff: dict[str, Any]) -> None:
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
    from ..runner import GRACE_MS, _call_agent, _settle

    instruction, info = env.reset(seed=seed, options=options)
    unwrapped = env.unwrapped
    episode = unwrapped.episode
    timeout_ms = unwrapped.timeout_ms
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

    outcome: dict[str, Any] = {}

    def worker() -> None:
        try:
            outcome["value"] = _call_agent(agent, (instruction, tool_list(episode.tools), call_tool, episode.signal))
        except BaseException as exc:
            outcome["exc"] = exc

    thread = threading.Thread(target=worker, name="silo-collect-agent", daemon=True)
    timer = threading.Timer(timeout_ms / 1000.0, episode.expire)
    timer.daemon = True
    timer.start()
    thread.start()
    thread.join((timeout_ms + GRACE_MS) / 1000.0)
    timer.cancel()
    _settle(unwrapped, episode, thread, outcome, timeout_ms)
    end = episode.end
    assert end is not None and end.outcome is not None and end.result is not None
    with lock:
        actions = list(actions)
        observations = list(observations)
    if not thread.is_alive() and "exc" not in outcome:
        actions.append({"answer": end.raw_output})
        observations.append(dumps_compact({"terminationReason": end.reason, "error": end.error}))
    if unwrapped.reward_mode == "binary":
        reward = 1.0 if end.outcome.passed else 0.0
    else:
        reward = float(end.outcome.reward)
    messages = transcript_messages(instruction, actions, observations)
    return _Played(messages[:2], messages, actions, reward, end.result, end.state_diff)


def _play_episode_policy(env: Any, policy: Any, seed: int, options: dict[str, Any] | None) -> _Played:
    ep = policy.run_episode(env, seed=seed, options=options)
    messages = to_chat_messages(ep.messages, ep.api)
    prompt_length = getattr(ep, "prompt_length", 2)
    return _Played(messages[:prompt_length], messages, list(ep.actions), float(ep.reward),
                   ep.info["result"], ep.info["state_diff"])


def _row(environment: str, task_id: str, index: int, run_id: str | None, label: str, played: _Played) -> dict[str, Any]:
    result = played.result
    return {
        "environment": environment,
        "task_id": task_id,
        "episode": index,
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
        "state_diff": dumps_compact(played.state_diff),
        "termination_reason": result["terminationReason"],
        "error": result["error"],
        "tool_calls": int(result["toolCalls"]),
        "tool_errors": int(result["toolErrors"]),
    }


def collect(
    env_ids: str | Iterable[str],
    policy: Any,
    *,
    episodes_per_task: int,
    seed: int = 0,
    runs_dir: str | os.PathLike[str] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    policy_name: str | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Run ``policy`` for ``episodes_per_task`` episodes on every task of ``env_ids``; one row per
    episode (module docs for the columns and the policy kinds).

    Args:
        env_ids: Gymnasium ids: ``silo/<env>-<TASK>`` for one task, ``silo/<env>`` (or just
            ``<env>``) for all tasks of an environment, in id order.
        policy: see the module docs.
        episodes_per_task: episodes per task (``>= 0``).
        seed: the base seed; episode seeds come from :func:`episode_seed`.
        runs_dir: when given, every episode is recorded there with ``RecordRun`` (run
            directories as ``silo-gym run`` writes them, ``model_step`` events included) and
            ``run_id`` is set; when ``None`` nothing is written and ``run_id`` is ``None``.
        env_kwargs: passed to ``gym.make`` (``max_tool_calls``, ``timeout_ms``, ``reward_mode``...).
        policy_name: overrides the ``policy`` column.
        progress: called with each row as soon as it is made.

    Returns:
        The rows, by id, then task, then episode index.

    Raises:
        gymnasium.error.Error: an unknown id.
        SiloError: setup errors; ``agent_invalid`` for a policy file that cannot be imported.
        VerifierError: grading failed.
    """
    if isinstance(env_ids, str):
        env_ids = [env_ids]
    if episodes_per_task < 0:
        raise ValueError("episodes_per_task must be >= 0")
    kind, obj, label, agent_path = resolve_policy(policy)
    if policy_name is not None:
        label = policy_name
    rows: list[dict[str, Any]] = []
    for env_id in env_ids:
        env: Any = gym.make(_expand_id(env_id), disable_env_checker=True, **(env_kwargs or {}))
        recorder: RecordRun | None = None
        if runs_dir is not None:
            recorder = RecordRun(env, runs_dir=runs_dir, agent_path=agent_path)
            env = recorder
        try:
            unwrapped = env.unwrapped
            environment = unwrapped.environment_name
            bound = unwrapped.task_id is not None
            for task in unwrapped.tasks:
                options = None if bound else {"task_id": task.id}
                for index in range(episodes_per_task):
                    s = episode_seed(seed, environment, task.id, index)
                    if kind == "episode":
                        played = _play_episode_policy(env, obj, s, options)
                    elif kind == "random":
                        played = _play_gym(env, obj.actions_for(env, s), s, options)
                    elif kind == "gym":
                        played = _play_gym(env, obj, s, options)
                    else:
                        played = _play_agent(env, obj, s, options)
                    run_id = recorder.run_id if recorder is not None else None
                    row = _row(environment, task.id, index, run_id, label, played)
                    rows.append(row)
                    if progress is not None:
                        progress(row)
        finally:
            env.close()
    return rows
