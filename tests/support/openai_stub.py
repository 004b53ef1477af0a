"""A scripted OpenAI-compatible chat-completions server on loopback, for tests.

    async with OpenAIStub(["first reply", 429, "second reply"]) as stub:
        settings = Settings(..., llm_base_url=stub.base_url)   # ends in /v1
        ...
        assert stub.requests[0]["messages"][-1]["content"] == "..."

Replies are served in order, one per request, to ``POST /v1/chat/completions`` (and
``/chat/completions``). A reply is a string (the completion), an int (an HTTP error
status, e.g. 429 or 500), a ``Reply`` (full control: status, delay, usage, model), or a
callable taking the request body and returning any of those (for replies that depend
on the prompt). When the script runs out, ``default`` answers (a 500 if it is None).
A request with ``"stream": true`` gets the reply as server-sent events, one word each.
``POST /v1/embeddings`` answers every input with a vector of 3 numbers (not scripted).

Structured output: ``stub.formats()`` lists each request's ``response_format`` (None when
absent). ``accepts`` (e.g. ``{"json_object"}``) is the set of ``response_format`` types
the stub takes; a request asking for another is refused with ``refuse_status`` (400 by
default; llama-cpp-python's server answers 500) and a message naming ``response_format``,
before any scripted reply is used.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import web


@dataclass(frozen=True)
class Reply:
    """One scripted reply: a completion ``text`` or an error ``status`` with ``message``."""

    text: str = ""
    status: int = 200
    message: str = ""
    delay: float = 0.0  # seconds to wait before answering (to provoke client timeouts)
    usage: bool = True  # include a ``usage`` block (token counts)
    model: str = "stub-model"
    raw: dict[str, Any] | None = None  # sent verbatim as the JSON body (malformed replies)


Scripted = str | int | Reply | Callable[[dict[str, Any]], str | int | Reply]


def _as_reply(item: Scripted, body: dict[str, Any]) -> Reply:
    if callable(item) and not isinstance(item, (str, int, Reply)):
        item = item(body)
    if isinstance(item, Reply):
        return item
    if isinstance(item, int):
        return Reply(status=item, message=f"scripted status {item}")
    return Reply(text=str(item))


def _tokens(body: dict[str, Any]) -> int:
    return sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))


class OpenAIStub:
    """The server; ``requests`` holds every JSON body received, in order."""

    def __init__(
        self,
        replies: Iterable[Scripted] = (),
        *,
        default: Scripted | None = None,
        accepts: set[str] | None = None,
        refuse_status: int = 400,
    ) -> None:
        self.script: deque[Scripted] = deque(replies)
        self.default = default
        self.accepts = accepts
        self.refuse_status = refuse_status
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._received = asyncio.Condition()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *replies: Scripted) -> None:
        """Script more replies after those already queued."""
        self.script.extend(replies)

    def formats(self) -> list[Any]:
        """The ``response_format`` of each request received (None where there was none)."""
        return [r.get("response_format") for r in self.requests]

    def prompts(self) -> list[str]:
        """The last (user) message of each request received."""
        return [str(r["messages"][-1]["content"]) for r in self.requests if r.get("messages")]

    async def wait_for_requests(self, count: int, timeout: float = 10.0) -> None:
        """Wait until at least ``count`` requests have arrived."""
        async with self._received:
            await asyncio.wait_for(
                self._received.wait_for(lambda: len(self.requests) >= count), timeout
            )

    async def start(self) -> OpenAIStub:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        app.router.add_post("/v1/embeddings", self._embeddings)
        # a scripted delay must not hold up teardown: cancel in-flight handlers quickly
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> OpenAIStub:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _next(self) -> Scripted:
        if self.script:
            return self.script.popleft()
        if self.default is not None:
            return self.default
        return Reply(status=500, message="openai stub: no scripted reply left")

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except ValueError:
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        refusal = self._refusal(body)
        reply = refusal or _as_reply(self._next(), body)
        async with self._received:
            self.requests.append(body)
            self.headers.append(dict(request.headers))
            self._received.notify_all()
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.status >= 400:
            error = {"message": reply.message or f"status {reply.status}", "type": "stub_error"}
            return web.json_response({"error": error}, status=reply.status)
        if reply.raw is not None:
            return web.json_response(reply.raw, status=reply.status)
        if body.get("stream"):
            return await self._stream(request, body, reply)
        return web.json_response(self._completion(body, reply))

    async def _embeddings(self, request: web.Request) -> web.StreamResponse:
        """``POST /v1/embeddings``: a vector of 3 numbers for each input, in the model asked."""
        body = await request.json()
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        data = [
            {"object": "embedding", "index": i, "embedding": [0.1, 0.2, 0.3]}
            for i in range(len(texts))
        ]
        words = sum(len(str(t).split()) for t in texts)
        usage = {"prompt_tokens": words, "total_tokens": words}
        reply = {"object": "list", "data": data, "model": body.get("model", ""), "usage": usage}
        return web.json_response(reply)

    def _refusal(self, body: dict[str, Any]) -> Reply | None:
        """The error for a ``response_format`` this stub does not take (None: it takes it)."""
        wanted = body.get("response_format")
        if (
            self.accepts is None
            or not isinstance(wanted, dict)
            or wanted.get("type") in self.accepts
        ):
            return None
        allowed = " or ".join(repr(t) for t in sorted(self.accepts)) or "nothing"
        message = f"response_format.type: Input should be {allowed}, got {wanted.get('type')!r}"
        return Reply(status=self.refuse_status, message=message)

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "model": reply.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": "stop",
                }
            ],
        }
        if reply.usage:
            out = len(reply.text.split())
            data["usage"] = {
                "prompt_tokens": _tokens(body),
                "completion_tokens": out,
                "total_tokens": _tokens(body) + out,
            }
        return data

    async def _stream(
        self, request: web.Request, body: dict[str, Any], reply: Reply
    ) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        words = reply.text.split(" ")
        pieces = [w if i == 0 else " " + w for i, w in enumerate(words)] if reply.text else []
        for piece in pieces:
            chunk = {
                "id": "chatcmpl-s",
                "object": "chat.completion.chunk",
                "model": reply.model,
                "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
            }
            await resp.write(f"data: {json.dumps(chunk)}\n\n".encode())
        final: dict[str, Any] = {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "model": reply.model,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
        if reply.usage:
            final["usage"] = self._completion(body, reply)["usage"]
        await resp.write(f"data: {json.dumps(final)}\n\ndata: [DONE]\n\n".encode())
        await resp.write_eof()
        return resp


@pytest.fixture
async def openai_stub() -> AsyncIterator[OpenAIStub]:
    """A running stub with an empty script: call ``openai_stub.add(...)`` in the test."""
    async with OpenAIStub() as stub:
        yield stub
