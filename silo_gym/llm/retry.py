"""Retrying model calls: which errors are transient, how long to wait (gym-api.md, "LLM policies";
issue 11).

A model call that fails with a *transient* error is tried again after a pause; any other error
ends the episode at once. Transient errors are:

- an HTTP status of 429 (rate limited) or 5xx (server error), from the ``openai`` or ``anthropic``
  SDKs (``APIStatusError.status_code``), from aiohttp (``ClientResponseError.status``) or from
  silo_gym's own clients (:class:`ModelHTTPError`);
- a connection failure: ``ConnectionError``, ``TimeoutError``, and the SDKs' and HTTP libraries'
  connection errors (``APIConnectionError``, ``APITimeoutError``, aiohttp's
  ``ClientConnectionError``/``ClientPayloadError``, httpx's ``TransportError``).

Every other HTTP status (400, 401, 404, 422...) is permanent: a second try would fail the same way.

The pause (:meth:`RetryPolicy.delay`) grows exponentially with jitter, and never falls short of
what the server asked for with ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import SiloGymError

__all__ = ["DEFAULT_RETRY", "ModelHTTPError", "RetryPolicy", "is_transient", "retry_after_s"]

_CONNECTION_ERRORS = frozenset({
    "APIConnectionError", "APITimeoutError",  # openai, anthropic
    "ClientConnectionError", "ClientPayloadError", "ServerTimeoutError",  # aiohttp
    "TransportError",  # httpx
})
_CONNECTION_MODULES = ("openai", "anthropic", "aiohttp", "httpx", "httpx2", "httpcore", "httpcore2")


class ModelHTTPError(SiloGymError):
    """A model server answered with an HTTP error (raised by silo_gym's lean clients).

    Attributes:
        status_code: the HTTP status (``int``).
        retry_after_s: the wait the server asked for (``Retry-After``/``retry-after-ms``), in
            seconds, or ``None``.
        body: the response body as text (shortened to 2000 characters).
    """

    def __init__(self, status_code: int, message: str, *, retry_after_s: float | None = None,
                 body: str = "") -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.retry_after_s = retry_after_s
        self.body = body[:2000]

    def __reduce__(self) -> Any:  # picklable (Ray ships exceptions)
        return (_rebuild_http_error, (self.status_code, str(self), self.retry_after_s, self.body))


def _rebuild_http_error(status: int, text: str, retry_after: float | None, body: str) -> ModelHTTPError:
    err = ModelHTTPError(status, "", retry_after_s=retry_after, body=body)
    err.args = (text,)
    return err


def _status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return value
    return None


def parse_retry_after(headers: Mapping[str, Any] | Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (delta-seconds or an HTTP date);
    ``None`` when absent or unreadable."""
    if headers is None:
        return None
    get = getattr(headers, "get", None)
    if not callable(get):
        return None
    ms = get("retry-after-ms") or get("Retry-After-Ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = get("retry-after") or get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a failed call's server asked for, in seconds (``None`` when it did not say)."""
    own = getattr(exc, "retry_after_s", None)
    if isinstance(own, (int, float)) and not isinstance(own, bool):
        return max(0.0, float(own))
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) if response is not None else None
    if headers is None:
        headers = getattr(exc, "headers", None)
    return parse_retry_after(headers)


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: HTTP 429 and 5xx, and connection failures (module docs)."""
    status = _status_of(exc)
    if status is not None:
        return status == 429 or status >= 500
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    return any(cls.__name__ in _CONNECTION_ERRORS and cls.__module__.split(".")[0] in _CONNECTION_MODULES
               for cls in type(exc).__mro__)


@dataclass(frozen=True)
class RetryPolicy:
    """How a policy retries a model call that failed with a transient error (module docs).

    Args:
        max_retries: retries per model call after the first try (``0``: never retry).
        initial_delay_s: the pause before the first retry, in seconds (before jitter).
        multiplier: each further retry waits this many times longer.
        max_delay_s: no pause is longer, in seconds (a server's ``Retry-After`` included).

    The pause before retry ``n`` (0-based) is ``d = min(initial_delay_s * multiplier**n,
    max_delay_s)`` with "equal jitter" (uniform in ``[d/2, d]``), raised to the server's
    ``Retry-After`` when that is longer, and capped at ``max_delay_s``.
    """

    max_retries: int = 6
    initial_delay_s: float = 0.5
    multiplier: float = 2.0
    max_delay_s: float = 30.0

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {self.max_retries!r}.")
        for name in ("initial_delay_s", "multiplier", "max_delay_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}.")

    def delay(self, retry: int, server_wait_s: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first retry)."""
        base = min(self.initial_delay_s * self.multiplier ** retry, self.max_delay_s)
        jittered = base / 2 + (rng or random).uniform(0.0, base / 2)
        if server_wait_s is not None:
            jittered = max(jittered, server_wait_s)
        return min(jittered, self.max_delay_s)

    def next_delay(self, exc: BaseException, retry: int) -> float | None:
        """The pause before retrying after ``exc`` (retry number ``retry``), or ``None`` when
        ``exc`` is permanent or the retries are used up."""
        if retry >= self.max_retries or not is_transient(exc):
            return None
        return self.delay(retry, retry_after_s(exc))


#: The retry policy of ``ChatPolicy`` and ``TextProtocolPolicy`` unless told otherwise.
DEFAULT_RETRY = RetryPolicy()
