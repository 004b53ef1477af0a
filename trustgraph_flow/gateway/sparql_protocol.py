"""The SPARQL 1.1 Protocol at ``/api/v1/sparql``: standard clients query the store directly.

``GET ?query=…`` or ``POST`` (``application/x-www-form-urlencoded`` with ``query=``, or an
``application/sparql-query`` body), with ``collection`` (default ``default``) and, for
the operator only, ``user``. The query goes to the same ``sparql`` service as every
other client's — the same read-only check (updates and SERVICE refused by the parser),
the same per-(user, collection) store, the same time limit — after the same
``authenticate``/``admit`` as REST and the socket: an API key fixes the user.

Results by ``Accept`` (or a ``format``/``output`` parameter): SELECT and ASK as SPARQL
JSON (default), XML, CSV or TSV; CONSTRUCT and DESCRIBE as Turtle (default), N-Triples
or TriG. Errors answer the gateway's JSON error body with its status (400 for a syntax
error or a refused update, 401/403 for auth, 406 when no asked format fits).
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError, WireError
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_base.wire import from_json
from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.dispatch import DISPATCHER
from trustgraph_flow.gateway.failure import as_failure
from trustgraph_flow.gateway.sparql_formats import GRAPHS, RESULTS, choose, graph_body, results_body

log = logging.getLogger(__name__)

UNSUPPORTED = ("default-graph-uri", "named-graph-uri")


async def query_of(request: web.Request) -> tuple[str, dict[str, str]]:
    """The query text and the other parameters, however the protocol carried them."""
    params = dict(request.query)
    if request.method == "POST":
        ctype = request.content_type
        if ctype == "application/sparql-query":
            return await request.text(), params
        if ctype == "application/x-www-form-urlencoded":
            form = await request.post()
            params.update({k: str(v) for k, v in form.items()})
        elif ctype == "application/sparql-update":
            raise ServiceError(
                ErrorType.SPARQL_UPDATE_REFUSED,
                "this endpoint is read-only: SPARQL Update is not accepted",
            )
        else:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"unsupported Content-Type {ctype!r}: use application/sparql-query "
                "or application/x-www-form-urlencoded",
            )
    if "update" in params:
        raise ServiceError(
            ErrorType.SPARQL_UPDATE_REFUSED,
            "this endpoint is read-only: SPARQL Update is not accepted",
        )
    for name in UNSUPPORTED:
        if name in params:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"{name} is not supported: name graphs with GRAPH <…> in the query "
                "(the default graph is the collection's default graph)",
            )
    query = params.pop("query", None)
    if not query:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            "no query: pass query=… (GET or form POST) or a application/sparql-query body",
        )
    return query, params


def failure_response(failure: ServiceError) -> web.Response:
    return web.json_response(failure.body(), status=failure.status)


async def sparql_handler(request: web.Request) -> web.Response:
    """One SPARQL Protocol query, answered in the negotiated format."""

    try:
        principal = authenticate(request)
        query, params = await query_of(request)
        body: dict[str, Any] = {"query": query, "collection": params.get("collection") or "default"}
        if "user" in params:
            body["user"] = params["user"]
        dispatcher = request.app[DISPATCHER]
        spec, req = dispatcher.parse("sparql", body, principal)
        final: dict[str, Any] = {}
        async for reply, _last in dispatcher.stream(spec, req):
            final = reply
        resp = from_json(SparqlQueryResponse, final, tolerant=True)
    except web.HTTPRequestEntityTooLarge as exc:
        return failure_response(
            ServiceError(ErrorType.FRAME_TOO_LARGE, exc.text or "request body too large")
        )
    except WireError as exc:
        return failure_response(
            ServiceError(ErrorType.INTERNAL_ERROR, f"the store's answer does not validate: {exc}")
        )
    except Exception as exc:
        failure = as_failure(exc)
        log.info("SPARQL protocol request failed: %s", failure)
        return failure_response(failure)
    graph = resp.query_type in ("construct", "describe")
    offered = GRAPHS if graph else RESULTS
    media = choose(request, offered)
    if media is None:
        return web.json_response(
            {
                "error": {
                    "type": "not-acceptable",
                    "message": f"none of the Accept types can carry this result: "
                    f"ask for one of {', '.join(offered)}",
                }
            },
            status=406,
        )
    if graph:
        return web.Response(body=graph_body(resp, media), content_type=media, charset="utf-8")
    return web.Response(text=results_body(resp, media), content_type=media, charset="utf-8")


def add_sparql_protocol(app: web.Application) -> None:
    app.router.add_get("/api/v1/sparql", sparql_handler)
    app.router.add_post("/api/v1/sparql", sparql_handler)
