"""``--policy openai:<model>`` / ``anthropic:<model>`` for ``silo-gym collect``: a model policy
built from the command line (issue 11, "Model policies from the shell").

The API key comes from the usual environment variables (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``; local servers accept any key), the server from ``--base-url`` (else
``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``, else the provider's API).
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import socket
from typing import Any
from urllib.parse import urlsplit

from .parser import UsageError, count

__all__ = ["MODEL_PROVIDERS", "add_model_flags", "check_model_server", "is_model_spec", "model_policy_factory"]

MODEL_PROVIDERS = ("openai", "anthropic")
#: Where each provider's client goes without --base-url or the environment variable.
DEFAULT_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
_PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")
OPENAI_APIS = ("chat", "responses", "text")
CLIENTS = ("lean", "sdk")


def finite_number(text: str) -> float:
    """A finite number (``--temperature``)."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError("must be a number.") from None
    if not math.isfinite(value):
        raise ValueError("must be a finite number.")
    return value


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of ``--policy openai:<model>`` / ``anthropic:<model>``."""
    parser.add_argument("--base-url", metavar="URL",
                        help="the model server (OpenAI: .../v1; default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, "
                             "else the provider's API)")
    parser.add_argument("--api", metavar="API",
                        help="openai models: chat (default), responses or text (the text protocol); "
                             "anthropic models: messages")
    parser.add_argument("--temperature", metavar="T", type=finite_number, help="sampling temperature")
    parser.add_argument("--max-tokens", metavar="N", type=count, help="the longest reply, in tokens")
    parser.add_argument("--client", metavar="C",
                        help="lean (default: silo_gym's aiohttp request path) or sdk (the official SDK)")


def is_model_spec(spec: str) -> bool:
    """True for ``openai:<model>`` and ``anthropic:<model>``."""
    provider, sep, _ = spec.partition(":")
    return bool(sep) and provider in MODEL_PROVIDERS


def build_model_policy(spec: str, base_url: str | None, api: str | None, params: dict[str, Any],
                       client: str) -> Any:
    """The ``ChatPolicy`` (or ``TextProtocolPolicy`` for ``--api text``) of a model spec."""
    from ..llm import ChatPolicy, TextProtocolPolicy, anthropic_acomplete, openai_acomplete

    provider, _, model = spec.partition(":")
    lean = client == "lean"
    if provider == "anthropic":
        complete = anthropic_acomplete(model, base_url=base_url, lean=lean, **params)
        return ChatPolicy(complete, api="anthropic", model=model)
    api = api or "chat"
    complete = openai_acomplete(base_url, model, api=api, lean=lean, **params)
    if api == "text":
        return TextProtocolPolicy(complete, model=model)
    return ChatPolicy(complete, api=api, model=model)


def model_policy_factory(spec: str, *, base_url: str | None, api: str | None, temperature: float | None,
                         max_tokens: int | None, client: str | None) -> Any:
    """Check the model flags and return a zero-argument factory of the policy (a factory, so that
    every Ray worker builds its own clients).

    Raises:
        UsageError: an empty model name, an ``--api`` the provider does not have, a bad
            ``--client``, or ``--max-tokens`` below 1.
    """
    provider, _, model = spec.partition(":")
    if not model.strip():
        raise UsageError(f'--policy {provider}: needs a model name, as in "{provider}:my-model".')
    if provider == "anthropic" and api not in (None, "messages"):
        raise UsageError(f'--api {api} is an OpenAI surface; anthropic models speak "messages".')
    if provider == "openai" and api is not None and api not in OPENAI_APIS:
        raise UsageError(f'--api must be chat, responses or text for openai models; got "{api}".')
    client = client or "lean"
    if client not in CLIENTS:
        raise UsageError(f'--client must be lean or sdk; got "{client}".')
    params: dict[str, Any] = {}
    if temperature is not None:
        params["temperature"] = temperature
    if max_tokens is not None:
        params["max_output_tokens" if api == "responses" else "max_tokens"] = max_tokens
    if client == "lean":
        from ..llm.lean_client import require_aiohttp

        try:
            require_aiohttp()
        except ImportError as exc:
            raise UsageError(f"{exc} (or pass --client sdk)") from None
    else:
        try:
            __import__("anthropic" if provider == "anthropic" else "openai")
        except ImportError:
            raise UsageError(f'--client sdk needs the "{provider}" package: pip install "silo-gym[{provider}]"') from None
    return functools.partial(build_model_policy, spec, base_url, None if api == "messages" else api, params, client)


def check_model_server(spec: str, base_url: str | None, timeout_s: float = 5.0) -> None:
    """Open (and close) one TCP connection to the model server before any episode starts.

    Connection errors are retried as transient during a collection (so a server that restarts
    does not fail episodes), which makes a wrong address cost a minute per episode before any
    message; this check says it at once. Skipped behind an HTTP proxy (set in the environment),
    where only the proxy is reachable directly.

    Raises:
        UsageError: the URL has no host, or nothing answers at its host and port.
    """
    provider, _, _ = spec.partition(":")
    if any(os.environ.get(name) for name in _PROXY_VARIABLES):
        return
    url = base_url or os.environ.get(f"{provider.upper()}_BASE_URL") or DEFAULT_BASE_URLS[provider]
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise UsageError(f'--base-url "{url}" has a port that is not a number.') from None
    if not parts.hostname or parts.scheme not in ("http", "https"):
        raise UsageError(f'--base-url must be an http:// or https:// URL with a host; got "{url}".')
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout_s).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UsageError(
            f"Cannot reach the model server at {url} ({reason}). Start it first (a scripted one for "
            "testing: silo-gym mock-model --port 8000), or point --base-url at it.") from None
