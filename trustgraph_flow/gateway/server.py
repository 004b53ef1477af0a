"""The gateway process: aiohttp serving the WebSocket and REST APIs over the Pulsar services.

    tg-gateway --port 8088 --pulsar-url pulsar://127.0.0.1:6650 [--token T] [--host H]

Without a token it binds 127.0.0.1 only, unless ``--host`` is given explicitly.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, web

from trustgraph_base.errors import ErrorType, ServiceError, TrustGraphError
from trustgraph_base.messaging import LIBRARIAN, Bus, Topics
from trustgraph_base.messaging.entry import run_main
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.gateway import health
from trustgraph_flow.gateway.auth import (
    AUTH,
    Auth,
    accepts,
    authenticate,
    identity,
    key_file,
    offered_token,
)
from trustgraph_flow.gateway.body import HTTP_TIMEOUT, json_body
from trustgraph_flow.gateway.bulk import (
    PUBLISHER,
    Publisher,
    document_stream_handler,
    export_triples_handler,
    import_triples_handler,
    unknown_handler,
)
from trustgraph_flow.gateway.collections import collection_management_handler
from trustgraph_flow.gateway.contexts import import_entity_contexts_handler
from trustgraph_flow.gateway.dispatch import DISPATCHER, Dispatcher, as_failure
from trustgraph_flow.gateway.failure import rest_response
from trustgraph_flow.gateway.iam import iam_handler
from trustgraph_flow.gateway.keys import KeyStore
from trustgraph_flow.gateway.socket import Limits, SocketSession
from trustgraph_flow.gateway.sparql_protocol import add_sparql_protocol
from trustgraph_flow.gateway.viewer import add_viewer

log = logging.getLogger("trustgraph_flow.gateway")


class GatewaySettings(ProcessorSettings):
    """Flags ``--kebab-case`` > env ``TG_*`` > these defaults."""

    port: int = 8088
    """Port to listen on."""
    host: str = ""
    """Interface to listen on (empty: 127.0.0.1; another interface only when given)."""
    token: str = ""
    """The admin token (also TG_GATEWAY_TOKEN or TRUSTGRAPH_TOKEN); empty: no token."""
    api_keys: str = ""
    """The API key file (empty: <data-dir>/gateway/api-keys.json)."""
    # Pulsar refuses messages over 5 MB: a larger request could never be forwarded.
    max_frame_bytes: int = 4 * 2**20
    """Largest WebSocket frame or REST body accepted, in bytes."""
    max_outstanding: int = 64
    """Most requests one WebSocket may have in flight at once."""
    http_timeout: float = 15.0
    """Seconds for a request's headers (else the connection closes) or body (else 408)."""
    health_file: str = ""
    """tg-start's state file of its processes, reported by /api/v1/health (empty: none)."""


SETTINGS = web.AppKey("settings", GatewaySettings)
SOCKETS = web.AppKey("sockets", weakref.WeakSet[web.WebSocketResponse])


def effective_token(settings: GatewaySettings) -> str | None:
    """The configured token: setting/TG_TOKEN, else TG_GATEWAY_TOKEN, else TRUSTGRAPH_TOKEN."""
    for value in (
        settings.token,
        os.environ.get("TG_GATEWAY_TOKEN", ""),
        os.environ.get("TRUSTGRAPH_TOKEN", ""),
    ):
        if value:
            return value
    return None


def bind_host(settings: GatewaySettings, token: str | None) -> str:
    """Loopback unless told otherwise; an open gateway on another interface is warned about."""
    if not settings.host:
        return "127.0.0.1"
    if not token and settings.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning(
            "listening on %s with no token: anyone who can reach it can use it", settings.host
        )
    return settings.host


def error_response(failure: ServiceError) -> web.Response:
    return rest_response(failure)


async def call(request: web.Request, service: str) -> web.Response:
    """Validate, forward, and answer the final reply (or the error) as JSON."""
    dispatcher = request.app[DISPATCHER]
    try:
        principal = authenticate(request)
        spec, req = dispatcher.parse(service, await json_body(request), principal)
        final: dict[str, Any] = {}
        async for body, _last in dispatcher.stream(spec, req):
            final = body
    except web.HTTPRequestEntityTooLarge as exc:
        return error_response(
            ServiceError(ErrorType.FRAME_TOO_LARGE, exc.text or "request body too large")
        )
    except Exception as exc:
        failure = as_failure(exc)
        log.info("REST request to %s failed: %s", service, failure)
        return error_response(failure)
    return web.json_response(final)


async def service_handler(request: web.Request) -> web.Response:
    return await call(request, request.match_info["kind"])


async def librarian_handler(request: web.Request) -> web.Response:
    return await call(request, LIBRARIAN.name)


