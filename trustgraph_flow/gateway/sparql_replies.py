"""What the SPARQL Protocol and Graph Store endpoints answer with: the collection a request
names, a graph in the negotiated format, errors (406 included), each with CORS headers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyoxigraph as ox
from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import DEFAULT_COLLECTION
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_flow.gateway.cors import with_cors
from trustgraph_flow.gateway.sparql_formats import GRAPHS, choose, graph_body, triples_body


def failure_response(request: web.Request, failure: ServiceError) -> web.StreamResponse:
    return with_cors(request, web.json_response(failure.body(), status=failure.status))


def collection_of(request: web.Request, params: Mapping[str, Any]) -> str:
    """The collection named in the path, else by the ``collection`` parameter, else default."""
    in_path = request.match_info.get("collection")
    named = params.get("collection")
    if in_path and named and named != in_path:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"the path names collection {in_path!r} and the collection parameter {named!r}: "
            "name one",
        )
    return in_path or named or DEFAULT_COLLECTION


def endpoint_url(request: web.Request) -> str:
    return str(request.url.with_query(None))


def negotiated_graph(
    request: web.Request, resp: SparqlQueryResponse | list[ox.Triple]
) -> web.StreamResponse:
    """A graph (CONSTRUCT/DESCRIBE result, or triples) in the format the client accepts."""
    media = choose(request, GRAPHS)
    if media is None:
        return not_acceptable(request, GRAPHS, False)
    body = (
        graph_body(resp, media)
        if isinstance(resp, SparqlQueryResponse)
        else triples_body(resp, media)
    )
    return with_cors(request, web.Response(body=body, content_type=media, charset="utf-8"))


def not_acceptable(request: web.Request, offered: list[str], ask: bool) -> web.StreamResponse:
    why = (
        "an ASK result has no CSV or TSV form (those formats are for SELECT results): "
        if ask
        else "none of the Accept types can carry this result: "
    )
    error = {"type": "not-acceptable", "message": f"{why}ask for one of {', '.join(offered)}"}
    return with_cors(request, web.json_response({"error": error}, status=406))
