"""Silo tasks for TRL's ``GRPOTrainer`` through its ``environment_factory`` (docs/training.md).

Extra ``silo-gym[trl]``. What TRL does with an environment class (read from ``trl``'s
``GRPOTrainer``; TRL calls the feature experimental):

- it builds one instance per concurrent rollout (``factory()``, no arguments) and reuses it;
- it offers every public method (a function on the class whose name does not start with ``_``)
  other than ``reset`` and ``get_reward`` to the model as a tool, its JSON schema built by
  ``transformers.utils.get_json_schema`` from the method's signature, type hints and Google-style
  docstring;
- before each rollout it calls ``reset(**row)`` with the whole data set row; a returned string is
  appended to the content of the prompt's last message;
- it runs each tool call the model makes as ``method(**arguments)`` and shows ``str(result)`` to
  the model as the tool message;
- it passes the instances to reward functions as ``environments=``.

What this module adds:

- :func:`environment_factory` returns such a class for the tasks of one silo environment. Each
  tool method steps the env (``env.step``): the silo env validates the arguments, counts the call
  and traces it, whatever the model wrote. Parameters are typed from the tool's ``inputSchema``
  (see :func:`tool_signature` for the mapping and the name rule).
- :func:`reward` ends each episode with the model's final text as the answer and returns the
  verifier's reward: the same number ``result.json`` holds. :func:`passed`,
  :func:`required_fraction` and :func:`optional_fraction` are reward functions for the reward's
  parts (:mod:`silo_gym.components`), so a trainer can weight and log them apart
  (``reward_funcs=[reward, passed, required_fraction]`` with ``GRPOConfig(reward_weights=...)``).
- :func:`dataset` builds the ``datasets.Dataset`` of prompts (``prompt``, ``task_id``, ``seed``,
  ``variant``, ``environment``). A row pins its world: TRL resets every one of the
  ``num_generations`` rollouts of a prompt with the same row, so all of them start from the same
  world (same task, variant, seed and instruction), in any process.
- :func:`curriculum_dataset` streams prompts drawn from a :class:`~silo_gym.curriculum.Curriculum`;
  ``environment_factory(..., curriculum=c)`` tells it each rollout's result.
- :func:`sft_dataset` turns successful episode rows into the SFT data set whose prompts render
  exactly like the GRPO prompts (same tool schemas), for a warm start.
- :func:`observation_limit` derives ``max_observation_length`` from ``max_completion_length``.

Calls TRL answers itself, before any method runs, are stepped at the end of the rollout by
:func:`reward` so that they still count: a call to a tool name the class does not have, arguments
that are not a JSON object, and a final reply whose ``<tool_call>`` tags TRL's parser could not
read (read with :func:`silo_gym.llm.parse_reply`). They come after the calls that ran in the trace.
"""

from __future__ import annotations

import copy
import inspect
import keyword
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Union

import gymnasium as gym

from ..data.collect import episode_seed, plan_envs
from ..env import MIN_OBSERVATION_LENGTH
from ..jsonfmt import dumps_compact
from ..llm.policy import DEFAULT_SYSTEM_PROMPT
from ..llm.text_protocol import parse_reply
from ..wrappers.record import RecordRun

__all__ = [
    "RESERVED_NAMES",
    "SiloToolEnvironment",
    "curriculum_dataset",
    "dataset",
    "environment_factory",
    "observation_limit",
    "optional_fraction",
    "passed",
    "python_name",
    "required_fraction",
    "reward",
    "sft_dataset",
    "tool_schemas",
    "tool_signature",
]

#: Method names TRL gives a meaning of its own: a tool with one of these names gets ``_tool``.
RESERVED_NAMES = frozenset({"reset", "get_reward"})

_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")
# Words that end the description part of a Google docstring in transformers' parser.
_SECTION_WORDS = re.compile(r"\b(Args|Returns|Raises):")
_CHOICES_AT_END = re.compile(r"\(choices:\s*(.*?)\)\s*$", re.IGNORECASE)
_SCALAR_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool,
                                 "null": type(None)}
# Keywords a schema may carry that a Python type hint cannot say: written into the description.
_CONSTRAINT_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                    "pattern", "format", "minItems", "maxItems", "uniqueItems")


# ---------------------------------------------------------------------------------------------
# Names and signatures
# ---------------------------------------------------------------------------------------------


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name = f"{base}_{n}"
        n += 1
    taken.add(name)
    return name