async def health_handler(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    status, body = await health.report(settings.pulsar_url, settings.health_file)
    return web.json_response(body, status=status)


async def socket_handler(request: web.Request) -> web.StreamResponse:
    """Upgrade to a WebSocket; a wrong ``?token=`` or bearer is refused with 401 up front."""
    offered = offered_token(request, cookie=False)
    principal = request.app[AUTH].principal(offered)
    if offered is not None and principal is None:
        return error_response(ServiceError(ErrorType.UNAUTHORIZED, "unknown or revoked token"))
    settings = request.app[SETTINGS]
    # aiohttp closes the socket above its own limit; ours, lower, answers an error frame.
    ws = web.WebSocketResponse(
        max_msg_size=4 * settings.max_frame_bytes + 1024, heartbeat=30, timeout=2
    )
    await ws.prepare(request)
    request.app[SOCKETS].add(ws)
    limits = Limits(settings.max_frame_bytes, settings.max_outstanding)
    session = SocketSession(ws, request.app[DISPATCHER], limits, request.app[AUTH], principal)
    await session.run()
    return ws


def make_app(settings: GatewaySettings, token: str | None = None) -> web.Application:
    """The aiohttp application; the Pulsar connection lives in its cleanup context."""
    app = web.Application(client_max_size=settings.max_frame_bytes)
    app[SETTINGS] = settings
    app[HTTP_TIMEOUT] = settings.http_timeout
    app[AUTH] = Auth(token, KeyStore(key_file(settings.data_dir, settings.api_keys)))
    app[SOCKETS] = weakref.WeakSet()
    app.on_shutdown.append(_close_sockets)
    app.cleanup_ctx.append(_dispatcher_ctx)
    app.router.add_get("/api/v1/health", health_handler)
    app.router.add_get("/api/v1/socket", socket_handler)
    app.router.add_post("/api/v1/flow/{flow}/service/{kind}", service_handler)
    app.router.add_post("/api/v1/librarian", librarian_handler)
    app.router.add_post("/api/v1/iam", iam_handler)
    app.router.add_post("/api/v1/collection-management", collection_management_handler)
    add_sparql_protocol(app)
    app.router.add_get("/api/v1/flow/{flow}/import/triples", import_triples_handler)
    app.router.add_get("/api/v1/flow/{flow}/import/entity-contexts", import_entity_contexts_handler)
    app.router.add_get("/api/v1/flow/{flow}/export/triples", export_triples_handler)
    app.router.add_get("/api/v1/document-stream", document_stream_handler)
    add_viewer(app, accepts, auth_on=bool(token), identify=identity)
    app.router.add_route("*", "/api/v1/{tail:.*}", unknown_handler)  # last: what nothing else took
    return app


async def _close_sockets(app: web.Application) -> None:
    """Open sockets would hold shutdown up for a minute: close them (going away)."""
    sockets: weakref.WeakSet[web.WebSocketResponse] = app[SOCKETS]
    for ws in list(sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"gateway shutting down")


async def _dispatcher_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    client = f"gateway-{settings.instance}" if settings.instance else "gateway"
    bus = Bus(settings.pulsar_url, token=settings.pulsar_token)
    dispatcher = Dispatcher(bus, Topics(settings.topic_prefix), client, settings.request_timeout)
    try:
        await dispatcher.start()
        app[DISPATCHER] = dispatcher
        app[PUBLISHER] = Publisher(bus, Topics(settings.topic_prefix))
        yield
    finally:
        await dispatcher.close()
        await bus.close()


def _touch(path: str) -> None:
    Path(path).write_text(str(time.time()))


class Gateway:
    """A running gateway in this event loop: ``url = await gw.start()``, ``await gw.stop()``."""

    def __init__(self, settings: GatewaySettings, token: str | None = None) -> None:
        self.settings = settings
        self.token = token
        self._runner: web.AppRunner | None = None
        self.port = settings.port

    async def start(self) -> str:
        """Connect to the broker, bind, and return the gateway URL."""
        host = bind_host(self.settings, self.token)
        self._runner = web.AppRunner(
            make_app(self.settings, self.token),
            access_log=None,
            keepalive_timeout=self.settings.http_timeout,  # also bounds half-sent headers
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, self.settings.port)
        try:
            await site.start()
        except OSError:
            await self.stop()
            raise
        if self._runner.addresses:  # port 0: report the real one
            self.port = int(self._runner.addresses[0][1])
        shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
        return f"http://{shown}:{self.port}/"

    async def failed(self) -> BaseException:
        """Wait until the broker side of the gateway dies for good (a reply router); why."""
        assert self._runner is not None
        return await self._runner.app[DISPATCHER].bus.failed()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


async def serve(settings: GatewaySettings, stop: asyncio.Event) -> None:
    """Run the gateway until ``stop`` is set; touch the ready file once listening."""
    gateway = Gateway(settings, effective_token(settings))
    try:
        url = await gateway.start()
    except OSError as exc:
        raise TrustGraphError(
            f"cannot listen on port {settings.port}: {exc.strerror or exc}"
        ) from None
    try:
        if settings.ready_file:
            _touch(settings.ready_file)
        log.info("gateway listening on %s (auth %s)", url, "on" if gateway.token else "off")
        stopped = asyncio.create_task(stop.wait())
        failed = asyncio.create_task(gateway.failed())
        await asyncio.wait({stopped, failed}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        failed.cancel()
        if failed.done() and not failed.cancelled():
            # Exit non-zero: a supervisor restarts a gateway that can no longer get replies.
            raise TrustGraphError(f"gateway cannot go on: {failed.result()!r}")
    finally:
        await gateway.stop()
        log.info("gateway stopped")


def main(argv: list[str] | None = None) -> None:
    """Entry point: settings from flags and ``TG_*`` environment; run until SIGTERM/SIGINT."""
    run_main("gateway", GatewaySettings, argv, serve, about=__doc__)


if __name__ == "__main__":
    main()
