"""Tool schemas, tool calls and tool results in the formats of the big LLM APIs (gym-api.md,
"LLM policies").

Three API surfaces are supported, named as in the trace's ``model_step.api`` (silo-format §6.5):

``"chat"``
    OpenAI Chat Completions (and every OpenAI-compatible server: vLLM, Ollama, llama.cpp, TGI...).
    Tools are ``{"type": "function", "function": {"name", "description", "parameters"}}``; a call
    is ``{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`` in the
    assistant message's ``tool_calls``; a result is ``{"role": "tool", "tool_call_id", "content"}``.
``"responses"``
    OpenAI Responses. Tools are ``{"type": "function", "name", "description", "parameters",
    "strict": False}``; a call is an output item ``{"type": "function_call", "call_id", "name",
    "arguments"}``; a result is the input item ``{"type": "function_call_output", "call_id",
    "output"}``.
``"anthropic"``
    Anthropic Messages. Tools are ``{"name", "description", "input_schema"}``; a call is a content
    block ``{"type": "tool_use", "id", "name", "input": {...}}``; a result is the block
    ``{"type": "tool_result", "tool_use_id", "content", "is_error"?}`` inside a user message.

Every converter returns fresh objects (schemas are deep-copied), so a caller may change what it
gets back. Converting tool calls to actions never raises: arguments that are not a JSON object
become ``{"tool": name, "input": <the raw arguments>}``, which the env answers with
``invalid_action`` (and counts), so a model that writes broken JSON sees its mistake.

Empty arguments (``""``, only whitespace, or ``None``) mean "no arguments" and give
``{"tool": name, "input": {}}`` (our rule: several servers send ``""`` for a call without
parameters).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ..jsonfmt import dumps_compact, loads_strict
from .replies import anthropic_reply, chat_message, responses_output

__all__ = [
    "API",
    "APIS",
    "ToolCallRef",
    "action_to_anthropic_tool_use",
    "action_to_chat_tool_call",
    "action_to_responses_call",
    "anthropic_tool_result",
    "anthropic_tool_use_to_action",
    "arguments_to_action",
    "chat_tool_call_to_action",
    "chat_tool_result",
    "normalize_reply",
    "observation_is_error",
    "reply_text",
    "reply_tool_calls",
    "responses_call_to_action",
    "responses_tool_result",
    "set_call_id",
    "split_anthropic_system",
    "to_anthropic_tools",
    "to_chat_messages",
    "to_openai_chat_tools",
    "to_openai_responses_tools",
    "tool_result_message",
]

API = Literal["chat", "responses", "anthropic", "text"]
#: The API surfaces of ``model_step.api`` (silo-format §6.5).
APIS: tuple[str, ...] = ("chat", "responses", "anthropic", "text")


def get_field(obj: Any, key: str, default: Any = None) -> Any:
    """``obj[key]`` for mappings, ``obj.key`` for SDK objects (pydantic models), else default."""
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def as_plain(obj: Any) -> Any:
    """An SDK object (pydantic model) as plain dicts and lists; plain values unchanged."""
    dump = getattr(obj, "model_dump", None)
    if callable(dump) and not isinstance(obj, Mapping):
        try:
            return dump(exclude_none=True)
        except TypeError:
            return dump()
    return obj


def _tool_fields(tool: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    name = tool["name"]
    description = tool.get("description") or ""
    schema = tool.get("inputSchema")
    if schema is None:
        schema = tool.get("input_schema")
    if not isinstance(schema, Mapping):
        schema = {"type": "object", "properties": {}}
    return name, description, copy.deepcopy(dict(schema))


# ---------------------------------------------------------------------------------------------
# Tool schemas
# ---------------------------------------------------------------------------------------------


def to_openai_chat_tools(tools: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``info["tools"]`` as OpenAI Chat Completions ``tools``:
    ``[{"type": "function", "function": {"name", "description", "parameters"}}]``."""
    out = []
    for tool in tools:
        name, description, schema = _tool_fields(tool)
        out.append({"type": "function", "function": {"name": name, "description": description, "parameters": schema}})
    return out


