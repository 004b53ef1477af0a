"""An OTLP/HTTP trace receiver on loopback for tests: what our exporter sends, decoded.

    async with OtlpReceiver() as receiver:
        settings = {"otel-export": {"otlp_endpoint": receiver.url}}
        ...
        spans = await receiver.wait_for(lambda spans: any(...))

Every ``POST /v1/traces`` body is read with the ``opentelemetry-proto`` classes (through
``otel.otlp.decode``) and its spans kept in ``spans``; ``headers`` keeps each request's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import TracebackType

from aiohttp import web

from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.spans import Span


class OtlpReceiver:
    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.headers: list[dict[str, str]] = []
        self.changed = asyncio.Event()
        self.url = ""

    async def _traces(self, request: web.Request) -> web.Response:
        self.headers.append(dict(request.headers))
        self.spans.extend(otlp.decode(await request.read(), request.content_type))
        self.changed.set()
        return web.Response(body=b"", content_type=otlp.PROTOBUF)

    async def __aenter__(self) -> OtlpReceiver:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/traces", self._traces)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.runner.cleanup()

    async def wait_for(
        self, check: Callable[[list[Span]], bool], timeout: float = 30.0
    ) -> list[Span]:
        """The spans received, once ``check`` holds for them (``TimeoutError`` otherwise)."""
        async with asyncio.timeout(timeout):
            while not check(self.spans):
                self.changed.clear()
                await self.changed.wait()
        return self.spans
