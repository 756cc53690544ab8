"""Which model errors are retried, and how long a policy waits (silo_gym.llm.retry)."""

from __future__ import annotations

import importlib
import importlib.util
import random

import pytest

from silo_gym.llm.retry import ModelHTTPError, RetryPolicy, is_transient, parse_retry_after, retry_after_s


@pytest.mark.parametrize(("status", "transient"), [(429, True), (500, True), (503, True), (599, True),
                                                    (400, False), (401, False), (404, False), (422, False)])
def test_http_statuses(status, transient):
    assert is_transient(ModelHTTPError(status, "x")) is transient


def test_connection_errors_and_plain_errors():
    assert is_transient(ConnectionResetError())
    assert is_transient(TimeoutError())
    assert not is_transient(ValueError("bad reply"))
    assert not is_transient(KeyError("x"))


def test_sdk_errors_by_status_and_connection():
    openai = pytest.importorskip("openai")
    # the SDK's HTTP library: httpx2 in newer SDKs, httpx before
    httpx = importlib.import_module("httpx2" if importlib.util.find_spec("httpx2") else "httpx")

    request = httpx.Request("POST", "http://x/v1/chat/completions")

    def status_error(cls, status, headers=None):
        response = httpx.Response(status, request=request, headers=headers or {})
        return cls("boom", response=response, body=None)

    limited = status_error(openai.RateLimitError, 429, {"retry-after": "3"})
    assert is_transient(limited) and retry_after_s(limited) == 3.0
    assert is_transient(status_error(openai.InternalServerError, 502))
    assert not is_transient(status_error(openai.BadRequestError, 400))
    assert is_transient(openai.APIConnectionError(request=request))
    assert is_transient(openai.APITimeoutError(request=request))


def test_retry_after_forms():
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    later = parse_retry_after({"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"})
    assert later is not None and later > 1e6


def test_delays_grow_with_jitter_honour_the_server_and_stop():
    policy = RetryPolicy(max_retries=3, initial_delay_s=1.0, multiplier=2.0, max_delay_s=5.0)
    rng = random.Random(1)
    for retry, base in enumerate([1.0, 2.0, 4.0, 5.0, 5.0]):
        delays = [policy.delay(retry, rng=rng) for _ in range(50)]
        assert all(base / 2 <= d <= base for d in delays)
        assert max(delays) - min(delays) > 0  # jittered
    assert policy.delay(0, server_wait_s=3.0) == 3.0  # never shorter than Retry-After
    assert policy.delay(0, server_wait_s=60.0) == 5.0  # but capped
    err = ModelHTTPError(429, "slow down", retry_after_s=0.5)
    assert policy.next_delay(err, 0) is not None
    assert policy.next_delay(err, 3) is None  # retries used up
    assert policy.next_delay(ModelHTTPError(400, "bad"), 0) is None  # permanent


def test_bad_retry_policy():
    with pytest.raises(ValueError, match="max_retries must be an int >= 0"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="initial_delay_s must be a number >= 0"):
        RetryPolicy(initial_delay_s=-0.1)
