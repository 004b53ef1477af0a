"""The gateway process: aiohttp serving the WebSocket and REST APIs over the Pulsar services.

    tg-gateway --port 8088 --pulsar-url pulsar://127.0.0.1:6650 [--token T] [--host H]

Without a token it binds 127.0.0.1 only, unless ``--host`` is given explicitly.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web

from trustgraph_base.errors import TrustGraphError
from trustgraph_base.gcpause import serving_collector
from trustgraph_base.messaging import Bus, Topics
from trustgraph_base.messaging.entry import run_main
from trustgraph_flow.gateway.auth import AUTH, Auth, accepts, identity, key_file, lapsed
from trustgraph_flow.gateway.body import HTTP_TIMEOUT
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
from trustgraph_flow.gateway.dispatch import DISPATCHER, Dispatcher
from trustgraph_flow.gateway.doc_embeddings import (
    export_document_embeddings_handler,
    import_document_embeddings_handler,
)
from trustgraph_flow.gateway.graph_store import add_graph_store
from trustgraph_flow.gateway.iam import iam_handler
from trustgraph_flow.gateway.keys import KeyStore
from trustgraph_flow.gateway.metrics_board import metrics_listener
from trustgraph_flow.gateway.metrics_http import add_metrics
from trustgraph_flow.gateway.otlp import add_otlp
from trustgraph_flow.gateway.page_view import (
    page_boxes_handler,
    page_image_handler,
    plain_page_handler,
)
from trustgraph_flow.gateway.revocation import OPEN_SOCKETS, open_sockets_ctx
from trustgraph_flow.gateway.routes import (
    global_service_handler,
    health_handler,
    librarian_handler,
    service_handler,
    socket_handler,
)
from trustgraph_flow.gateway.settings import SETTINGS, GatewaySettings, bind_host, effective_token
from trustgraph_flow.gateway.sparql_protocol import add_sparql_protocol
from trustgraph_flow.gateway.viewer import add_viewer

__all__ = ["Gateway", "GatewaySettings", "bind_host", "effective_token", "main", "make_app"]

log = logging.getLogger("trustgraph_flow.gateway")


def make_app(settings: GatewaySettings, token: str | None = None) -> web.Application:
    """The aiohttp application; the Pulsar connection lives in its cleanup context."""
    app = web.Application(client_max_size=settings.max_frame_bytes)
    app[SETTINGS] = settings
    app[HTTP_TIMEOUT] = settings.http_timeout
    app[AUTH] = Auth(token, KeyStore(key_file(settings.data_dir, settings.api_keys)))
    app.cleanup_ctx.append(open_sockets_ctx)
    app.on_shutdown.append(_close_sockets)
    app.on_shutdown.append(_abandon_requests)
    app.cleanup_ctx.append(_dispatcher_ctx)
    app.router.add_get("/api/v1/health", health_handler)
    app.router.add_get("/api/v1/socket", socket_handler)
    app.router.add_get("/api/socket", socket_handler)  # @trustgraph/client's default path
    app.router.add_post("/api/v1/flow/{flow}/service/{kind}", service_handler)
    app.router.add_post("/api/v1/librarian", librarian_handler)
    app.router.add_post("/api/v1/{service:config|flow|knowledge}", global_service_handler)
    app.router.add_post("/api/v1/page-image", page_image_handler)
    app.router.add_get("/api/v1/page-image", plain_page_handler)
    app.router.add_post("/api/v1/page-boxes", page_boxes_handler)
    app.router.add_post("/api/v1/iam", iam_handler)
    app.router.add_post("/api/v1/collection-management", collection_management_handler)
    add_sparql_protocol(app)
    add_graph_store(app)
    add_metrics(app)
    app.router.add_get("/api/v1/flow/{flow}/import/triples", import_triples_handler)
    app.router.add_get("/api/v1/flow/{flow}/import/entity-contexts", import_entity_contexts_handler)
    app.router.add_get(
        "/api/v1/flow/{flow}/import/document-embeddings", import_document_embeddings_handler
    )
    app.router.add_get(
        "/api/v1/flow/{flow}/export/document-embeddings", export_document_embeddings_handler
    )
    app.router.add_get("/api/v1/flow/{flow}/export/triples", export_triples_handler)
    app.router.add_get("/api/v1/document-stream", document_stream_handler)
    add_otlp(app)  # OTLP/HTTP spans in (docs/otel.md)
    add_viewer(app, accepts, auth_on=bool(token), identify=identity, refusal=lapsed)
    app.router.add_route("*", "/api/v1/{tail:.*}", unknown_handler)  # last: what nothing else took
    return app


async def _close_sockets(app: web.Application) -> None:
    """Open sockets would hold shutdown up for a minute: close them (going away)."""
    await app[OPEN_SOCKETS].close_all()


async def _abandon_requests(app: web.Application) -> None:
    """A request still waiting for its service would hold shutdown up until its timeout
    (a minute by default): answer it now, so its caller can ask again once we are back."""
    dispatcher = app.get(DISPATCHER)
    if dispatcher is not None:
        dispatcher.abandon("the gateway is stopping: ask again once it is back")


async def _dispatcher_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    client = f"gateway-{settings.instance}" if settings.instance else "gateway"
    bus = Bus(settings.pulsar_url, token=settings.pulsar_token)
    dispatcher = Dispatcher(bus, Topics(settings.topic_prefix), client, settings.request_timeout)
    try:
        await dispatcher.start()
        app[DISPATCHER] = dispatcher
        app[PUBLISHER] = Publisher(bus, Topics(settings.topic_prefix))
        async with metrics_listener(app, bus, Topics(settings.topic_prefix), client):
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
    # What is loaded by now (modules, schemas, routes) is never garbage: out of the cyclic
    # collector, whose full collections walked it all again every few requests (an OTLP
    # import's mapping: ~190 -> ~137 µs of CPU per span in-process); and a request's models
    # live until it is answered, so the youngest generation is collected less often, as in
    # every processor (``serving_collector``).
    try:
        with serving_collector():
            await _until_stopped(gateway, settings, url, stop)
    finally:
        await gateway.stop()
        log.info("gateway stopped")


async def _until_stopped(
    gateway: Gateway, settings: GatewaySettings, url: str, stop: asyncio.Event
) -> None:
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


def main(argv: list[str] | None = None) -> None:
    """Entry point: settings from flags and ``TG_*`` environment; run until SIGTERM/SIGINT."""
    run_main("gateway", GatewaySettings, argv, serve, about=__doc__)


if __name__ == "__main__":
    main()