def python_name(name: str, taken: set[str] | None = None, *, reserved: Iterable[str] = RESERVED_NAMES) -> str:
    """The method name of a tool (the rule also names parameters).

    Every character other than ``A-Z a-z 0-9 _`` becomes ``_``; a name that starts with a digit
    gets the prefix ``tool_``; a Python keyword or a name in ``reserved`` (``reset``,
    ``get_reward``) gets the suffix ``_tool``; a name already in ``taken`` gets ``_2``, ``_3``...
    The result is added to ``taken``. Silo tool names (``^[A-Za-z0-9][A-Za-z0-9._-]*$``,
    silo-format §12.1) are mostly identifiers already and then stay as they are.
    """
    base = _NOT_IDENTIFIER.sub("_", name) or "tool"
    if base[0].isdigit():
        base = f"tool_{base}"
    if keyword.iskeyword(base) or base in set(reserved):
        base = f"{base}_tool"
    return _unique(base, taken if taken is not None else set())


def _parameter_name(name: str, taken: set[str]) -> str:
    base = _NOT_IDENTIFIER.sub("_", name) or "arg"
    if base[0].isdigit():
        base = f"arg_{base}"
    if keyword.iskeyword(base) or base == "self":
        base = f"{base}_"
    return _unique(base, taken)


def _type_hint(schema: Any) -> Any:
    """The Python type hint transformers turns back into (as much as it can of) ``schema``."""
    if not isinstance(schema, Mapping):
        return Any
    enum = [schema["const"]] if "const" in schema else schema.get("enum")
    if isinstance(enum, list) and enum and all(type(v) in (str, int, float, bool, type(None)) for v in enum):
        return Literal[tuple(enum)]
    kind = schema.get("type")
    if isinstance(kind, list):
        hints = [_type_hint({**schema, "type": k}) for k in kind if isinstance(k, str)]
        return Union[tuple(hints)] if hints else Any  # noqa: UP007  (built at run time)
    for key in ("anyOf", "oneOf"):
        choices = schema.get(key)
        if isinstance(choices, list) and choices:
            return Union[tuple(_type_hint(c) for c in choices)]  # noqa: UP007
    if isinstance(kind, str) and kind in _SCALAR_TYPES:
        return _SCALAR_TYPES[kind]
    if kind == "array":
        items = schema.get("items")
        return list[_type_hint(items)] if isinstance(items, Mapping) else list  # type: ignore[misc]
    if kind == "object":
        extra = schema.get("additionalProperties")
        if not schema.get("properties") and isinstance(extra, Mapping):
            return dict[str, _type_hint(extra)]  # type: ignore[misc]
        return dict
    return Any


def _needs_schema_text(schema: Mapping[str, Any]) -> bool:
    """Whether a property's structure is lost in its type hint (nested object properties)."""
    if schema.get("type") == "object" and schema.get("properties"):
        return True
    items = schema.get("items")
    return schema.get("type") == "array" and isinstance(items, Mapping) and _needs_schema_text(items)


def _one_line(text: Any) -> str:
    return " ".join(str(text).split()) if text else ""