def to_openai_responses_tools(tools: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``info["tools"]`` as OpenAI Responses ``tools``:
    ``[{"type": "function", "name", "description", "parameters", "strict": False}]``.

    ``strict`` is ``False`` because Silo schemas need not meet strict mode's rules (every property
    required, ``additionalProperties: false``); the env validates inputs itself.
    """
    out = []
    for tool in tools:
        name, description, schema = _tool_fields(tool)
        out.append({"type": "function", "name": name, "description": description, "parameters": schema,
                    "strict": False})
    return out


def to_anthropic_tools(tools: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``info["tools"]`` as Anthropic Messages ``tools``: ``[{"name", "description", "input_schema"}]``."""
    out = []
    for tool in tools:
        name, description, schema = _tool_fields(tool)
        out.append({"name": name, "description": description, "input_schema": schema})
    return out


# ---------------------------------------------------------------------------------------------
# Tool calls -> actions
# ---------------------------------------------------------------------------------------------


def arguments_to_action(name: Any, arguments: Any) -> dict[str, Any]:
    """One tool call's name and arguments (JSON text or an already-parsed value) as an action.

    A JSON object gives ``{"tool": name, "input": obj}``; empty arguments give ``input`` ``{}``;
    anything else (text that is not JSON, JSON that is not an object, a non-dict value) gives
    ``{"tool": name, "input": <arguments as received>}``, which the env answers with
    ``invalid_action``.
    """
    if arguments is None:
        return {"tool": name, "input": {}}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {"tool": name, "input": {}}
        try:
            parsed = loads_strict(arguments)
        except ValueError:
            return {"tool": name, "input": arguments}
        if isinstance(parsed, dict):
            return {"tool": name, "input": parsed}
        return {"tool": name, "input": arguments}
    if isinstance(arguments, Mapping):
        return {"tool": name, "input": copy.deepcopy(dict(arguments))}
    return {"tool": name, "input": copy.deepcopy(arguments)}


def chat_tool_call_to_action(call: Any) -> dict[str, Any]:
    """A Chat Completions tool call (``{"id", "type", "function": {"name", "arguments"}}``, or the
    SDK object) as an action."""
    function = get_field(call, "function") or {}
    return arguments_to_action(get_field(function, "name"), get_field(function, "arguments"))


def responses_call_to_action(item: Any) -> dict[str, Any]:
    """A Responses ``function_call`` item (``{"type", "call_id", "name", "arguments"}``) as an action."""
    return arguments_to_action(get_field(item, "name"), get_field(item, "arguments"))


def anthropic_tool_use_to_action(block: Any) -> dict[str, Any]:
    """An Anthropic ``tool_use`` block (``{"type", "id", "name", "input"}``) as an action.

    ``input`` is normally a dict already; a string is parsed like Chat arguments.
    """
    return arguments_to_action(get_field(block, "name"), get_field(block, "input"))


def _action_parts(action: Mapping[str, Any]) -> tuple[Any, Any]:
    if "tool" not in action:
        raise ValueError("Only tool-call actions have a provider tool-call form.")
    return action["tool"], action.get("input")


def _arguments_text(tool_input: Any) -> str:
    if tool_input is None:
        return "{}"
    if isinstance(tool_input, str):
        return tool_input  # malformed arguments are kept as the model wrote them
    return dumps_compact(tool_input)


def action_to_chat_tool_call(action: Mapping[str, Any], call_id: str) -> dict[str, Any]:
    """A tool-call action as a Chat Completions tool call (the inverse of
    :func:`chat_tool_call_to_action`); ``arguments`` is compact JSON (a raw string input is kept)."""
    name, tool_input = _action_parts(action)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": _arguments_text(tool_input)}}


def action_to_responses_call(action: Mapping[str, Any], call_id: str) -> dict[str, Any]:
    """A tool-call action as a Responses ``function_call`` item."""
    name, tool_input = _action_parts(action)
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": _arguments_text(tool_input)}


def action_to_anthropic_tool_use(action: Mapping[str, Any], call_id: str) -> dict[str, Any]:
    """A tool-call action as an Anthropic ``tool_use`` block (``input`` stays a value, not text)."""
    name, tool_input = _action_parts(action)
    return {"type": "tool_use", "id": call_id, "name": name,
            "input": {} if tool_input is None else copy.deepcopy(tool_input)}


