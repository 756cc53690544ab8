"""Silo tasks as a verl agent loop (``silo_agent``; docs/training.md).

Extra ``silo-gym[verl]``. verl's rollout worker (``AgentLoopWorker``) builds one agent loop per
trajectory from its registry (``hydra.utils.instantiate`` of the entry named by the row's
``agent_name``) and awaits ``run(sampling_params, **row)``; the returned ``AgentLoopOutput``
carries ``prompt_ids``, ``response_ids``, ``response_mask`` (1 for tokens the model generated, 0
for everything else) and, optionally, ``reward_score``, which verl writes onto the last response
token (``rm_scores``) and then skips its own reward computation for that trajectory.

:class:`SiloAgentLoop` (registered as ``silo_agent``) plays one silo episode per ``run``:

- it owns one silo env for the whole trajectory (``gym.make`` at the start of ``run``, closed at
  the end; in ``RecordRun`` with ``runs_dir``). verl's own ``ToolAgentLoop`` creates and releases
  a ``BaseTool`` instance around every single call, so episode state cannot live in a verl tool;
  this loop does not use verl's tools at all;
- the row's ``extra_info`` chooses the episode: ``task_id`` (required unless the env id names a
  task), ``seed``, ``variant`` and optionally ``env_id``; :func:`dataset` writes such rows;
- the prompt is the row's ``raw_prompt`` (kept as it is when it ends with the task instruction,
  else the instruction is appended), rendered by the model's chat template with the task's tools
  as full JSON schemas (:func:`silo_gym.llm.to_openai_chat_tools`). verl's tool-schema model
  (``OpenAIFunctionToolSchema``) keeps only ``type``, ``description`` and ``enum`` of each
  property and drops ``items``, nested ``properties``, ``minimum``, ``default``...; the schemas
  here never pass through it, so every constraint reaches the model;
- tokens are built the way verl builds them (the loop's Continuous Token builder, and
  ``AgentLoopBase.ct_merge_assistant_token`` / ``ct_merge_context_msg``): the model's tokens are
  kept exactly as generated (mask 1), tool results and chat-template scaffolding are appended
  with mask 0. A prompt longer than ``rollout.prompt_length`` is refused (``ValueError``): verl
  would cut its start, where the tools are;
- tool calls are read from each reply in the ``multi_turn.format`` verl is configured with. For
  ``hermes`` (Qwen 2.5/3 and most tool templates: ``<tool_call>{"name", "arguments"}</tool_call>``)
  every tag is read by silo_gym's parser, so a tag whose body is not JSON, an unknown tool and
  bad arguments are all stepped into the env, which answers each with its own error observation
  (verl's parser would drop an unreadable tag). Other formats use verl's parser for that format;
  its ``arguments`` text is stepped as it is (not JSON -> the env's ``invalid_action``);
- a reply without a tool call is the final answer (``{"answer": <its text>}``); its reward is
  ``reward_score``, the same number as ``result.json``'s ``reward``. The response always ends
  with the model's last tokens: the result of a call that ended the episode (a budget) is not
  appended, so the reward sits on a model token;
- when verl's limits stop the trajectory first (``response_length`` tokens, or
  ``multi_turn.max_assistant_turns`` / ``max_user_turns``) the episode is ended as
  ``agent_error`` (graded and recorded, as ``abort`` does) and that graded reward is returned;
- the loop never cuts a tool result. verl's ``ToolAgentLoop`` cuts results longer than
  ``multi_turn.max_tool_response_length`` (default 256 characters) in mid-JSON; here the env's
  ``max_observation_length`` is the only limit (a longer result becomes the env's
  ``observation_too_large`` error, which the model can act on). Unset, it is
  ``max_tool_response_length``; set above it, the loop refuses to start (raise verl's limit).

Loop options (keys of the loop's entry in ``agent_loop_config_path``, see docs/training.md):
``runs_dir``, ``system_prompt``, ``env_id`` (default for rows without one) and the ``gym.make``
keywords of :data:`ENV_KWARGS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from uuid import uuid4

import gymnasium as gym
from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopMetrics, AgentLoopOutput, register
from verl.experimental.agent_loop.tool_parser import ToolParser
from verl.tools.schemas import OpenAIFunctionToolSchema
from verl.utils.profiler import simple_timer

from ..llm.formats import arguments_to_action, to_openai_chat_tools
from ..llm.policy import DEFAULT_SYSTEM_PROMPT
from ..llm.text_protocol import parse_reply
from .rows import config_value, open_env, plain, start_episode, task_rows

__all__ = ["AGENT_NAME", "ENV_KWARGS", "SiloAgentLoop", "agent_loop_config", "dataset"]

#: The name the loop is registered under (``agent_name`` of the data set rows).
AGENT_NAME = "silo_agent"
#: ``gym.make`` keyword arguments the loop's config may carry.
ENV_KWARGS = ("max_tool_calls", "timeout_ms", "reward_mode", "max_observation_length", "variants")
_TOOL_TAGS = ("<tool_call>", "</tool_call>")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    return "" if content is None else str(content)


@register(AGENT_NAME)
class SiloAgentLoop(AgentLoopBase):
    """One silo episode per ``run`` (module docs).

    Args:
        *args, **kwargs: what verl's worker passes every agent loop (``trainer_config``,
            ``server_manager``, ``tokenizer``, ``processor``, ``dataset_cls``, ``data_config``,
            ``hf_model_type``; ``tools`` and ``name`` are accepted and unused).
        env_id: the silo id for rows whose ``extra_info`` names none (``silo/<env>`` or
            ``silo/<env>-<TASK>``).
        runs_dir: record every trajectory as a Silo run there.
        system_prompt: the system message put before the instruction when the row's prompt
            does not end with it (``None``: :data:`~silo_gym.llm.DEFAULT_SYSTEM_PROMPT`; ``""``:
            none).
        max_tool_calls, timeout_ms, reward_mode, max_observation_length, variants: ``gym.make``
            keywords for every env.

    Raises:
        ValueError: ``max_observation_length`` above verl's ``multi_turn.max_tool_response_length``.
    """

    def __init__(self, *args: Any, tools: Any = None, env_id: str | None = None, runs_dir: str | None = None,
                 system_prompt: str | None = None, **kwargs: Any) -> None:
        env_kwargs = {key: plain(kwargs.pop(key)) for key in ENV_KWARGS if kwargs.get(key) is not None}
        for key in ENV_KWARGS:
            kwargs.pop(key, None)
        kwargs.pop("name", None)
        super().__init__(*args, **kwargs)
        multi_turn = self.rollout_config.multi_turn
        self.max_assistant_turns = config_value(multi_turn, "max_assistant_turns")
        self.max_user_turns = config_value(multi_turn, "max_user_turns")
        self.tool_format = str(config_value(multi_turn, "format", "hermes") or "hermes")
        verl_limit = config_value(multi_turn, "max_tool_response_length")
        limit = env_kwargs.get("max_observation_length")
        if limit is None and isinstance(verl_limit, int):
            env_kwargs["max_observation_length"] = verl_limit
        elif isinstance(limit, int) and isinstance(verl_limit, int) and limit > verl_limit:
            raise ValueError(
                f"max_observation_length ({limit}) is above verl's multi_turn.max_tool_response_length "
                f"({verl_limit}): raise max_tool_response_length to at least {limit} (verl's own tool loop "
                "cuts longer results), or lower max_observation_length."
            )
        self.env_kwargs = env_kwargs
        self.env_id = env_id
        self.runs_dir = None if runs_dir is None else str(runs_dir)
        self.system_prompt = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt
        self.prompt_length = self.rollout_config.prompt_length
        self.response_length = self.rollout_config.response_length
        self.tool_parser = None if self.tool_format == "hermes" else ToolParser.get_tool_parser(self.tool_format,
                                                                                              self.tokenizer)
        self._eos_id = getattr(self.tokenizer, "eos_token_id", None)
        special = getattr(self.tokenizer, "all_special_tokens", None) or []
        self._special_tokens = [t for t in special if isinstance(t, str) and t and t not in _TOOL_TAGS]

    # -- the episode --------------------------------------------------------------------------------

    def _prompt(self, raw_prompt: Any, instruction: str) -> list[dict[str, Any]]:
        messages = [dict(m) for m in raw_prompt] if raw_prompt is not None and len(raw_prompt) else []
        if messages and _text(messages[-1].get("content")).rstrip().endswith(instruction.rstrip()):
            return messages
        if not messages and self.system_prompt:
            messages.append({"role": "system", "content": self.system_prompt})
        messages.append({"role": "user", "content": instruction})
        return messages

    def _visible(self, token_ids: list[int]) -> str:
        """The reply's text without special tokens (end of turn, padding), tool-call tags kept."""
        tokenizer: Any = self.tokenizer
        text = str(tokenizer.decode(token_ids, skip_special_tokens=False))
        for token in self._special_tokens:
            text = text.replace(token, "")
        return text

    async def _actions(self, token_ids: list[int], text: str, tools: list[dict[str, Any]]) -> tuple[str, list[Any]]:
        """``(content, actions)`` of one reply; no actions means the reply is the answer."""
        if self.tool_parser is None:
            if "<tool_call>" not in text:
                return text, []
            actions = parse_reply(text) or []
            head = text.split("<tool_call>", 1)[0]
            return head, actions
        schemas = []
        for tool in tools:
            try:
                schemas.append(OpenAIFunctionToolSchema.model_validate(tool))
            except ValueError:
                continue  # a schema verl's model cannot hold: the parser reads the call without it
        content, calls = await self.tool_parser.extract_tool_calls(token_ids, schemas)
        return content, [arguments_to_action(call.name, call.arguments) for call in calls]

    @staticmethod
    def _assistant_message(content: str, actions: list[Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        calls = []
        for action in actions:
            if isinstance(action, Mapping) and isinstance(action.get("tool"), str):
                arguments = action.get("input")
                calls.append({"type": "function", "function": {
                    "name": action["tool"], "arguments": arguments if isinstance(arguments, Mapping) else {}}})
        if calls:
            message["tool_calls"] = calls
        return message

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        """Play one episode; returns verl's ``AgentLoopOutput`` (module docs).

        ``kwargs`` are the data set row's fields (``raw_prompt``, ``extra_info``...).

        Raises:
            ValueError: no ``env_id`` (row or loop config), or no ``task_id`` for an id that
                serves every task of its environment.
        """
        extra = plain(kwargs.get("extra_info")) or {}
        env_id = extra.get("env_id") or self.env_id
        if not env_id:
            raise ValueError('silo_agent needs an env id: extra_info["env_id"] in the row or env_id in the '
                             "loop's config.")
        env = open_env(str(env_id), self.runs_dir, **self.env_kwargs)
        try:
            return await self._play(env, sampling_params, extra, kwargs)
        finally:
            env.close()

    async def _play(self, env: gym.Env[Any, Any], sampling_params: dict[str, Any], extra: Mapping[str, Any],
                    row: Mapping[str, Any]) -> AgentLoopOutput:
        unwrapped: Any = env.unwrapped
        task_id, instruction, info = start_episode(env, extra, "the row's extra_info")
        tools = to_openai_chat_tools(info.get("tools") or [])
        messages = self._prompt(row.get("raw_prompt"), instruction)
        metrics: dict[str, Any] = {}
        prompt_ids = await self.loop.run_in_executor(
            None, lambda: self.continuous_token_builder.build_initial_tokens(messages, tools=tools))
        if len(prompt_ids) > self.prompt_length:  # verl would cut the prompt's start: the tool list
            raise ValueError(f"The prompt of task {task_id} is {len(prompt_ids)} tokens (system prompt, tools and "
                             f"instruction), above verl's rollout.prompt_length ({self.prompt_length}): raise "
                             "prompt_length (verl would cut the start of the prompt, where the tools are).")
        token_ids = list(prompt_ids)
        mask: list[int] = []
        logprobs: list[float] = []
        want_logprobs = bool(sampling_params.get("logprobs"))
        request_id = uuid4().hex
        assistant_turns = user_turns = 0
        ended: tuple[float, dict[str, Any]] | None = None
        stop_ids = getattr(self.tool_parser, "stop_token_ids", None) or []
        params = dict(sampling_params)
        if stop_ids:
            params["stop_token_ids"] = sorted(set((params.get("stop_token_ids") or []) + list(stop_ids)))

        def abort(reason: str) -> tuple[float, dict[str, Any]]:
            _, value, _, _, final = unwrapped.abort(reason)
            return float(value), final

        while ended is None:
            with simple_timer("generate_sequences", metrics):
                output = await self.server_manager.generate(request_id=request_id, prompt_ids=token_ids,
                                                            sampling_params=params, image_data=None,
                                                            video_data=None)
            if "num_preempted" not in metrics:  # -1: the server does not report it (as verl's loops do)
                metrics["num_preempted"] = -1 if output.num_preempted is None else output.num_preempted
            else:
                metrics["num_preempted"] += output.num_preempted or 0
            assistant_turns += 1
            generated = list(output.token_ids)
            merged, mask, merged_logprobs = await self.ct_merge_assistant_token(
                token_ids, generated, mask, logprobs if want_logprobs else None,
                assistant_logprobs=list(output.log_probs) if want_logprobs and output.log_probs else None)
            token_ids = merged.token_ids
            if merged_logprobs is not None:
                logprobs = merged_logprobs
            text = self._visible(generated)
            content, actions = await self._actions(generated, text, tools)
            # At the budget a reply is cut unless it ends its turn (a whole answer that just fits)
            finished = bool(generated) and generated[-1] == self._eos_id
            if len(mask) > self.response_length or (len(mask) == self.response_length and (actions or not finished)):
                ended = abort(f"verl's response_length ({self.response_length} tokens) ran out before a final answer.")
                break
            if not actions:
                _, value, _, _, final = env.step({"answer": text.strip()})
                ended = float(value), final
                break
            if self.max_assistant_turns and assistant_turns >= self.max_assistant_turns:
                ended = abort(f"verl's max_assistant_turns ({self.max_assistant_turns}) ended the episode before "
                              "a final answer.")
                break
            messages.append(self._assistant_message(content, actions))
            previous = list(messages)
            with simple_timer("tool_calls", metrics):
                for action in actions:
                    obs, value, terminated, truncated, final = env.step(action)
                    if terminated or truncated:  # a budget ended it: the reward stays on the model's tokens
                        ended = float(value), final
                        break
                    messages.append({"role": "tool", "content": obs})
            if ended is not None:
                break
            user_turns += 1
            merged, new_mask, merged_logprobs = await self.ct_merge_context_msg(
                previous, messages, token_ids, mask, logprobs if want_logprobs else None, tools=tools)
            if len(new_mask) >= self.response_length:  # the results do not fit: they are not appended
                ended = abort(f"verl's response_length ({self.response_length} tokens) ran out before a final answer.")
                break
            token_ids, mask = merged.token_ids, new_mask
            if merged_logprobs is not None:
                logprobs = merged_logprobs
            if self.max_user_turns and user_turns >= self.max_user_turns:
                ended = abort(f"verl's max_user_turns ({self.max_user_turns}) ended the episode before a final "
                              "answer.")
        reward, final = ended
        cut = len(token_ids) - len(mask)
        run_dir = final.get("run_dir", getattr(env, "run_dir", None))
        silo = {"task_id": final.get("task_id", task_id), "termination_reason": final.get("termination_reason"),
                "passed": final.get("passed"), "result": final.get("result"),
                "run_dir": None if run_dir is None else str(run_dir)}
        return AgentLoopOutput(
            prompt_ids=token_ids[:cut],
            response_ids=token_ids[cut:][: self.response_length],
            response_mask=mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if want_logprobs and logprobs else None,
            reward_score=reward,
            num_turns=assistant_turns + user_turns + 1,
            metrics=AgentLoopMetrics(**metrics),
            extra_fields={"turn_scores": [], "tool_rewards": [], "silo": silo},
        )


def agent_loop_config(**options: Any) -> list[dict[str, Any]]:
    """The entry for verl's ``actor_rollout_ref.rollout.agent.agent_loop_config_path`` file (write
    it as YAML): ``[{"name": "silo_agent", "_target_": "silo_gym.integrations.verl.SiloAgentLoop",
    **options}]``; ``options`` are the loop's keywords (``runs_dir``, ``env_id``,
    ``max_tool_calls``...). verl's workers import the loop from ``_target_``, so no import of
    this module is needed in them."""
    unknown = set(options) - {"env_id", "runs_dir", "system_prompt", *ENV_KWARGS}
    if unknown:
        raise ValueError(f"Unknown silo_agent options: {', '.join(sorted(unknown))}; accepted: env_id, runs_dir, "
                         f"system_prompt, {', '.join(ENV_KWARGS)}.")
    return [{"name": AGENT_NAME, "_target_": f"{SiloAgentLoop.__module__}.{SiloAgentLoop.__qualname__}", **options}]


def dataset(env_ids: str | Iterable[str], *, repeats: int = 1, seed: int = 0, system_prompt: str | None = None,
            **env_kwargs: Any) -> list[dict[str, Any]]:
    """Rows for verl's ``RLHFDataset`` (write them as Parquet: ``data.train_files``).

    Each row: ``prompt`` (the system prompt, :data:`~silo_gym.llm.DEFAULT_SYSTEM_PROMPT` unless
    given, and the instruction ``reset`` shows for that seed), ``agent_name`` (``silo_agent``),
    ``data_source`` (``silo/<env>``), ``reward_model`` (``{"style": "silo", "ground_truth": ""}``:
    verl's data loader wants the column; the loop gives the reward itself) and ``extra_info``
    (``env_id``, ``task_id``, ``seed``, ``index``, and ``variant`` when ``variants=True`` drew one:
    the loop then plays that world whatever its own options). Tasks in id order, ``repeats`` rows
    each; seed ``i`` of a task is ``silo_gym.data.episode_seed(seed, environment, task_id, i)``.

    Raises:
        ValueError: ``repeats`` < 1.
    """
    system = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt
    rows: list[dict[str, Any]] = []
    for row in task_rows(env_ids, repeats=repeats, seed=seed, env_kwargs=env_kwargs):
        prompt = [{"role": "system", "content": system}] if system else []
        prompt.append({"role": "user", "content": row.instruction})
        rows.append({"prompt": prompt, "agent_name": AGENT_NAME, "data_source": row.env_id,
                     "reward_model": {"style": "silo", "ground_truth": ""},
                     "extra_info": {"env_id": row.env_id, "task_id": row.task_id, "seed": row.seed,
                                    "index": row.position,
                                    **({} if row.variant is None else {"variant": row.variant})}})
    return rows
