"""A vLLM-flavoured OpenAI endpoint for the proxy-trainer recipes (docs/training.md): it forwards
Chat Completions to the scripted model server and adds what vLLM adds when asked, so that a
trainer's proxy has token ids to capture:

- ``logprobs: true``: ``choices[0].logprobs.content``, one entry per generated token, the token
  written ``"token_id:<id>"`` (vLLM's ``return_tokens_as_token_ids``, which ART reads);
- ``return_token_ids: true`` (rLLM's gateway asks for it): ``prompt_token_ids`` (the request's
  messages and tools through the tokenizer's chat template, with the generation prompt) and
  ``choices[0].token_ids``.

The generated tokens are the assistant's reply as a Hermes-style model writes it: its text, each
tool call as ``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``, then end of turn."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any


def generated_text(message: dict[str, Any], eos: str) -> str:
    """What the model generated for an assistant ``message`` (module docs)."""
    text = message.get("content") or ""
    for call in message.get("tool_calls") or []:
        function = call["function"]
        text += f'\n<tool_call>\n{{"name": {json.dumps(function["name"])}, "arguments": {function["arguments"]}}}\n</tool_call>'
    return text + eos


class VLLMLike:
    """The endpoint in a background thread: ``base_url`` is its ``.../v1``; ``generated`` lists
    the token ids of every completion it served."""

    def __init__(self, upstream: str, tokenizer: Any) -> None:
        self.upstream = upstream.rstrip("/")
        self.tokenizer = tokenizer
        self.generated: list[list[int]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _chat(self, request: Any) -> Any:
        from aiohttp import ClientSession, web

        body = await request.json()
        forward = {k: v for k, v in body.items() if k not in ("logprobs", "top_logprobs", "return_token_ids")}
        async with ClientSession() as session, \
                session.post(f"{self.upstream}/chat/completions", json=forward) as upstream:
            status, payload = upstream.status, await upstream.json()
        if status != 200:
            return web.json_response(payload, status=status)
        choice = payload["choices"][0]
        ids = self.tokenizer.encode(generated_text(choice["message"], self.tokenizer.eos_token), add_special_tokens=False)
        self.generated.append(ids)
        if body.get("logprobs"):
            choice["logprobs"] = {"content": [
                {"token": f"token_id:{i}", "logprob": -0.25, "bytes": list(self.tokenizer.decode([i]).encode()),
                 "top_logprobs": []} for i in ids]}
        if body.get("return_token_ids"):
            payload["prompt_token_ids"] = list(self.tokenizer.apply_chat_template(
                body["messages"], tools=body.get("tools"), add_generation_prompt=True, tokenize=True,
                return_dict=False))
            choice["token_ids"] = ids
        return web.json_response(payload)

    def start(self) -> VLLMLike:
        from aiohttp import web

        async def serve() -> None:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._chat)
            runner = web.AppRunner(app)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            self._stop = asyncio.Event()
            self._ready.set()
            await self._stop.wait()
            await runner.cleanup()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(serve())
            self._loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        assert self._ready.wait(30), "the vLLM-like endpoint did not start"
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(30)
