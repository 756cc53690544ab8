"""Silo tasks for OpenRLHF's agent mode (``--train.agent_func_path``; docs/training.md).

Extra ``silo-gym[openrlhf]`` (OpenRLHF itself needs a GPU: flash-attn, vLLM). OpenRLHF loads
the file given as ``--train.agent_func_path``, takes its ``AgentExecutor`` class (a subclass of
``openrlhf.utils.agent.AgentExecutorBase``) and calls ``AgentExecutor()``; for every prompt its
``MultiTurnAgentExecutor.execute`` builds one agent instance, calls ``reset({"observation":
<prompt text>, "label": <label>})``, then alternates vLLM generations (token in, token out) with
``step({"observation_text", "action_text", "label", "sampling_params"})``, which returns
``rewards``, ``scores``, ``environment_feedback``, ``done``, and appends the feedback's tokens to
the sequence. Only the generated tokens are in its ``action_ranges``: the feedback (tool
results) never counts as model tokens.

The file is two lines::

    from silo_gym.integrations.openrlhf import agent_executor
    AgentExecutor = agent_executor("silo/demo", runs_dir="runs", max_tool_calls=30)

What the executor of :func:`agent_executor` does:

- one silo env per prompt (``gym.make`` in ``reset``, closed when the prompt's episode ends);
  the task comes from the row's ``label`` (``--data.label_key``): JSON text ``{"task_id", "seed",
  "variant", "env_id"}`` as :func:`dataset` writes it, or a bare task id;
- the model writes calls in silo_gym's text protocol (``<tool_call>{"tool": ..., "input":
  ...}</tool_call>``; the Hermes form ``{"name", "arguments"}`` is read too): the prompt
  (:func:`dataset`, with ``--data.apply_chat_template``) lists the tools in its system message,
  so any chat template works. Every tag is stepped, also one whose body is not JSON: the env
  answers it with its own error, which the model reads in the feedback;
- the feedback is the turn's ``<tool_result>`` blocks wrapped as a user turn of the model's chat
  template (found from the tokenizer OpenRLHF passes to ``execute``), ending with the template's
  generation prompt; without a chat template, the bare blocks;
- the reward is 0 on every step but the last, whose reward is the verifier's: OpenRLHF adds them
  up, so the trainer's ``reward`` (and ``scores``) is ``result.json``'s ``reward``;
- when OpenRLHF stops a prompt without a last step (``--max_len`` used up) the episode is ended
  as ``agent_error`` (graded and recorded) and the executor's output carries that graded reward,
  so the trainer still sees ``result.json``'s number.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterable, Mapping
from typing import Any

import gymnasium as gym
import torch
from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

from ..llm.text_protocol import TextProtocolPolicy, format_tool_results, parse_reply
from .rows import open_env, start_episode, task_rows

__all__ = ["ENV_KWARGS", "SiloAgentInstance", "agent_executor", "dataset", "feedback_wrapper"]

#: ``gym.make`` keyword arguments :func:`agent_executor` takes.
ENV_KWARGS = ("max_tool_calls", "timeout_ms", "reward_mode", "max_observation_length", "variants")

_MARK = "\x00silo-feedback\x00"
# The instances and tokenizer of the prompt an executor is running (set by its execute()).
_RUN: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("silo_openrlhf_run", default=None)
_WRAPPERS: dict[int, tuple[str, str]] = {}


def feedback_wrapper(tokenizer: Any) -> tuple[str, str]:
    """``(before, after)``: the text a chat template puts around a user message that follows
    an assistant turn, up to and including the generation prompt; the assistant's end-of-turn
    token is left out of ``before`` (the model generated it). ``("\\n", "\\n")`` without a chat
    template.

    Raises:
        ValueError: a chat template whose rendering of a longer conversation does not start
            with that of the shorter one (the feedback could not be appended as text).
    """
    found = _WRAPPERS.get(id(tokenizer))
    if found is not None:
        return found
    if not getattr(tokenizer, "chat_template", None):
        return "\n", "\n"
    reply = "\x00silo-reply\x00"
    turns = [{"role": "user", "content": "task"}, {"role": "assistant", "content": reply}]
    base = str(tokenizer.apply_chat_template(turns, tokenize=False))
    full = str(tokenizer.apply_chat_template(turns + [{"role": "user", "content": _MARK}], tokenize=False,
                                             add_generation_prompt=True))
    if not full.startswith(base) or reply not in base or _MARK not in full:
        raise ValueError("The tokenizer's chat template does not render a conversation as a prefix of a longer "
                         "one; silo_gym cannot append tool results to the model's text.")
    between = base[base.index(reply) + len(reply):]
    eos = getattr(tokenizer, "eos_token", None)
    if isinstance(eos, str) and eos and between.startswith(eos):
        between = between[len(eos):]
    before, after = full[len(base):].split(_MARK, 1)
    _WRAPPERS[id(tokenizer)] = found = (between + before, after)
    return found


def _label(label: Any) -> dict[str, Any]:
    if isinstance(label, Mapping):
        return dict(label)
    text = "" if label is None else str(label).strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    return {"task_id": text} if text else {}


class SiloAgentInstance(AgentInstanceBase):
    """One prompt's silo episode (module docs). Built by OpenRLHF's executor with no arguments;
    the class :func:`agent_executor` makes carries the configuration."""

    env_id: str | None = None
    env_kwargs: Mapping[str, Any] = {}
    runs_dir: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.env: gym.Env[Any, Any] | None = None
        self.final: tuple[float, dict[str, Any]] | None = None
        run = _RUN.get()
        self.tokenizer = run["tokenizer"] if run is not None else None
        if run is not None:
            run["instances"].append(self)

    @property
    def done(self) -> bool:
        """The episode has ended (an answer, a limit, or :meth:`finish`)."""
        return self.final is not None

    async def reset(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Start the episode the label names; the prompt text is returned unchanged.

        Raises:
            ValueError: no task in the label, no env id, or a prompt that does not hold the
                task's instruction (build the prompts with :func:`dataset`).
        """
        spec = _label(states.get("label"))
        env_id = spec.get("env_id") or self.env_id
        if not env_id:
            raise ValueError('No silo env id: give agent_executor(env_id) or "env_id" in the label.')
        self.env = open_env(str(env_id), self.runs_dir, **dict(self.env_kwargs))
        try:
            task_id, instruction, _ = start_episode(self.env, spec, 'the label (JSON {"task_id": ...} or the bare id)')
        except BaseException:
            self.close()
            raise
        seed = spec.get("seed")
        observation = str(states.get("observation") or "")
        if instruction.strip() not in observation:
            self.close()  # nothing was played: the episode is discarded, not recorded
            raise ValueError(f"The prompt of task {task_id} does not hold its instruction for seed {seed}: build "
                             "the prompts with silo_gym.integrations.openrlhf.dataset (same seed, same env options).")
        return {"observation": observation}

    def _feedback(self, results: list[str]) -> str:
        before, after = feedback_wrapper(self.tokenizer) if self.tokenizer is not None else ("\n", "\n")
        return before + format_tool_results(results) + after

    def _ended(self, reward: float, info: dict[str, Any], sampling_params: Any) -> dict[str, Any]:
        self.final = (reward, info)
        result = info.get("result") or {}
        value = torch.tensor(reward, dtype=torch.float64)  # float64: .item() gives back result.json's number
        return {"rewards": value, "scores": value, "environment_feedback": "", "done": True,
                "sampling_params": sampling_params,
                "extra_logs": {"silo_tool_calls": torch.tensor(float(result.get("toolCalls", 0))),
                               "silo_tool_errors": torch.tensor(float(result.get("toolErrors", 0))),
                               "silo_passed": torch.tensor(float(bool(result.get("passed"))))}}

    async def step(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Run one model turn: its tool calls (feedback, reward 0) or its final answer (done,
        the verifier's reward)."""
        if self.env is None:
            raise RuntimeError("step() before reset().")
        params = states.get("sampling_params")
        if self.final is not None:  # the episode is over; OpenRLHF should not ask again
            return self._ended(*self.final, params)
        text = str(states.get("action_text") or "")
        actions = parse_reply(text)
        if actions is None:
            _, reward, _, _, info = self.env.step({"answer": text.strip()})
            return self._ended(float(reward), info, params)
        results = []
        for action in actions:
            obs, reward, terminated, truncated, info = self.env.step(action)
            if terminated or truncated:
                return self._ended(float(reward), info, params)
            results.append(obs)
        return {"rewards": torch.tensor(0.0, dtype=torch.float64), "scores": torch.tensor(0.0, dtype=torch.float64),
                "environment_feedback": self._feedback(results), "done": False, "sampling_params": params}

    def finish(self, error: str) -> float:
        """End an open episode as ``agent_error`` with ``error`` (graded and recorded); returns the
        episode's reward (the graded one of an episode that had ended already)."""
        if self.final is None and self.env is not None:
            _, reward, _, _, info = self.env.unwrapped.abort(error)  # type: ignore[attr-defined]
            self.final = (float(reward), info)
        return self.final[0] if self.final is not None else 0.0

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


class SiloAgentExecutor(MultiTurnAgentExecutor):
    """OpenRLHF's ``MultiTurnAgentExecutor`` over :class:`SiloAgentInstance` (module docs);
    :func:`agent_executor` makes a configured subclass."""

    instance_class: type[SiloAgentInstance] = SiloAgentInstance

    def __init__(self) -> None:
        super().__init__(self.instance_class)

    async def execute(self, prompt: Any, label: Any, sampling_params: Any, max_length: int, hf_tokenizer: Any,
                      llm_engine: Any, images: Any = None) -> dict[str, Any]:
        run: dict[str, Any] = {"tokenizer": hf_tokenizer, "instances": []}
        token = _RUN.set(run)
        try:
            output: dict[str, Any] = await super().execute(prompt, label, sampling_params, max_length, hf_tokenizer,
                                                           llm_engine, images=images)
        except BaseException:
            for instance in run["instances"]:
                instance.finish("OpenRLHF's agent executor failed before the episode ended.")
                instance.close()
            raise
        finally:
            _RUN.reset(token)
        for instance in run["instances"]:
            if not instance.done:  # OpenRLHF stopped without a last step: --max_len ran out
                reward = instance.finish(f"OpenRLHF's max_len ({max_length} tokens) ran out before a final answer.")
                output["reward"] = output["scores"] = reward
            instance.close()
        return output


def agent_executor(env_id: str | None = None, *, runs_dir: str | None = None,
                   **env_kwargs: Any) -> type[SiloAgentExecutor]:
    """The ``AgentExecutor`` class for an ``--train.agent_func_path`` file (module docs).

    Args:
        env_id: the silo id for labels without ``env_id`` (``silo/<env>`` or ``silo/<env>-<TASK>``).
        runs_dir: record every episode as a Silo run there.
        env_kwargs: ``gym.make`` keywords (:data:`ENV_KWARGS`).

    Raises:
        ValueError: an unknown keyword.
    """
    unknown = set(env_kwargs) - set(ENV_KWARGS)
    if unknown:
        raise ValueError(f"Unknown env keywords: {', '.join(sorted(unknown))}; accepted: {', '.join(ENV_KWARGS)}.")
    instance = type("SiloAgentInstanceConfigured", (SiloAgentInstance,), {
        "env_id": env_id, "env_kwargs": dict(env_kwargs), "runs_dir": None if runs_dir is None else str(runs_dir)})
    return type("AgentExecutor", (SiloAgentExecutor,), {"instance_class": instance, "__module__": __name__})


def dataset(env_ids: str | Iterable[str], *, repeats: int = 1, seed: int = 0, system_prompt: str | None = None,
            **env_kwargs: Any) -> list[dict[str, Any]]:
    """Prompt rows for OpenRLHF (write them as JSONL; ``--data.input_key prompt --data.label_key
    label --data.apply_chat_template``): ``prompt`` (the text protocol's system message with the
    tools, and the instruction) and ``label`` (JSON text: ``env_id``, ``task_id``, ``seed``, and
    ``variant`` when ``variants=True`` drew one).
    Tasks in id order, ``repeats`` rows each, seeds as :func:`silo_gym.data.episode_seed` draws them.

    Raises:
        ValueError: ``repeats`` < 1.
    """
    policy = TextProtocolPolicy(lambda messages: "", system_prompt=system_prompt)
    return [{"prompt": policy.prompt(row.instruction, row.tools),
             "label": json.dumps({"env_id": row.env_id, "task_id": row.task_id, "seed": row.seed,
                                  **({} if row.variant is None else {"variant": row.variant})})}
            for row in task_rows(env_ids, repeats=repeats, seed=seed, env_kwargs=env_kwargs)]