# ---------------------------------------------------------------------------------------------
# Observations -> tool results
# ---------------------------------------------------------------------------------------------


def observation_is_error(observation: str) -> bool:
    """True when an observation is a tool result with ``"isError": true``."""
    if '"isError":true' not in observation:
        return False
    try:
        value = loads_strict(observation)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("isError") is True


def chat_tool_result(call_id: str, observation: str) -> dict[str, Any]:
    """The Chat Completions tool message for one call: ``{"role": "tool", "tool_call_id", "content"}``."""
    return {"role": "tool", "tool_call_id": call_id, "content": observation}


def responses_tool_result(call_id: str, observation: str) -> dict[str, Any]:
    """The Responses input item for one call: ``{"type": "function_call_output", "call_id", "output"}``."""
    return {"type": "function_call_output", "call_id": call_id, "output": observation}


def anthropic_tool_result(call_id: str, observation: str) -> dict[str, Any]:
    """The Anthropic ``tool_result`` block for one call; ``is_error`` is set for error results.

    The blocks of one turn go together in one ``{"role": "user", "content": [...]}`` message
    (Anthropic wants every result of a turn in the next user message).
    """
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": observation}
    if observation_is_error(observation):
        block["is_error"] = True
    return block


def tool_result_message(api: str, call_id: str, observation: str) -> dict[str, Any]:
    """The tool-result message (chat), input item (responses) or block (anthropic) for one call."""
    if api == "chat":
        return chat_tool_result(call_id, observation)
    if api == "responses":
        return responses_tool_result(call_id, observation)
    if api == "anthropic":
        return anthropic_tool_result(call_id, observation)
    raise ValueError(f'api must be "chat", "responses" or "anthropic"; got {api!r}.')


# ---------------------------------------------------------------------------------------------
# Replies
# ---------------------------------------------------------------------------------------------


@dataclass
class ToolCallRef:
    """One tool call of a model reply: the provider's id (``None`` when it gave none), the tool
    name as written, and the action it becomes."""

    id: str | None
    name: Any
    action: dict[str, Any]


