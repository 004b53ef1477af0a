"""Cross-origin access to the SPARQL endpoints, off unless ``--cors-origins`` names origins.

With ``--cors-origins 'https://a.example,https://b.example'`` (or ``*``) a browser page of
those origins may query ``/api/v1/sparql`` and ``/api/v1/graph-store``: a preflight
``OPTIONS`` is answered with the methods and headers allowed, and each answer names the
origin. Without it an ``OPTIONS`` still says which methods the endpoint takes (``Allow``),
and no answer carries ``Access-Control-Allow-Origin``, so browsers keep other origins out.
Credentials are the ``Authorization`` header only (no cookies): ``*`` is safe to offer.
"""

from __future__ import annotations

from aiohttp import web

from trustgraph_flow.gateway.settings import SETTINGS

METHODS = "GET, POST, OPTIONS"


def allowed_origin(request: web.Request) -> str | None:
    """The ``Access-Control-Allow-Origin`` value for this request, or None (not allowed)."""
    origin = request.headers.get("Origin")
    configured = request.app[SETTINGS].cors_origins
    if not origin or not configured.strip():
        return None
    origins = {o.strip() for o in configured.split(",") if o.strip()}
    if "*" in origins:
        return "*"
    return origin if origin in origins else None


def with_cors(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """The response, naming the caller's origin when it is allowed."""
    origin = allowed_origin(request)
    if origin is not None:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Vary"] = "Origin"
    return response


async def preflight_handler(request: web.Request) -> web.StreamResponse:
    """``OPTIONS``: what the endpoint accepts, and for an allowed origin what it may send."""
    response = web.Response(status=204, headers={"Allow": METHODS})
    if allowed_origin(request) is not None:
        response.headers["Access-Control-Allow-Methods"] = METHODS
        response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Accept"
        response.headers["Access-Control-Max-Age"] = "600"
    return with_cors(request, response)
