"""The SPARQL 1.1 Graph Store HTTP Protocol, read-only, at ``/api/v1/graph-store``.

``GET ?graph=IRI`` (a named graph of the caller's collection, e.g. ``urn:graph:source``) or
``GET ?default`` (its default graph: the extracted knowledge), with the collection in the
path (``/api/v1/graph-store/{collection}``) or as ``collection``: the graph's triples in the
negotiated format (``sparql_formats``: Turtle by default). An empty or unknown graph is 404,
as the protocol says. ``PUT``, ``POST`` and ``DELETE`` are refused (405): the store is
written only through the pipeline. Asked through the ``triples`` service, as the caller
may (``authenticate``, and the dispatcher's per-user scoping).
"""

from __future__ import annotations

import logging
from typing import Any

import pyoxigraph as ox
from aiohttp import web

from trustgraph_base.bounds import TRIPLE_QUERY_LIMIT
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.store import TriplesQueryResponse
from trustgraph_base.wire import from_json
from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.collections import Asker
from trustgraph_flow.gateway.cors import preflight_handler, with_cors
from trustgraph_flow.gateway.dispatch import DISPATCHER
from trustgraph_flow.gateway.failure import as_failure
from trustgraph_flow.gateway.sparql_replies import collection_of, failure_response, negotiated_graph
from trustgraph_flow.store.core.convert import to_ox

log = logging.getLogger(__name__)

READ = "GET, HEAD, OPTIONS"


def graph_of(request: web.Request) -> str:
    """The graph asked for: ``""`` (the default graph) or a checked IRI."""
    graph, default = request.query.get("graph"), "default" in request.query
    if (graph is None) == (not default):
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            "name the graph with ?graph=IRI or ask for the default graph with ?default (one of them)",
        )
    if graph is None:
        return ""
    try:
        return ox.NamedNode(graph).value
    except ValueError:
        raise ServiceError(ErrorType.BAD_REQUEST, f"graph {graph!r} is not an IRI") from None


async def graph_store_handler(request: web.Request) -> web.StreamResponse:
    try:
        principal = authenticate(request)
        graph = graph_of(request)
        params = dict(request.query)
        body: dict[str, Any] = {
            "collection": collection_of(request, params),
            "g": graph,
            "limit": TRIPLE_QUERY_LIMIT.high,
        }
        if "user" in params:
            body["user"] = params["user"]
        reply = await Asker(request.app[DISPATCHER], principal)("triples", body)
        triples = from_json(TriplesQueryResponse, reply, tolerant=True).triples
        if not triples:
            shown = f"graph <{graph}>" if graph else "the default graph"
            raise ServiceError(ErrorType.NOT_FOUND, f"{shown} of this collection holds nothing")
    except Exception as exc:
        failure = as_failure(exc)
        log.info("graph store request failed: %s", failure)
        return failure_response(request, failure)
    statements = [ox.Triple(to_ox(t.s), ox.NamedNode(t.p.i), to_ox(t.o)) for t in triples]  # type: ignore[arg-type]
    return negotiated_graph(request, statements)


async def read_only_handler(request: web.Request) -> web.StreamResponse:
    failure = ServiceError(
        ErrorType.BAD_REQUEST,
        "the graph store is read-only here: the store is written by loading documents "
        "(tg-load-document) and by the flows' traces",
    )
    response = web.json_response(failure.body(), status=405, headers={"Allow": READ})
    return with_cors(request, response)


def add_graph_store(app: web.Application) -> None:
    for path in ("/api/v1/graph-store", "/api/v1/graph-store/{collection}"):
        app.router.add_get(path, graph_store_handler)
        app.router.add_route("OPTIONS", path, preflight_handler)
        for method in ("PUT", "POST", "DELETE", "PATCH"):
            app.router.add_route(method, path, read_only_handler)
