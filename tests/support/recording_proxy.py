"""A recording proxy in front of an OpenAI-compatible server (the real-model tier's, and
bench_realmodel's): it forwards every chat completion unchanged and keeps the request and the
server's own reply (text, ``usage``, model, time), so callers can compare what the traces
say with what the server said.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web


@dataclass
class Call:
    """One chat completion as the real server answered it."""

    request: dict[str, Any]
    status: int
    text: str = ""
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    elapsed_ms: float = 0.0  # from sending the request upstream to the reply's last byte
    sent_at: float = 0.0  # time.monotonic() when it was sent upstream

    @property
    def streamed(self) -> bool:
        return bool(self.request.get("stream"))

    def overlaps(self, other: Call) -> bool:
        """Whether the two calls were in flight at the same time."""
        end, other_end = (
            self.sent_at + self.elapsed_ms / 1000,
            other.sent_at + other.elapsed_ms / 1000,
        )
        return self.sent_at < other_end and other.sent_at < end

    @property
    def prompt_type(self) -> str:
        fmt = self.request.get("response_format") or {}
        return str((fmt.get("json_schema") or {}).get("name", fmt.get("type", "")))


class RecordingProxy:
    """Forwards ``/v1/chat/completions`` to ``upstream``; ``calls`` holds every exchange."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.calls: list[Call] = []
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=900))
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._forward)
        self._runner = web.AppRunner(app, shutdown_timeout=1)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        assert self._session is not None
        url = self.upstream + "/v1/chat/completions"
        started = time.monotonic()
        async with self._session.post(url, json=body) as up:
            call = Call(body, up.status, sent_at=started)
            self.calls.append(call)
            try:
                return await self._relay(request, body, up, call)
            finally:
                call.elapsed_ms = (time.monotonic() - started) * 1000.0

    async def _relay(
        self, request: web.Request, body: dict[str, Any], up: aiohttp.ClientResponse, call: Call
    ) -> web.StreamResponse:
        """Send the upstream reply on, noting its text, model and usage in ``call``."""
        if not body.get("stream") or up.status >= 400:
            raw = await up.read()
            if up.status < 400:
                data = json.loads(raw)
                call.text = data["choices"][0]["message"]["content"] or ""
                call.model, call.usage = data.get("model", ""), data.get("usage") or {}
            return web.Response(body=raw, status=up.status, content_type="application/json")
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        pieces: list[str] = []
        async for line in up.content:
            await resp.write(line)
            text = line.decode().strip()
            if text.startswith("data:") and text != "data: [DONE]":
                data = json.loads(text[5:])
                call.model = data.get("model") or call.model
                call.usage = data.get("usage") or call.usage
                for choice in data.get("choices") or []:
                    pieces.append((choice.get("delta") or {}).get("content") or "")
        call.text = "".join(pieces)
        await resp.write_eof()
        return resp


@contextlib.asynccontextmanager
async def recording_proxy(upstream: str) -> AsyncIterator[RecordingProxy]:
    recorder = RecordingProxy(upstream)
    await recorder.start()
    try:
        yield recorder
    finally:
        await recorder.stop()
