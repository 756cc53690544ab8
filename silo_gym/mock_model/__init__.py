"""A scripted model server for tests, examples and benchmarks (issue 11): OpenAI Chat
Completions, OpenAI Responses and Anthropic Messages routes that play a scripted plan per task
(the demo reference plan by default) with a set latency, and misbehave on chosen requests
(hang, HTTP 429/5xx, malformed tool calls). ``silo-gym mock-model`` is its command line.

Needs ``aiohttp`` (``pip install "silo-gym[aiohttp]"``).
"""

from __future__ import annotations

from .script import DEFAULT_PLAN, load_plan
from .server import Fault, MockModelServer, parse_fault

__all__ = ["DEFAULT_PLAN", "Fault", "MockModelServer", "load_plan", "parse_fault"]