def _text_of_content(content: Any) -> str | None:
    """Chat/Anthropic content as text: a string as is; a list of parts joined; ``None`` stays."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = []
        for part in content:
            part = as_plain(part)
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type") in ("text", "output_text", "input_text"):
                parts.append(str(part.get("text") or ""))
        return "".join(parts)
    return str(content)


def normalize_reply(api: str, reply: Any) -> Any:
    """A model reply in the plain form the conversation keeps.

    - ``chat``: ``{"role": "assistant", "content": str | None, "tool_calls": [...]}`` (``tool_calls``
      only when there are some; each ``{"id", "type": "function", "function": {"name",
      "arguments"}}``; content parts are joined to text; other keys are dropped);
    - ``responses``: the list of output items (a whole response object gives its ``output``);
    - ``anthropic``: ``{"role": "assistant", "content": [blocks]}`` (a whole response object gives
      its role and content; a string content becomes one text block).

    SDK objects are turned into plain dicts first. Ids are left as they are (maybe missing).

    Raises:
        ModelReplyError: a whole reply that holds no assistant message (an ``{"error": ...}``
            body, no ``choices``, a null ``message``; :mod:`silo_gym.llm.replies`).
        TypeError: a chat reply that is not a message.
    """
    reply = as_plain(reply)
    if api == "chat":
        if isinstance(reply, str):
            return {"role": "assistant", "content": reply}
        if not isinstance(reply, Mapping):
            raise TypeError(f"A chat reply must be an assistant message dict, got {type(reply).__name__}.")
        if "role" not in reply and ("choices" in reply or "error" in reply
                                    or reply.get("object") == "chat.completion"):  # a whole ChatCompletion
            reply = as_plain(chat_message(reply))
            if not isinstance(reply, Mapping):
                raise TypeError(f"A chat reply must be an assistant message dict, got {type(reply).__name__}.")
        message: dict[str, Any] = {"role": "assistant", "content": _text_of_content(reply.get("content"))}
        calls = []
        for call in reply.get("tool_calls") or []:
            call = as_plain(call)
            function = as_plain(get_field(call, "function") or {})
            entry: dict[str, Any] = {}
            if get_field(call, "id") is not None:
                entry["id"] = get_field(call, "id")
            entry["type"] = "function"
            arguments = get_field(function, "arguments")
            if arguments is not None and not isinstance(arguments, str):
                arguments = dumps_compact(arguments)  # some servers send an object, not JSON text
            entry["function"] = {"name": get_field(function, "name"), "arguments": arguments}
            calls.append(entry)
        if calls:
            message["tool_calls"] = calls
        return message
    if api == "responses":
        if isinstance(reply, Mapping) and ("output" in reply or "error" in reply):  # a whole response
            reply = responses_output(reply)
        if isinstance(reply, Mapping):
            reply = [reply]
        if isinstance(reply, str):
            return [{"type": "message", "role": "assistant",
                     "content": [{"type": "output_text", "text": reply}]}]
        return [copy.deepcopy(as_plain(item)) for item in reply]
    if api == "anthropic":
        if isinstance(reply, str):
            return {"role": "assistant", "content": [{"type": "text", "text": reply}]}
        if isinstance(reply, Mapping):
            content = anthropic_reply(reply) if (reply.get("type") == "error" or "error" in reply) else \
                reply.get("content")
        else:
            content = reply
        if isinstance(content, str):
            blocks: list[Any] = [{"type": "text", "text": content}]
        else:
            blocks = [copy.deepcopy(as_plain(b)) for b in content or []]
        return {"role": "assistant", "content": blocks}
    raise ValueError(f'api must be "chat", "responses" or "anthropic"; got {api!r}.')


def reply_tool_calls(api: str, reply: Any) -> list[ToolCallRef]:
    """The tool calls of a normalized reply (:func:`normalize_reply`), in order."""
    refs: list[ToolCallRef] = []
    if api == "chat":
        for call in reply.get("tool_calls") or []:
            refs.append(ToolCallRef(call.get("id"), call["function"].get("name"), chat_tool_call_to_action(call)))
    elif api == "responses":
        for item in reply:
            if isinstance(item, Mapping) and item.get("type") == "function_call":
                refs.append(ToolCallRef(item.get("call_id"), item.get("name"), responses_call_to_action(item)))
    elif api == "anthropic":
        for block in reply.get("content") or []:
            if isinstance(block, Mapping) and block.get("type") == "tool_use":
                refs.append(ToolCallRef(block.get("id"), block.get("name"), anthropic_tool_use_to_action(block)))
    else:
        raise ValueError(f'api must be "chat", "responses" or "anthropic"; got {api!r}.')
    return refs


def reply_text(api: str, reply: Any) -> str:
    """The text of a normalized reply (``""`` when it has none): chat ``content``; the
    ``output_text`` parts of Responses ``message`` items; Anthropic ``text`` blocks, joined."""
    if api == "chat":
        return _text_of_content(reply.get("content")) or ""
    if api == "responses":
        texts = []
        for item in reply:
            if isinstance(item, Mapping) and item.get("type", "message") == "message":
                texts.append(_text_of_content(item.get("content")) or "")
        return "".join(texts)
    if api == "anthropic":
        return "".join(str(b.get("text") or "") for b in reply.get("content") or []
                       if isinstance(b, Mapping) and b.get("type") == "text")
    raise ValueError(f'api must be "chat", "responses" or "anthropic"; got {api!r}.')


def set_call_id(api: str, reply: Any, index: int, call_id: str) -> None:
    """Give the ``index``-th tool call of a normalized reply the id ``call_id`` (in place)."""
    n = -1
    if api == "chat":
        for call in reply.get("tool_calls") or []:
            n += 1
            if n == index:
                # keep "id" first, as providers write it
                items = [("id", call_id)] + [(k, v) for k, v in call.items() if k != "id"]
                call.clear()
                call.update(items)
                return
    elif api == "responses":
        for item in reply:
            if isinstance(item, dict) and item.get("type") == "function_call":
                n += 1
                if n == index:
                    item["call_id"] = call_id
                    return
    elif api == "anthropic":
        for block in reply.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                n += 1
                if n == index:
                    block["id"] = call_id
                    return


def split_anthropic_system(messages: Sequence[Mapping[str, Any]]) -> tuple[str | None, list[Any]]:
    """Split the conversation a ``ChatPolicy(api="anthropic")`` passes to ``complete``.

    Its first message is ``{"role": "system", "content": ...}``, which the Messages API takes as
    the top-level ``system`` parameter. Returns ``(system text or None, the other messages)``.
    """
    if messages and messages[0].get("role") == "system":
        return _text_of_content(messages[0].get("content")), list(messages[1:])
    return None, list(messages)


# ---------------------------------------------------------------------------------------------
# Any provider's conversation -> Chat Completions messages (for data sets)
# ---------------------------------------------------------------------------------------------


def to_chat_messages(messages: Sequence[Any], api: str) -> list[dict[str, Any]]:
    """A conversation in ``api``'s format as OpenAI Chat messages (used for data set rows).

    ``chat`` and ``text`` conversations are copied. A Responses conversation maps ``message``
    items (or ``{"role", "content"}`` items) to messages, each run of ``function_call`` items to
    one assistant message with ``tool_calls`` (text of a directly preceding assistant message is
    merged in), and ``function_call_output`` items to tool messages; other items (reasoning...)
    are dropped. An Anthropic conversation maps ``text`` blocks to ``content``, ``tool_use`` to
    ``tool_calls`` (``arguments`` as compact JSON) and each ``tool_result`` block to a tool
    message; the leading system message stays.
    """
    if api in ("chat", "text"):
        try:  # JSON data (the usual case): an orjson round trip is many times cheaper than deepcopy
            copied = orjson.loads(orjson.dumps([dict(m) for m in messages]))
        except (TypeError, orjson.JSONEncodeError):
            copied = [copy.deepcopy(dict(m)) for m in messages]
        return copied  # type: ignore[no-any-return]
    out: list[dict[str, Any]] = []
    if api == "responses":
        for item in messages:
            item = as_plain(item)
            kind = item.get("type", "message")
            if kind == "message":
                out.append({"role": item.get("role", "assistant"), "content": _text_of_content(item.get("content"))})
            elif kind == "function_call":
                call = {"id": item.get("call_id"), "type": "function",
                        "function": {"name": item.get("name"), "arguments": item.get("arguments")}}
                last = out[-1] if out else None
                if last is not None and last["role"] == "assistant":
                    last.setdefault("tool_calls", []).append(call)
                else:
                    out.append({"role": "assistant", "content": None, "tool_calls": [call]})
            elif kind == "function_call_output":
                output = item.get("output")
                out.append({"role": "tool", "tool_call_id": item.get("call_id"),
                            "content": output if isinstance(output, str) else _text_of_content(output)})
        return out
    if api == "anthropic":
        for message in messages:
            message = as_plain(message)
            role = message.get("role")
            content = message.get("content")
            if isinstance(content, str) or content is None:
                out.append({"role": role, "content": content})
                continue
            texts: list[str] = []
            calls: list[dict[str, Any]] = []
            results: list[dict[str, Any]] = []
            for block in content:
                block = as_plain(block)
                kind = block.get("type")
                if kind == "text":
                    texts.append(str(block.get("text") or ""))
                elif kind == "tool_use":
                    calls.append({"id": block.get("id"), "type": "function",
                                  "function": {"name": block.get("name"),
                                               "arguments": _arguments_text(block.get("input"))}})
                elif kind == "tool_result":
                    result = block.get("content")
                    results.append({"role": "tool", "tool_call_id": block.get("tool_use_id"),
                                    "content": result if isinstance(result, str) else _text_of_content(result)})
            if role == "assistant":
                entry: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
                if calls:
                    entry["tool_calls"] = calls
                out.append(entry)
            else:
                out.extend(results)
                if texts:
                    out.append({"role": role, "content": "".join(texts)})
        return out
    raise ValueError(f"unknown api {api!r}")
