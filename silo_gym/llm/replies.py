"""Taking the assistant's turn out of a model server's reply, or saying why there is none.

A server can answer 200 with no assistant message in it: a body holding ``{"error": ...}``
(gateways and some self-hosted servers pass an upstream failure on this way), a completion with
no ``choices`` or ``choices: []``, a choice whose ``message`` is null, a Responses object with no
``output`` items, an Anthropic body of ``"type": "error"`` or without ``content``. None of these
is the model's answer, so none may be graded as an empty final answer (a made-up reward): each
raises :class:`ModelReplyError`, which the policy treats like an HTTP error
(:mod:`silo_gym.llm.retry`): retried when the error it carries is transient (a status of 429 or
5xx, or an error type that names an overload, a rate limit or a server error), else the episode
fails (a failed row with ``reward: None`` in a collection).

The functions take the decoded JSON (dicts) of the lean client or the SDKs' response objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import SiloGymError

__all__ = ["ModelReplyError", "anthropic_reply", "chat_message", "responses_output"]

#: Error types that name a transient failure, and the HTTP status each stands for.
_TRANSIENT_TYPES = {
    "server_error": 500, "api_error": 500, "internal_error": 500, "internal_server_error": 500,
    "service_unavailable": 503, "overloaded_error": 529, "overloaded": 529, "timeout": 504,
    "rate_limit_error": 429, "rate_limit_exceeded": 429, "rate_limited": 429, "too_many_requests": 429,
}
_SHOWN = 300


class ModelReplyError(SiloGymError):
    """A model server's reply that holds no assistant message (module docs).

    Attributes:
        status_code: the HTTP status the carried error stands for (its ``code``/``status``, or
            one derived from its ``type``), or ``None``; 429 and 5xx make it transient.
        reply: the reply's text, shortened.
    """

    def __init__(self, message: str, *, status_code: int | None = None, reply: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.reply = reply

    def __reduce__(self) -> Any:  # picklable (Ray ships exceptions)
        return (_rebuild, (str(self), self.status_code, self.reply))


def _rebuild(message: str, status_code: int | None, reply: str) -> ModelReplyError:
    return ModelReplyError(message, status_code=status_code, reply=reply)


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    value = getattr(obj, key, None)
    if value is None:  # pydantic models keep unknown keys of the body in model_extra
        extra = getattr(obj, "model_extra", None)
        if isinstance(extra, Mapping):
            value = extra.get(key)
    return value


def _text(obj: Any) -> str:
    dump = getattr(obj, "model_dump_json", None)
    if callable(dump):
        try:
            text = str(dump())
        except Exception:
            text = repr(obj)
    else:
        try:
            import orjson

            text = orjson.dumps(obj, default=repr).decode("utf-8")
        except Exception:
            text = repr(obj)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _status_of(error: Any) -> int | None:
    for key in ("code", "status", "status_code"):
        value = _get(error, key)
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return value
    kind = _get(error, "type")
    if not isinstance(kind, str):
        kind = _get(error, "code")
    return _TRANSIENT_TYPES.get(kind.lower()) if isinstance(kind, str) else None


def _carried_error(reply: Any) -> tuple[str, int | None] | None:
    """The error a reply carries instead of a message: its text and status, or None."""
    error = _get(reply, "error")
    if error is None and _get(reply, "type") != "error":
        return None
    if error is None:
        error = reply
    message = _get(error, "message") if not isinstance(error, str) else error
    text = message if isinstance(message, str) and message else _text(error)
    return text, _status_of(error) if not isinstance(error, str) else None


def _fail(what: str, reply: Any) -> ModelReplyError:
    carried = _carried_error(reply)
    text = _text(reply)
    if carried is not None:
        message, status = carried
        shown = f" (status {status})" if status is not None else ""
        return ModelReplyError(f"The model server answered with an error instead of {what}{shown}: {message}",
                               status_code=status, reply=text)
    return ModelReplyError(f"The model server's reply holds no {what}: {text}", reply=text)


def chat_message(reply: Any) -> Any:
    """The assistant message of a Chat Completions reply (``choices[0].message``).

    Raises:
        ModelReplyError: the reply carries an error, has no ``choices`` (missing, empty, not a
            list) or its first choice has no message object.
    """
    if _get(reply, "error") is not None:
        raise _fail("an assistant message", reply)
    choices = _get(reply, "choices")
    if not isinstance(choices, (list, tuple)) or not choices:
        raise _fail("assistant message (no choices)", reply)
    message = _get(choices[0], "message")
    if message is None or isinstance(message, (str, int, float, bool, list)):
        raise _fail("assistant message (choices[0].message is not an object)", reply)
    return message


def responses_output(reply: Any) -> list[Any]:
    """The output items of a Responses reply.

    Raises:
        ModelReplyError: the reply carries an error, or has no output items.
    """
    if _get(reply, "error") is not None:
        raise _fail("output items", reply)
    output = _get(reply, "output")
    if not isinstance(output, (list, tuple)) or not output:
        raise _fail("output items", reply)
    return list(output)


def anthropic_reply(reply: Any) -> Any:
    """The content blocks of an Anthropic Messages reply (a list, maybe empty: an empty answer).

    Raises:
        ModelReplyError: the reply is of ``"type": "error"``, carries an error, or has no
            ``content`` list.
    """
    if _get(reply, "type") == "error" or _get(reply, "error") is not None:
        raise _fail("a message", reply)
    content = _get(reply, "content")
    if not isinstance(content, (list, tuple)):
        raise _fail("message content", reply)
    return content
