"""Silo tasks as ``skyrl_gym`` text environments (SkyRL; docs/training.md).

Extra ``silo-gym[skyrl]``. SkyRL's generator builds one env per trajectory with
``skyrl_gym.make(env_class, env_config=<config of that env class>, extras=<the data set row's
other columns>)``, calls ``init(prompt)`` once, then ``step(<the model's reply text>)`` until
``done``, then ``get_metrics()`` and ``close()``. Here:

- every silo id (``silo/<env>`` and ``silo/<env>-<TASK>``) is registered in skyrl_gym's registry
  under that same id when this module is imported (:func:`register`; call it again after
  ``silo_gym.register_environment``);
- ``extras`` carries ``task_id`` (required for ``silo/<env>``; optional for a per-task id),
  ``seed`` and ``variant`` from the data set row (:func:`dataset` writes such rows), and
  ``max_turns`` (SkyRL sets it). A row with a ``variant`` column (a number, or null for the
  canonical world) pins the world, so the ``n_samples_per_prompt`` trajectories SkyRL builds from
  one row all start from one world with one instruction;
- ``env_config`` (or ``extras``) may carry ``gym.make`` keyword arguments
  (``max_tool_calls``, ``timeout_ms``, ``reward_mode``, ``max_observation_length``, ``variants``)
  and ``runs_dir`` to record each trajectory as a Silo run;
- the model writes tool calls in silo_gym's text protocol (``<tool_call>{"tool": ..., "input":
  ...}</tool_call>``, see :mod:`silo_gym.llm.text_protocol`); a reply without a tool call is the
  final answer. Each reply's calls are stepped in order and their results come back as one
  appended user message of ``<tool_result>`` blocks; history is never rewritten.
- the reward is 0.0 on every step but the last, whose reward is the verifier's (equal to
  ``result.json``'s); ``metadata`` of the last step holds ``result``, ``state_diff``,
  ``termination_reason``, ``passed``, ``reward_components``, ``required_fraction``,
  ``optional_fraction`` (:mod:`silo_gym.components`) and ``run_dir``. With
  ``reward_mode="shaped"`` a turn's reward is the sum of its steps' rewards.

When SkyRL's ``max_turns`` is reached without an answer the episode ends as ``agent_error``
(graded and recorded). When SkyRL stops a trajectory for length it calls ``close()`` without a
last step: the episode is then abandoned (``agent_error``, graded and recorded), and the
trainer's reward stays 0.0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import gymnasium as gym

from ..extras import missing_extra

try:
    from skyrl_gym import Env as SkyRLEnv
    from skyrl_gym import register as skyrl_register
    from skyrl_gym import registry as skyrl_registry
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ModuleNotFoundError as _missing:
    raise missing_extra(_missing, "silo_gym.integrations.skyrl", "skyrl") from _missing

from ..llm.text_protocol import TextProtocolPolicy, format_tool_results, parse_reply
from ..wrappers.record import RecordRun
from .rows import config_value, plain, task_rows

__all__ = ["ENV_KWARGS", "SiloTextEnv", "dataset", "register"]

#: ``gym.make`` keyword arguments read from ``env_config`` and ``extras``.
ENV_KWARGS = ("max_tool_calls", "timeout_ms", "reward_mode", "max_observation_length", "variants")


class SiloTextEnv(BaseTextEnv):
    """One trajectory of a silo task as a ``skyrl_gym`` ``BaseTextEnv`` (module docs).

    Args:
        env_id: the Gymnasium id (the registry entry passes it).
        env_config: SkyRL's config for this env class: ``gym.make`` kwargs (:data:`ENV_KWARGS`),
            ``runs_dir``, ``system_prompt`` (the text protocol's first paragraph).
        extras: the data set row's other columns: ``task_id``, ``seed``, ``variant``,
            ``max_turns``; :data:`ENV_KWARGS` and ``runs_dir`` here override ``env_config``.

    Raises:
        ValueError: no ``task_id`` for a per-environment id, or one another per-task id does not own.
        gymnasium.error.Error: an unknown id.
    """

    def __init__(self, env_id: str, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        kwargs = {}
        for key in ENV_KWARGS:
            value = extras.get(key, config_value(env_config, key))
            if value is not None:
                kwargs[key] = plain(value)
        env = gym.make(env_id, disable_env_checker=True, **kwargs)
        runs_dir = extras.get("runs_dir", config_value(env_config, "runs_dir"))
        self.env: gym.Env[Any, Any] = RecordRun(env, runs_dir=str(runs_dir)) if runs_dir else env
        bound = env.unwrapped.task_id  # type: ignore[attr-defined]
        task_id = extras.get("task_id")
        if task_id is None and bound is None:
            self.env.close()
            raise ValueError(f'{env_id} serves every task of its environment: extras must carry "task_id".')
        self.env_id = env_id
        self.task_id: str = task_id if task_id is not None else bound
        seed = extras.get("seed")
        self.seed: int | None = None if seed is None else int(seed)
        self.pins_variant = "variant" in extras  # null there: the canonical world
        self.variant = extras.get("variant")
        self.max_turns = int(extras.get("max_turns") or 1_000_000)
        self.policy = TextProtocolPolicy(lambda messages: "", system_prompt=config_value(env_config, "system_prompt"))
        self.instruction = ""
        self.tool_results = 0
        self.final: dict[str, Any] | None = None

    def init(self, prompt: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Start the episode; returns the conversation to give the model and metadata.

        An empty ``prompt`` becomes the text protocol's prompt (system message with the tools and
        the protocol, the instruction as user message). A given ``prompt`` is kept as it is when
        its last message already ends with the instruction (what :func:`dataset` writes);
        otherwise the instruction is appended as a user message.
        """
        options: dict[str, Any] = {"task_id": self.task_id}
        if self.pins_variant:
            options["variant"] = None if self.variant is None else int(self.variant)
        instruction, info = self.env.reset(seed=self.seed, options=options)
        self.instruction = instruction
        messages = [dict(m) for m in prompt] if prompt else []
        if not messages:
            messages = self.policy.prompt(instruction, info["tools"])
        elif not str(messages[-1].get("content") or "").rstrip().endswith(instruction.rstrip()):
            messages.append({"role": "user", "content": instruction})
        return messages, {"task_id": info["task_id"], "environment": info["environment"], "variant": info.get("variant")}

    def _ended(self, obs: str, reward: Any, info: dict[str, Any], earlier: float = 0.0) -> BaseTextEnvStepOutput:
        self.final = info
        metadata = {
            "task_id": self.task_id,
            "termination_reason": info["termination_reason"],
            "passed": info["passed"],
            "reward_components": info["reward_components"],
            "required_fraction": info["required_fraction"],
            "optional_fraction": info["optional_fraction"],
            "result": info["result"],
            "state_diff": info["state_diff"],
            "run_dir": info.get("run_dir", getattr(self.env, "run_dir", None)),
            "observation": obs,
        }
        return BaseTextEnvStepOutput(observations=[], reward=earlier + float(reward), done=True, metadata=metadata)

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Run one model reply (module docs): its tool calls, or the final answer."""
        self.turns += 1
        actions = parse_reply(action)
        if actions is None:
            return self._ended(*self._play({"answer": action.strip() if isinstance(action, str) else ""}))
        results: list[str] = []
        turn_reward = 0.0  # the steps' rewards before the last: 0.0 but under reward_mode="shaped"
        for act in actions:
            obs, reward, done, info = self._play_step(act)
            if done:
                return self._ended(obs, reward, info, turn_reward)
            turn_reward += reward
            results.append(obs)
            self.tool_results += 1
        if self.turns >= self.max_turns:
            return self._ended(*self._play_finish(
                f"The trainer's turn limit (max_turns={self.max_turns}) ended the episode before a final answer."
            ), turn_reward)
        observation = {"role": "user", "content": format_tool_results(results)}
        return BaseTextEnvStepOutput(observations=[observation], reward=turn_reward, done=False,
                                     metadata={"tool_calls": len(results)})

    def _play_step(self, action: Any) -> tuple[str, float, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, float(reward), bool(terminated or truncated), info

    def _play(self, action: Any) -> tuple[str, float, dict[str, Any]]:
        obs, reward, _, info = self._play_step(action)
        return obs, reward, info

    def _play_finish(self, error: str) -> tuple[str, float, dict[str, Any]]:
        obs, reward, _, _, info = self.env.unwrapped.abort(error)  # type: ignore[attr-defined]
        return obs, float(reward), info

    def get_metrics(self) -> dict[str, Any]:
        """``tool_calls``, ``tool_errors``, ``reward`` and ``passed`` of the ended episode."""
        if self.final is None:
            return {}
        result = self.final["result"]
        return {"tool_calls": result["toolCalls"], "tool_errors": result["toolErrors"],
                "reward": result["reward"], "passed": float(result["passed"])}

    def close(self) -> None:
        """Close the silo env (an unfinished episode is abandoned: graded and recorded)."""
        self.env.close()


def _creator(env_id: str) -> Any:
    def make(env_config: Any = None, extras: Mapping[str, Any] | None = None) -> SkyRLEnv[Any, Any]:
        return SiloTextEnv(env_id, env_config=env_config, extras=extras)

    make.__name__ = f"make_{env_id.replace('/', '_').replace('-', '_')}"
    return make


def register(env_ids: Iterable[str] | None = None) -> list[str]:
    """Register silo ids in skyrl_gym's registry under the same ids; returns those added.

    ``None`` registers every ``silo/...`` id Gymnasium knows. Ids already in skyrl_gym's registry
    are left alone.
    """
    ids = list(env_ids) if env_ids is not None else [i for i in gym.registry if i.startswith("silo/")]
    added = []
    for env_id in ids:
        if env_id in skyrl_registry:
            continue
        gym.spec(env_id)  # an unknown id fails here, with Gymnasium's message
        skyrl_register(id=env_id, entry_point=_creator(env_id))
        added.append(env_id)
    return added


def dataset(env_ids: str | Iterable[str], *, repeats: int = 1, seed: int = 0,
            system_prompt: str | None = None, **env_kwargs: Any) -> list[dict[str, Any]]:
    """Rows for SkyRL's prompt data set: ``prompt`` (the text protocol's system message and the
    instruction), ``env_class`` (``silo/<env>``), ``task_id``, ``seed`` and ``variant`` (as
    :func:`silo_gym.integrations.trl.dataset` draws them: every trajectory of a row starts from
    that row's world). Tasks in id order, ``repeats`` rows each. Write them as Parquet or JSONL
    for SkyRL's data loader.

    Raises:
        ValueError: ``repeats`` < 1.
    """
    policy = TextProtocolPolicy(lambda messages: "", system_prompt=system_prompt)
    return [{"prompt": policy.prompt(row.instruction, row.tools), "env_class": row.env_id, "task_id": row.task_id,
             "seed": row.seed, "variant": row.variant}
            for row in task_rows(env_ids, repeats=repeats, seed=seed, env_kwargs=env_kwargs)]


register()
