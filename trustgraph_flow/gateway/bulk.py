"""TrustGraph's bulk import socket, and one clear answer for what this gateway does not offer.

``/api/v1/flow/{flow}/import/triples`` (what ``tg-load-turtle`` and ``tg-load-knowledge``
send): each text frame ``{"metadata": {"id", "collection", …}, "triples": [{s, p, o}, …]}``
is written to the collection's **default graph** (the knowledge GraphRAG traverses) through
the store's topic. A triple naming a graph is refused: the trace and source graphs are
written by the services only, never from outside. A bad frame is answered with an error
frame; the socket stays open.

Any other path under ``/api/v1/`` answers ``unknown-service`` naming what this gateway
offers, so a client learns at once that the service is not here.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

from trustgraph_base.errors import ErrorType, ServiceError, WireError
from trustgraph_base.messaging import EXPLAIN_STORE, SERVICES, TRIPLES_STORE, Bus, Topics
from trustgraph_base.schema import DEFAULT_COLLECTION, DEFAULT_USER, Triples
from trustgraph_base.wire import from_json, to_json
from trustgraph_flow.gateway import by_user
from trustgraph_flow.gateway.auth import Principal, authenticate
from trustgraph_flow.gateway.dispatch import DISPATCHER
from trustgraph_flow.gateway.failure import as_failure, rest_response, status_response
from trustgraph_flow.gateway.revocation import OPEN_SOCKETS, REVOKED, end

log = logging.getLogger(__name__)

PUBLISHER = web.AppKey("bulk_publisher", object)

OFFERED = (
    "POST /api/v1/flow/{flow}/service/{service} and the socket /api/v1/socket for the services "
    + ", ".join(sorted(SERVICES))
    + "; POST /api/v1/librarian, /api/v1/config, /api/v1/flow and /api/v1/knowledge; POST /api/v1/collection-management; POST /api/v1/iam (API keys); "
    "the sockets /api/v1/flow/{flow}/import/triples, …/import/entity-contexts, …/import/document-embeddings, …/export/triples and …/export/document-embeddings; GET /api/v1/document-stream; GET /api/v1/health"
)


class Publisher:
    """Writes imported triples to the store's topic (imported traces to the trace topic)."""

    def __init__(self, bus: Bus, topics: Topics) -> None:
        self.bus = bus
        self.topic = topics.topic(TRIPLES_STORE)
        self.traces = topics.topic(EXPLAIN_STORE)  # OTLP imports (gateway.otlp)

    async def write(self, principal: Principal, frame: Any) -> int:
        """Publish one import frame; how many triples it held. ``ServiceError`` when it is refused."""
        if not isinstance(frame, dict) or not isinstance(frame.get("triples"), list):
            raise ServiceError(
                ErrorType.BAD_FRAME, "an import frame is {'metadata': {...}, 'triples': [...]}"
            )
        meta: dict[str, Any] = frame["metadata"] if isinstance(frame.get("metadata"), dict) else {}
        scoped = principal.scope(
            {k: meta[k] for k in ("user", "collection") if isinstance(meta.get(k), str) and meta[k]}
        )
        try:
            batch = from_json(
                Triples,
                {
                    "metadata": {
                        "id": str(meta.get("id") or f"urn:trustgraph:import:{uuid.uuid4()}"),
                        "user": scoped.get("user", DEFAULT_USER),
                        "collection": scoped.get("collection", DEFAULT_COLLECTION),
                    },
                    "triples": frame["triples"],
                },
            )
        except WireError as exc:
            raise ServiceError(ErrorType.BAD_FRAME, f"import/triples: {exc}") from None
        named = sorted({t.g for t in batch.triples if t.g})
        if named:
            raise ServiceError(
                ErrorType.FORBIDDEN,
                f"import/triples writes the default graph only, not {named[0]!r} "
                "(trace and source graphs are written by the services)",
            )
        await self.bus.publish(self.topic, batch)
        return len(batch.triples)


async def import_triples_handler(request: web.Request) -> web.StreamResponse:
    publisher = request.app[PUBLISHER]
    assert isinstance(publisher, Publisher)
    return await serve_import(request, publisher.write, "triples")


