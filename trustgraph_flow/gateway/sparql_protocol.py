"""The SPARQL 1.1 Protocol at ``/api/v1/sparql``: standard clients query the store directly.

``GET ?query=…`` or ``POST`` (``application/x-www-form-urlencoded`` with ``query=``, or an
``application/sparql-query`` body), with the collection in the path
(``/api/v1/sparql/{collection}``, for clients that append ``?query=`` to the endpoint URL)
or as ``collection`` (default ``default``) and, for the operator only, ``user``. A GET
without a query answers the SPARQL 1.1 Service Description (``sparql_service``); a
collection the caller does not have is ``not-found`` (404), never an empty answer (nor a
count of 0).
``default-graph-uri`` and ``named-graph-uri`` (each repeatable) set the query's dataset from
the collection's graphs (``SparqlQueryRequest``). The query goes to the same ``sparql`` service as every
other client's — the same read-only check (updates and SERVICE refused by the parser),
the same per-(user, collection) store, the same time limit — after the same
``authenticate``/``admit`` as REST and the socket: an API key fixes the user.

Results by ``Accept`` (or a ``format``/``output`` parameter): ``sparql_formats``. Errors answer the gateway's JSON error body with its status (400 for a syntax
error or a refused update, 401/403 for auth, 406 when no asked format fits).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web

from trustgraph_base.bounds import LISTING_WAIT
from trustgraph_base.errors import ErrorType, ServiceError, WireError
from trustgraph_base.schema import DEFAULT_COLLECTION
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_base.wire import from_json
from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.collections import Asker, answer
from trustgraph_flow.gateway.cors import preflight_handler, with_cors
from trustgraph_flow.gateway.dispatch import DISPATCHER
from trustgraph_flow.gateway.failure import as_failure
from trustgraph_flow.gateway.sparql_formats import BOOLEAN, RESULTS, choose, results_body
from trustgraph_flow.gateway.sparql_replies import (
    collection_of,
    endpoint_url,
    failure_response,
    negotiated_graph,
    not_acceptable,
)
from trustgraph_flow.gateway.sparql_service import service_description

log = logging.getLogger(__name__)

DATASET = ("default-graph-uri", "named-graph-uri")  # repeatable: the query's dataset


async def query_of(request: web.Request) -> tuple[str | None, dict[str, Any]]:
    """The query text and the other parameters, however the protocol carried them (no
    query: a GET that asks for the service description); the dataset's as lists."""
    params: dict[str, Any] = dict(request.query)
    for name in DATASET:
        if name in request.query:
            params[name] = request.query.getall(name)
    if request.method == "POST":
        ctype = request.content_type
        if ctype == "application/sparql-query":
            return await request.text(), params
        if ctype == "application/x-www-form-urlencoded":
            form = await request.post()
            params.update({k: str(v) for k, v in form.items() if k not in DATASET})
            for name in DATASET:
                if name in form:
                    params[name] = [*params.get(name, []), *map(str, form.getall(name))]
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
    query = params.pop("query", None)
    if not query and request.method == "GET" and "query" not in request.query:
        return None, params
    if not query:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            "no query: pass query=… (GET or form POST) or a application/sparql-query body",
        )
    return query, params


async def sparql_handler(request: web.Request) -> web.StreamResponse:
    """One SPARQL Protocol query, answered in the negotiated format."""
    try:
        principal = authenticate(request)
        query, params = await query_of(request)
        if query is None:
            return negotiated_graph(request, service_description(endpoint_url(request)))
        scope: dict[str, Any] = {"collection": collection_of(request, params)}
        if "user" in params:
            scope["user"] = params["user"]
        dataset = {name: params[name] for name in DATASET if name in params}
        ask = Asker(request.app[DISPATCHER], principal)
        resp = from_json(
            SparqlQueryResponse,
            await ask("sparql", {**scope, **dataset, "query": query}),
            tolerant=True,
        )
        if resp.may_be_blank():
            await known_collection(ask, scope)
    except web.HTTPRequestEntityTooLarge as exc:
        return failure_response(
            request, ServiceError(ErrorType.FRAME_TOO_LARGE, exc.text or "request body too large")
        )
    except WireError as exc:
        return failure_response(
            request,
            ServiceError(ErrorType.INTERNAL_ERROR, f"the store's answer does not validate: {exc}"),
        )
    except Exception as exc:
        failure = as_failure(exc)
        log.info("SPARQL protocol request failed: %s", failure)
        return failure_response(request, failure)
    if resp.query_type in ("construct", "describe"):
        return negotiated_graph(request, resp)
    offered = BOOLEAN if resp.query_type == "ask" else RESULTS
    media = choose(request, offered)
    if media is None:
        return not_acceptable(request, offered, resp.query_type == "ask")
    return with_cors(
        request,
        web.Response(text=results_body(resp, media), content_type=media, charset="utf-8"),
    )


async def known_collection(ask: Asker, scope: dict[str, Any]) -> None:
    """Raise ``not-found`` when an answer that may be blank came from a collection the user
    does not have. The list is waited for ``LISTING_WAIT`` at most (it needs the librarian:
    on a stack without one this hung), then the answer stands, as the list commands do."""
    if scope["collection"] == DEFAULT_COLLECTION:
        return
    listing = {k: v for k, v in scope.items() if k == "user"}
    try:  # the list needs the librarian: on a stack without one, the answer stands
        listed = await asyncio.wait_for(
            answer(ask, {**listing, "operation": "list-collections"}), LISTING_WAIT
        )
    except TimeoutError:
        log.info(
            "SPARQL protocol: the collections were not listed within %g s (no librarian?): "
            "the answer from %r stands",
            LISTING_WAIT,
            scope["collection"],
        )
        return
    if scope["collection"] not in {c["collection"] for c in listed["collections"]}:
        raise ServiceError(
            ErrorType.NOT_FOUND,
            f"no collection {scope['collection']!r}: tg-list-collections shows yours",
        )


def add_sparql_protocol(app: web.Application) -> None:
    for path in ("/api/v1/sparql", "/api/v1/sparql/{collection}"):
        app.router.add_get(path, sparql_handler)
        app.router.add_post(path, sparql_handler)
        app.router.add_route("OPTIONS", path, preflight_handler)