def _argument_description(name: str, schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return f"The {name} value."
    text = _SECTION_WORDS.sub(r"\1 :", _one_line(schema.get("description"))) or f"The {name} value."
    notes = []
    if "default" in schema:
        notes.append(f"default: {dumps_compact(schema['default'])}")
    notes += [f"{key}: {dumps_compact(schema[key])}" for key in _CONSTRAINT_KEYS if key in schema]
    if _needs_schema_text(schema):
        notes.append("schema: " + dumps_compact({k: v for k, v in schema.items() if k != "description"}))
    if notes:
        text = f"{text} ({'; '.join(notes)})"
    if _CHOICES_AT_END.search(text):
        text += "."  # transformers would read a trailing "(choices: ...)" as an enum
    return text


def tool_signature(tool: Mapping[str, Any]) -> tuple[inspect.Signature, dict[str, Any], str, dict[str, str]]:
    """What a tool's method declares to ``transformers.utils.get_json_schema``.

    Args:
        tool: one entry of ``info["tools"]`` (``{"name", "description", "inputSchema"}``).

    Returns:
        ``(signature, annotations, docstring, argument_names)``: the signature (``self``, then one
        keyword parameter per ``inputSchema`` property, in schema order; required properties
        have no default, the others the schema's ``default`` or ``None``), the type hints, the
        Google-style docstring, and the map from parameter names back to property names.

    The schema as transformers rebuilds it: ``string``/``integer``/``number``/``boolean``/``null``
    become ``str``/``int``/``float``/``bool``/``None``; ``enum``/``const`` of JSON scalars a
    ``Literal``; a list of types or ``anyOf``/``oneOf`` a ``Union``; ``array`` ``list[items]``;
    ``object`` ``dict`` (``dict[str, V]`` for ``additionalProperties``). What no type hint can say
    goes into the argument's description: ``default``, bounds (``minimum``...), ``pattern``,
    ``format``, and the JSON schema of nested object properties. ``additionalProperties: false``
    is not shown; the env still refuses unknown arguments. Property names that are not Python
    identifiers (or are keywords, or ``self``) are renamed by :func:`python_name`'s rule with
    the prefix ``arg_`` and the suffix ``_``; the method maps them back.
    """
    name = str(tool.get("name", ""))
    raw = tool.get("inputSchema")
    schema: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    raw = schema.get("properties")
    properties: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    raw = schema.get("required")
    required = set(raw) if isinstance(raw, list) else set()
    taken: set[str] = set()
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
    annotations: dict[str, Any] = {}
    argument_names: dict[str, str] = {}
    lines = []
    for prop, prop_schema in properties.items():
        py = _parameter_name(str(prop), taken)
        argument_names[py] = str(prop)
        hint = _type_hint(prop_schema)
        if prop in required:
            default: Any = inspect.Parameter.empty
        else:
            default = prop_schema.get("default") if isinstance(prop_schema, Mapping) else None
        parameters.append(inspect.Parameter(py, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
        annotations[py] = hint
        lines.append(f"    {py}: {_argument_description(str(prop), prop_schema)}")
    description = _SECTION_WORDS.sub(r"\1 :", str(tool.get("description") or "").strip())
    doc = description or f"Call the {name} tool."
    if lines:
        doc += "\n\nArgs:\n" + "\n".join(lines)
    return inspect.Signature(parameters), annotations, doc, argument_names


def _tool_method(silo_name: str, method_name: str, tool: Mapping[str, Any]) -> Callable[..., str]:
    signature, annotations, doc, argument_names = tool_signature(tool)

    def method(self: SiloToolEnvironment, /, **arguments: Any) -> str:
        # The real parameters are **arguments: a missing, unknown or wrongly typed argument
        # reaches env.step and is answered by the silo env's own validation.
        tool_input = {argument_names.get(k, k): v for k, v in arguments.items()}
        return self._call_tool(silo_name, tool_input)

    method.__name__ = method_name
    method.__qualname__ = method_name
    method.__doc__ = doc
    method.__annotations__ = annotations
    method.__signature__ = signature  # type: ignore[attr-defined]
    return method


# ---------------------------------------------------------------------------------------------
# The environment class
# ---------------------------------------------------------------------------------------------


def _text(content: Any) -> str:
    """A message content as text (``None`` -> ``""``; text parts of a list joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    return str(content)


def _prompt_ends_with(prompt: Any, text: str) -> bool:
    if not isinstance(prompt, list) or not prompt or not isinstance(prompt[-1], Mapping):
        return False
    return _text(prompt[-1].get("content")).rstrip().endswith(text.rstrip())


class SiloToolEnvironment:
    """Base of the classes :func:`environment_factory` makes; one instance serves one rollout at
    a time (TRL pools and resets them).

    Its only public method is :meth:`reset`; the subclass adds one method per tool. After an
    episode ended these attributes hold it: ``reward_value`` (the reward of the final step),
    ``result`` (the ``result.json`` dict), ``info`` (the final step's info; ``run_dir`` under
    ``runs_dir``). ``env`` is the Gymnasium env (wrapped in ``RecordRun`` with ``runs_dir``);
    ``task_id`` and ``reset_info`` describe the current episode.
    """

    #: Set on each generated class.
    env_id: str = ""
    environment: str = ""
    task_ids: tuple[str, ...] = ()
    tool_names: Mapping[str, str] = {}
    _env_kwargs: Mapping[str, Any] = {}
    _runs_dir: str | None = None
    #: The curriculum told every ended rollout's ``passed`` (``environment_factory(curriculum=)``).
    curriculum: Any = None

    def __init__(self) -> None:
        env = gym.make(self.env_id, disable_env_checker=True, **dict(self._env_kwargs))
        self.env: gym.Env[Any, Any] = RecordRun(env, runs_dir=self._runs_dir) if self._runs_dir is not None else env
        self.task_id: str | None = None
        self.reset_info: dict[str, Any] = {}
        self._end: tuple[str, float, dict[str, Any]] | None = None
        self._item: Any = None  # the curriculum item of the running rollout

    # -- TRL's contract ---------------------------------------------------------------------------

    def reset(self, **row: Any) -> str | None:
        """Start the episode a data set row names; returns what TRL appends to the prompt.

        Reads ``task_id`` (required), ``seed`` (an int or ``None``), ``variant`` (passed as
        ``options["variant"]`` when the row has the column: a number, or ``None`` for the
        canonical world; without the column a variant env draws one from ``seed``) and
        ``environment`` (optional; must be this class's). Other columns are ignored. So the
        ``num_generations`` rollouts TRL starts from one row all play one world. Returns the task
        instruction, or ``None`` when the row's ``prompt`` already ends with it (as
        :func:`dataset` writes it). An unfinished previous episode is ended first
        (``agent_error``, "Episode abandoned by reset()").

        Raises:
            ValueError: a missing or unknown ``task_id``, another environment, a bad ``seed``.
        """
        task_id = row.get("task_id")
        if not isinstance(task_id, str):
            raise ValueError(
                f"reset() needs the row's task_id (one of {', '.join(self.task_ids)}), got {task_id!r}."
            )
        if task_id not in self.task_ids:
            raise ValueError(
                f'Task "{task_id}" is not one of this environment class\'s tasks: {", ".join(self.task_ids)}.'
            )
        environment = row.get("environment")
        if environment is not None and environment != self.environment:
            raise ValueError(
                f'The row is for environment "{environment}"; this class serves "{self.environment}" '
                "(pass a dict of factories to GRPOTrainer to mix environments)."
            )
        seed = row.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"The row's seed must be an int or None, got {seed!r}.")
        options: dict[str, Any] = {"task_id": task_id}
        if "variant" in row:
            options["variant"] = row["variant"]
        self._item = None
        instruction, info = self.env.reset(seed=seed, options=options)
        self.task_id = task_id
        self.reset_info = info
        self._end = None
        if self.curriculum is not None:
            self._item = (self.environment, task_id, info["variant"])
        return None if _prompt_ends_with(row.get("prompt"), instruction) else instruction

    # -- results ------------------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """The episode has ended (by an answer, a limit, or :func:`reward`)."""
        return self._end is not None

    @property
    def reward_value(self) -> float | None:
        """The reward of the step that ended the episode (``None`` while it runs)."""
        return self._end[1] if self._end is not None else None

    @property
    def info(self) -> dict[str, Any] | None:
        """The info of the step that ended the episode (``result``, ``state_diff``...)."""
        return self._end[2] if self._end is not None else None

    @property
    def result(self) -> dict[str, Any] | None:
        """The ``result.json`` dict of the ended episode."""
        return self._end[2]["result"] if self._end is not None else None

    # -- stepping -----------------------------------------------------------------------------------

    def _step(self, action: Any) -> str:
        if self._end is not None:
            return self._end[0]  # the episode is over (its budget or deadline ended it)
        if self.task_id is None:
            raise RuntimeError("reset() must be called before a tool call.")
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            self._end = (obs, float(reward), info)
            if self._item is not None:
                item, self._item = self._item, None
                if item in self.curriculum:  # rows from outside the curriculum are not reported
                    self.curriculum.update(item, bool(info["passed"]))
        return obs  # type: ignore[no-any-return]

    def _call_tool(self, name: str, tool_input: dict[str, Any]) -> str:
        return self._step({"tool": name, "input": tool_input})

    def _unrun_calls(self, messages: Sequence[Any]) -> list[Any]:
        """The calls of a completion that TRL answered without calling a method (module docs)."""
        actions: list[Any] = []
        assistant = [m for m in messages if isinstance(m, Mapping) and m.get("role") == "assistant"]
        for message in assistant:
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(call, Mapping) or call.get("type", "function") != "function" \
                        or not isinstance(function, Mapping):
                    actions.append({"tool": "", "input": copy.deepcopy(call)})
                    continue
                name, arguments = function.get("name"), function.get("arguments")
                if not isinstance(name, str) or name not in self.tool_names:
                    actions.append({"tool": name, "input": copy.deepcopy(arguments)})
                elif not isinstance(arguments, Mapping):
                    actions.append({"tool": self.tool_names[name], "input": copy.deepcopy(arguments)})
        if assistant and not assistant[-1].get("tool_calls"):
            text = _text(assistant[-1].get("content"))
            if "<tool_call>" in text:
                actions += parse_reply(text) or []
        return actions

    def _finish_rollout(self, completion: Any) -> float:
        """End the episode with the completion's final text as the answer (see :func:`reward`)."""
        if self._end is None:
            if self.task_id is None:
                raise RuntimeError("reward() was called for an environment that was never reset.")
            messages = completion if isinstance(completion, list) else [{"role": "assistant", "content": completion}]
            for action in self._unrun_calls(messages):
                self._step(action)
                if self._end is not None:
                    break
            final = [m for m in messages if isinstance(m, Mapping) and m.get("role") == "assistant"]
            self._step({"answer": _text(final[-1].get("content")) if final else ""})
        assert self._end is not None
        return self._end[1]


def environment_factory(
    env_ids: str | Iterable[str],
    *,
    runs_dir: str | None = None,
    reward_mode: Literal["fraction", "binary"] = "fraction",
    max_completion_length: int | None = None,
    curriculum: Any = None,
    tools: Sequence[str] | None = None,
    **env_kwargs: Any,
) -> type[SiloToolEnvironment]:
    """An environment class for ``GRPOTrainer(environment_factory=...)`` over silo tasks.

    Args:
        env_ids: Gymnasium ids of one silo environment: ``silo/<env>`` (all its tasks) and/or
            ``silo/<env>-<TASK>`` (one task each); ``<env>`` alone means ``silo/<env>``. The
            rows' ``task_id`` must be one of these tasks.
        runs_dir: record every rollout as a Silo run there (``RecordRun``).
        reward_mode: ``"fraction"`` (the verifier's reward, as in ``result.json``) or ``"binary"``.
            Not ``"shaped"``: TRL scores a rollout once, at its end, where the shaping terms of
            ``reward_mode="shaped"`` add up to a constant of the start world.
        max_completion_length: ``GRPOConfig.max_completion_length``; sets ``max_observation_length``
            to :func:`observation_limit` of it (unless ``max_observation_length`` is given).
        curriculum: a :class:`~silo_gym.curriculum.Curriculum` to tell every ended rollout's
            ``passed`` (the rollouts of its items; train on :func:`curriculum_dataset` of it).
        tools: the names of the tools offered to the model as methods (and so rendered into its
            prompt), in any order; ``None``: every tool. The env keeps its whole tool list: a call
            to a tool left out is answered by TRL as unknown and then stepped by :func:`reward`
            like any call TRL answers itself. A way to fit a small model's context
            (docs/learning.md).
        env_kwargs: passed to ``gym.make`` (``max_tool_calls``, ``timeout_ms``, ``variants``...).

    Returns:
        A subclass of :class:`SiloToolEnvironment` with one method per tool, named by
        :func:`python_name` and typed by :func:`tool_signature`. Each call steps the env, which
        answers with the tool result's JSON text; a call after a limit ended the episode gets the
        ending observation again. Use it with :func:`reward` and rows from :func:`dataset`.

    Raises:
        ValueError: ids of several environments, no id, both ``max_completion_length`` and
            ``max_observation_length``, or a ``reward_mode`` other than the two above.
        gymnasium.error.Error: an unknown id.
    """
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    if not ids:
        raise ValueError("environment_factory needs at least one silo id.")
    if reward_mode not in ("fraction", "binary"):
        raise ValueError(
            f'reward_mode must be "fraction" or "binary" for TRL, got {reward_mode!r}: TRL scores a rollout once, '
            'at its end, where "shaped" progress terms sum to a constant of the start world. Weight the reward\'s '
            "parts instead (reward_funcs=[reward, passed, required_fraction])."
        )
    if curriculum is not None:
        from ..curriculum import Curriculum

        if not isinstance(curriculum, Curriculum):
            raise TypeError(f"curriculum must be a silo_gym.curriculum.Curriculum, got {type(curriculum).__name__}.")
    if max_completion_length is not None:
        if "max_observation_length" in env_kwargs:
            raise ValueError("Give max_completion_length or max_observation_length, not both.")
        env_kwargs["max_observation_length"] = observation_limit(max_completion_length)
    env_kwargs["reward_mode"] = reward_mode
    plans = plan_envs(ids, env_kwargs)
    names = sorted({p.environment for p in plans})
    if len(names) != 1:
        raise ValueError(
            f"environment_factory takes ids of one environment (one tool set); got {', '.join(names)}. "
            "Pass GRPOTrainer a dict {name: environment_factory(...)} to mix environments."
        )
    environment = names[0]
    task_ids = tuple(dict.fromkeys(t for p in plans for t in p.task_ids))
    env_id = f"silo/{environment}"
    probe = gym.make(env_id, disable_env_checker=True, **env_kwargs)
    try:
        env_tools = probe.unwrapped.fresh_tool_list()  # type: ignore[attr-defined]
    finally:
        probe.close()
    if tools is not None:
        offered = [tools] if isinstance(tools, str) else list(tools)
        unknown = sorted(set(offered) - {t["name"] for t in env_tools})
        if unknown:
            raise ValueError(f'tools names {", ".join(unknown)}, not tools of environment "{environment}" '
                             f'(its tools: {", ".join(t["name"] for t in env_tools)}).')
        env_tools = [t for t in env_tools if t["name"] in set(offered)]
    taken: set[str] = set()
    members: dict[str, Any] = {}
    tool_names: dict[str, str] = {}
    for tool in env_tools:
        method_name = python_name(tool["name"], taken)
        tool_names[method_name] = tool["name"]
        members[method_name] = _tool_method(tool["name"], method_name, tool)
    class_name = "Silo" + "".join(p.capitalize() for p in _NOT_IDENTIFIER.sub("_", environment).split("_")) + "Env"
    members.update({
        "__module__": __name__,
        "__doc__": f'The tools of silo environment "{environment}" for TRL (silo_gym.integrations.trl).',
        "env_id": env_id,
        "environment": environment,
        "task_ids": task_ids,
        "tool_names": tool_names,
        "_env_kwargs": dict(env_kwargs),
        "_runs_dir": None if runs_dir is None else str(runs_dir),
        "curriculum": curriculum,
    })
    return type(class_name, (SiloToolEnvironment,), members)


def observation_limit(max_completion_length: int, chars_per_token: float = 1.0) -> int:
    """``max_observation_length`` (characters) for a completion budget of ``max_completion_length``
    tokens: ``max(MIN_OBSERVATION_LENGTH, int(max_completion_length * chars_per_token))``.

    Why: TRL counts tool results in the completion. A result that would push the completion past
    ``max_completion_length`` is dropped from the model's view and the rollout ends there,
    although the env ran the call. A result longer than the limit is replaced by the env's short
    ``observation_too_large`` error instead, which the model sees and can act on (page with
    ``limit``/``offset``). With the default ``chars_per_token=1.0`` no kept result is longer in
    tokens than the whole budget for ASCII text under a byte-level tokenizer (a token holds at
    least one byte); raise it to your tokenizer's measured ratio to allow longer results.

    Raises:
        ValueError: a budget that is not a positive int, or a ratio that is not positive.
    """
    if isinstance(max_completion_length, bool) or not isinstance(max_completion_length, int) \
            or max_completion_length <= 0:
        raise ValueError(f"max_completion_length must be a positive int, got {max_completion_length!r}.")
    if not chars_per_token > 0:
        raise ValueError(f"chars_per_token must be positive, got {chars_per_token!r}.")
    return max(MIN_OBSERVATION_LENGTH, int(max_completion_length * chars_per_token))


# ---------------------------------------------------------------------------------------------
# Reward and data
# ---------------------------------------------------------------------------------------------


def reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
           environments: Sequence[Any] | None = None, **kwargs: Any) -> list[float | None]:
    """TRL reward function: the verifier's reward of each rollout.

    For each rollout whose environment is a :class:`SiloToolEnvironment` whose episode is still
    open, the calls TRL answered itself are stepped (module docs), then the episode ends with the
    final assistant message's text as the answer (``{"answer": text}``); an episode a limit ended
    already keeps its graded reward. The value is the final step's reward, equal to
    ``result.json``'s ``reward`` (with ``reward_mode="fraction"``). Other environments get
    ``None`` (TRL skips them).

    Raises:
        ValueError: called without ``environments`` (use it with ``environment_factory``).
    """
    if environments is None or completions is None:
        raise ValueError("silo_gym's reward needs completions and environments= (use it with environment_factory).")
    return [env._finish_rollout(completion) if isinstance(env, SiloToolEnvironment) else None
            for env, completion in zip(environments, completions, strict=True)]


def _ended_infos(completions: Sequence[Any] | None, environments: Sequence[Any] | None,
                 name: str) -> list[dict[str, Any] | None]:
    """End every rollout as :func:`reward` does; the final step's info of each (``None`` for
    environments that are not silo ones)."""
    if environments is None or completions is None:
        raise ValueError(f"silo_gym's {name} needs completions and environments= (use it with environment_factory).")
    infos: list[dict[str, Any] | None] = []
    for env, completion in zip(environments, completions, strict=True):
        if isinstance(env, SiloToolEnvironment):
            env._finish_rollout(completion)
            infos.append(env.info)
        else:
            infos.append(None)
    return infos


def passed(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
           environments: Sequence[Any] | None = None, **kwargs: Any) -> list[float | None]:
    """TRL reward function: 1.0 for each rollout whose episode passed (every required check),
    else 0.0; ``None`` for environments that are not silo ones. Ends open episodes as
    :func:`reward` does (whichever of the two runs first ends them; the other reads the same end).

    Raises:
        ValueError: called without ``environments``.
    """
    return [None if info is None else float(info["passed"])
            for info in _ended_infos(completions, environments, "passed")]


def required_fraction(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                      environments: Sequence[Any] | None = None, **kwargs: Any) -> list[float | None]:
    """TRL reward function: the fraction of required checks each rollout's final world (and
    answer) passed, ``info["required_fraction"]`` (:mod:`silo_gym.components`); ``None`` for
    environments that are not silo ones. Ends open episodes as :func:`reward` does.

    Raises:
        ValueError: called without ``environments``.
    """
    return [None if info is None else float(info["required_fraction"])
            for info in _ended_infos(completions, environments, "required_fraction")]


def optional_fraction(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                      environments: Sequence[Any] | None = None, **kwargs: Any) -> list[float | None]:
    """TRL reward function: the fraction of optional checks passed, ``info["optional_fraction"]``
    (1.0 for a task without optional checks); ``None`` for environments that are not silo ones.
    Ends open episodes as :func:`reward` does.

    Raises:
        ValueError: called without ``environments``.
    """
    return [None if info is None else float(info["optional_fraction"])
            for info in _ended_infos(completions, environments, "optional_fraction")]


def _prompt(instruction: str, system_prompt: str) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    messages.append({"role": "user", "content": instruction})
    return messages


def _prompt_features(datasets: Any) -> Any:
    """The columns of :func:`dataset` and :func:`curriculum_dataset` rows, typed (``variant`` is a
    nullable int, also when every row is canonical)."""
    return datasets.Features({
        "prompt": datasets.List({"role": datasets.Value("string"), "content": datasets.Value("string")}),
        "task_id": datasets.Value("string"), "seed": datasets.Value("int64"), "variant": datasets.Value("int64"),
        "environment": datasets.Value("string"),
    })


def dataset(env_ids: str | Iterable[str], *, repeats: int = 1, seed: int = 0,
            system_prompt: str | None = None, episode_variants: Mapping[str, Sequence[int | None]] | None = None,
            **env_kwargs: Any) -> Any:
    """The prompts of a GRPO run as a ``datasets.Dataset``: ``repeats`` rows per task.

    Columns: ``prompt`` (the system prompt, :data:`~silo_gym.llm.DEFAULT_SYSTEM_PROMPT` unless
    given, ``""`` for none, and the task instruction as user message), ``task_id``, ``seed``
    (repeat ``i`` of a task gets ``silo_gym.data.episode_seed(seed, environment, task_id, i)``, as
    ``collect`` does), ``variant`` (the variant that seed draws with ``variants=True``, else
    ``None``: the canonical world) and ``environment`` (the silo environment, also the key for a
    dict of factories). Tasks in id order. The instruction is the one ``reset`` shows for that
    seed (a variant env renders its own; pass the same ``env_kwargs`` as to
    :func:`environment_factory`).

    Group starts: TRL resets all ``num_generations`` rollouts of a prompt with its row, and
    ``reset`` passes the row's ``seed`` and ``variant`` on, so every rollout of a group starts
    from the same world with the same instruction, whichever process or environment instance
    plays it; different rows (``repeats``, tasks) are different groups, on different variant
    worlds with ``variants=True``.

    Chosen worlds: ``episode_variants`` maps ``"<environment>/<task_id>"`` to a list whose entry
    ``i`` is the variant repeat ``i`` plays (``None``: the canonical world), as for
    :func:`silo_gym.data.collect`; tasks it leaves out draw theirs from the seed as above. So a
    training set can name its variants and keep held-out ones out (docs/learning.md).

    Raises:
        ValueError: ``repeats`` < 1, or a list of ``episode_variants`` shorter than ``repeats``.
        ImportError: ``datasets`` is missing (``pip install "silo-gym[trl]"``).
    """
    from ..data.collect import check_episode_variants

    worlds = check_episode_variants(episode_variants, repeats) or {}
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}.")
    try:
        import datasets
    except ImportError as exc:
        raise ImportError('silo_gym.integrations.trl.dataset needs datasets: pip install "silo-gym[trl]"') from exc
    system = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    rows: dict[str, list[Any]] = {"prompt": [], "task_id": [], "seed": [], "variant": [], "environment": []}
    for plan in plan_envs(ids, env_kwargs):
        env = gym.make(f"silo/{plan.environment}", disable_env_checker=True, **env_kwargs)
        try:
            for task_id in plan.task_ids:
                for i in range(repeats):
                    s = episode_seed(seed, plan.environment, task_id, i)
                    options: dict[str, Any] = {"task_id": task_id}
                    chosen = worlds.get(f"{plan.environment}/{task_id}")
                    if chosen is not None:
                        options["variant"] = chosen[i]
                    instruction, info = env.reset(seed=s, options=options)
                    rows["prompt"].append(_prompt(instruction, system))
                    rows["task_id"].append(task_id)
                    rows["seed"].append(s)
                    rows["variant"].append(info["variant"])
                    rows["environment"].append(plan.environment)
        finally:
            env.close()
    return datasets.Dataset.from_dict(rows, features=_prompt_features(datasets))


def curriculum_dataset(curriculum: Any, *, num_rows: int | None = None, seed: int = 0,
                       system_prompt: str | None = None, **env_kwargs: Any) -> Any:
    """Prompts drawn from a curriculum, as a ``datasets.IterableDataset`` (one environment).

    Each row is drawn when TRL asks for it: the next :meth:`Curriculum.sample` item gives
    ``task_id`` and ``variant``, the row's ``seed`` is ``episode_seed(seed, environment, task_id,
    i)`` for the item's ``i``-th draw, and ``prompt`` is the instruction of that world (columns as
    :func:`dataset`'s, so every rollout of a prompt resets to its world). Pass the same
    ``curriculum`` to :func:`environment_factory` so that each rollout's ``passed`` reaches it.
    TRL draws a generation batch ahead of the rewards it then computes, so the sampler sees the
    results of earlier batches. Use ``GRPOConfig(shuffle_dataset=False)`` (a shuffle buffer would
    draw its whole buffer before any result) and set ``max_steps`` (TRL asks it of an iterable).

    Args:
        curriculum: a :class:`~silo_gym.curriculum.Curriculum` over tasks of one environment.
        num_rows: stop after this many rows (``None``: never stop).
        seed: the base of the rows' seeds.
        system_prompt: as for :func:`dataset`.
        env_kwargs: ``gym.make`` kwargs of the env the prompts are rendered on (as for
            :func:`environment_factory`).

    Raises:
        ValueError: items of several environments, or a bad ``num_rows``.
        ImportError: ``datasets`` is missing (``pip install "silo-gym[trl]"``).
    """
    from ..curriculum import Curriculum

    if not isinstance(curriculum, Curriculum):
        raise TypeError(f"curriculum must be a silo_gym.curriculum.Curriculum, got {type(curriculum).__name__}.")
    if num_rows is not None and (isinstance(num_rows, bool) or not isinstance(num_rows, int) or num_rows < 0):
        raise ValueError(f"num_rows must be an int >= 0 or None, got {num_rows!r}.")
    names = sorted({item.environment for item in curriculum.items})
    if len(names) != 1:
        raise ValueError(f"curriculum_dataset serves one environment; the curriculum has items of {', '.join(names)}.")
    try:
        import datasets
    except ImportError as exc:
        raise ImportError('silo_gym.integrations.trl.curriculum_dataset needs datasets: pip install "silo-gym[trl]"') \
            from exc
    environment = names[0]
    system = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt

    def rows() -> Iterator[dict[str, Any]]:
        env = gym.make(f"silo/{environment}", disable_env_checker=True, **env_kwargs)
        drawn: dict[Any, int] = {}
        made = 0
        try:
            while num_rows is None or made < num_rows:
                item = curriculum.sample()
                i = drawn.get(item, 0)
                drawn[item] = i + 1
                s = episode_seed(seed, environment, item.task_id, i)
                instruction, _ = env.reset(seed=s, options={"task_id": item.task_id, "variant": item.variant})
                made += 1
                yield {"prompt": _prompt(instruction, system), "task_id": item.task_id, "seed": s,
                       "variant": item.variant, "environment": environment}
        finally:
            env.close()

    return datasets.IterableDataset.from_generator(rows, features=_prompt_features(datasets))


def tool_schemas(env_class: type[SiloToolEnvironment]) -> list[dict[str, Any]]:
    """The tool schemas TRL renders into the prompt for ``env_class``: ``get_json_schema`` of each
    tool method, in the order TRL lists them (by method name: it finds them with
    ``inspect.getmembers``), so SFT prompts and GRPO prompts render alike. Needs ``transformers``."""
    from transformers.utils import get_json_schema

    return [get_json_schema(getattr(env_class, name)) for name in sorted(env_class.tool_names)]


def sft_dataset(rows: Iterable[Mapping[str, Any]], env_class: type[SiloToolEnvironment], *,
                min_reward: float | None = None) -> Any:
    """Successful episode rows as a TRL conversational SFT ``datasets.Dataset`` whose prompts render
    like the GRPO prompts of ``env_class``.

    It is :func:`silo_gym.data.sft_rows` with ``tools`` = :func:`tool_schemas` of ``env_class`` and
    tool names mapped to its method names, stored with ``messages`` as a list of ``datasets.Json``
    (tool-call ``arguments`` differ from call to call, which a fixed Arrow struct would pad with
    nulls) and ``tools`` as JSON text (TRL's ``SFTTrainer`` parses it).

    Raises:
        ImportError: ``datasets`` >= 4.7 or ``transformers`` is missing.
    """
    from ..data.sft import sft_rows

    try:
        import datasets
        from datasets import Features, Json, Value
    except ImportError as exc:
        raise ImportError('sft_dataset needs datasets>=4.7: pip install "silo-gym[trl]"') from exc
    names = {silo: py for py, silo in env_class.tool_names.items()}
    out = sft_rows(rows, tools=tool_schemas(env_class), tool_names=names, min_reward=min_reward)
    features = Features({"messages": datasets.List(Json()), "tools": Value("string"),
                         "environment": Value("string"), "task_id": Value("string")})
    return datasets.Dataset.from_list(out, features=features)