async def serve_import(
    request: web.Request,
    write: Callable[[Principal, Any], Awaitable[int]],
    what: str,
) -> web.StreamResponse:
    """An import socket: each frame is written for the caller (``write`` answers how many
    items it took); a frame that is not JSON, or that ``write`` refuses, is answered with an
    error frame and the socket stays open."""
    try:
        principal = authenticate(request)
    except ServiceError as failure:
        return web.json_response(failure.body(), status=failure.status)
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    sockets = request.app[OPEN_SOCKETS]
    total = 0
    with sockets.held(ws, principal), contextlib.suppress(ConnectionError):
        async for msg in ws:
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                continue
            if not sockets.live(principal):  # revoked since the last sweep: write nothing
                await ws.send_str(json.dumps(ServiceError(ErrorType.UNAUTHORIZED, REVOKED).body()))
                await end(ws, REVOKED)
                break
            try:
                frame = json.loads(msg.data)
            except (ValueError, RecursionError) as exc:
                bad = ServiceError(ErrorType.BAD_FRAME, f"malformed JSON: {exc}")
                await ws.send_str(json.dumps(bad.body()))
                continue
            try:
                total += await write(principal, frame)
            except Exception as exc:
                await ws.send_str(json.dumps(as_failure(exc).body()))
    log.info("imported %d %s", total, what)
    return ws


EXPORT_BATCH = 1000  # triples asked of the store per streamed reply
EXPORT_LIMIT = 1_000_000  # the most triples one export sends (the store's largest limit)


async def export_triples_handler(request: web.Request) -> web.StreamResponse:
    """``/api/v1/flow/{flow}/export/triples``: every triple of the caller's collection (its
    default graph, and the source and trace graphs with their ``g``), one text frame each
    (``{s, p, o, g?}``), then the socket closes. The reference taps the triples being
    written instead; a snapshot is what this gateway can give without replaying the broker.
    ``?collection=`` picks the collection (``default``)."""
    dispatcher = request.app[DISPATCHER]
    try:
        principal = authenticate(request)
        ask = {k: request.query[k] for k in ("user", "collection") if request.query.get(k)}
        spec, req = dispatcher.parse(
            "triples",
            {**ask, "g": "*", "limit": EXPORT_LIMIT, "streaming": True, "batch-size": EXPORT_BATCH},
            principal,
        )
    except Exception as exc:
        failure = as_failure(exc)
        return web.json_response(failure.body(), status=failure.status)
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    sent = 0
    with request.app[OPEN_SOCKETS].held(ws, principal), contextlib.suppress(ConnectionError):
        try:
            async for reply, _last in dispatcher.stream(spec, req):
                for triple in reply.get("response", []):
                    await ws.send_str(json.dumps(triple))  # closed (key revoked): raises
                    sent += 1
        except ConnectionError:
            raise
        except Exception as exc:
            await ws.send_str(json.dumps(as_failure(exc).body()))
        await ws.close()
    log.info("exported %d triples", sent)
    return ws


async def unknown_handler(request: web.Request) -> web.Response:
    failure = ServiceError(
        ErrorType.UNKNOWN_SERVICE,
        f"this gateway does not offer {request.path!r}; it offers {OFFERED}",
    )
    if request.headers.get("Upgrade", "").lower() == "websocket":
        # A socket client reads the status of the refused upgrade: 404, never a retry loop.
        return web.json_response(failure.body(), status=failure.status)
    return rest_response(failure)


STREAM_PART = 2 * 2**20  # bytes asked of the librarian per reply (under its per-message cap)


async def document_stream_handler(request: web.Request) -> web.StreamResponse:
    """TrustGraph's ``GET /api/v1/document-stream?document-id=…``: a document's bytes (or a
    page's or chunk's text), read from the librarian a part at a time."""

    dispatcher = request.app[DISPATCHER]
    doc = request.query.get("document-id", "")
    scope = {k: request.query[k] for k in ("user", "collection") if request.query.get(k)}
    response: web.StreamResponse | None = None
    try:
        principal = authenticate(request)
        if not doc:
            raise ServiceError(ErrorType.BAD_REQUEST, "document-stream needs ?document-id=")

        async def part(offset: int, length: int | None) -> tuple[bytes, int]:
            ask: dict[str, Any] = {**scope, "operation": "get-content", "id": doc, "offset": offset}
            if length is not None:
                ask["length"] = length
            spec, req = dispatcher.parse("librarian", ask, principal)
            reply: dict[str, Any] = {}
            async for found in by_user.replies(dispatcher, spec, req, principal):
                reply = to_json(found)
            data = base64.b64decode(reply.get("content", ""))
            return data, int(reply.get("total", len(data)))

        data, total = await part(0, None)
        response = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
        await response.prepare(request)
        await response.write(data)
        sent = len(data)
        # Page and chunk text comes whole (its total counts characters); a document in parts.
        while data and sent < total and not whole_text(data, total):
            data, total = await part(sent, STREAM_PART)
            await response.write(data)
            sent += len(data)
    except Exception as exc:
        if response is not None:
            raise  # the headers are sent: the response ends short
        return status_response(as_failure(exc))
    await response.write_eof()
    return response


def whole_text(data: bytes, total: int) -> bool:
    """Whether ``data`` is a whole text of ``total`` characters (not a part of a document)."""
    try:
        return len(data.decode("utf-8")) == total
    except UnicodeDecodeError:
        return False
