"""The gateway's own routes: REST calls to the services, health, and the request socket."""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import LIBRARIAN
from trustgraph_base.wire import to_json
from trustgraph_flow.gateway import by_user, embeddings_query, health
from trustgraph_flow.gateway.auth import AUTH, authenticate, offered_token
from trustgraph_flow.gateway.body import json_body
from trustgraph_flow.gateway.dispatch import DISPATCHER, as_failure
from trustgraph_flow.gateway.failure import rest_response
from trustgraph_flow.gateway.revocation import OPEN_SOCKETS
from trustgraph_flow.gateway.settings import SETTINGS
from trustgraph_flow.gateway.socket import Limits, SocketSession

log = logging.getLogger("trustgraph_flow.gateway")


async def call(request: web.Request, service: str) -> web.Response:
    """Validate, forward, and answer the final reply (or the error) as JSON."""
    dispatcher = request.app[DISPATCHER]
    try:
        principal = authenticate(request)
        target, body = embeddings_query.translate(service, await json_body(request))
        spec, req = dispatcher.parse(target, body, principal)
        # Only the last reply is answered: the others' envelopes are read, not their bodies.
        shaped = service in embeddings_query.KINDS
        last = None
        async for reply in by_user.replies(dispatcher, spec, req, principal, forward=not shaped):
            last = reply
        final: dict[str, Any] = (
            {} if last is None else to_json(embeddings_query.answer(service, last))
        )
    except web.HTTPRequestEntityTooLarge as exc:
        return rest_response(
            ServiceError(ErrorType.FRAME_TOO_LARGE, exc.text or "request body too large")
        )
    except Exception as exc:
        failure = as_failure(exc)
        log.info("REST request to %s failed: %s", service, failure)
        return rest_response(failure)
    return web.json_response(final)


async def service_handler(request: web.Request) -> web.Response:
    return await call(request, request.match_info["kind"])


async def librarian_handler(request: web.Request) -> web.Response:
    return await call(request, LIBRARIAN.name)


async def global_service_handler(request: web.Request) -> web.Response:
    """The services outside any flow: ``/api/v1/config`` and ``/api/v1/flow``."""
    return await call(request, request.match_info["service"])


async def health_handler(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    status, body = await health.report(settings.pulsar_url, settings.health_file)
    return web.json_response(body, status=status)


async def socket_handler(request: web.Request) -> web.StreamResponse:
    """Upgrade to a WebSocket; a wrong ``?token=`` or bearer is refused with 401 up front."""
    offered = offered_token(request, cookie=False)
    principal = request.app[AUTH].principal(offered)
    if offered is not None and principal is None:
        return rest_response(request.app[AUTH].refused(offered))
    settings = request.app[SETTINGS]
    # aiohttp closes the socket above its own limit; ours, lower, answers an error frame.
    ws = web.WebSocketResponse(
        max_msg_size=4 * settings.max_frame_bytes + 1024, heartbeat=30, timeout=2
    )
    await ws.prepare(request)
    limits = Limits(settings.max_frame_bytes, settings.max_outstanding)
    sockets = request.app[OPEN_SOCKETS]
    session = SocketSession(ws, request.app[DISPATCHER], limits, sockets, principal)
    with sockets.held(ws, principal):
        await session.run()
    return ws
