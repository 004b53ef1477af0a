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

import json
import logging
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import pyoxigraph as ox
from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError, WireError
from trustgraph_base.rdf.results import results_csv
from trustgraph_base.rdf.terms import BlankTerm, IriTerm, LiteralTerm, Term, TripleTerm, sparql_json
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_base.wire import from_json
from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.dispatch import DISPATCHER
from trustgraph_flow.gateway.failure import as_failure
from trustgraph_flow.store.core.convert import graph_node, serialized, to_ox

log = logging.getLogger(__name__)

RESULTS = [
    "application/sparql-results+json",
    "application/sparql-results+xml",
    "text/csv",
    "text/tab-separated-values",
]
GRAPHS = ["text/turtle", "application/n-triples", "application/trig"]
ALIASES = {
    "json": RESULTS[0],
    "xml": RESULTS[1],
    "csv": RESULTS[2],
    "tsv": RESULTS[3],
    "turtle": GRAPHS[0],
    "ttl": GRAPHS[0],
    "n-triples": GRAPHS[1],
    "ntriples": GRAPHS[1],
    "nt": GRAPHS[1],
    "trig": GRAPHS[2],
}
GENERIC = {
    "application/json": RESULTS[0],
    "application/xml": RESULTS[1],
    "text/xml": RESULTS[1],
    "text/plain": GRAPHS[1],
}
UNSUPPORTED = ("default-graph-uri", "named-graph-uri")


def accepted(header: str) -> list[tuple[float, int, str]]:
    """The media ranges of an Accept header with their q, best first (order breaks ties)."""
    ranges = []
    for n, part in enumerate(header.split(",")):
        media, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media:
            ranges.append((q, n, media.lower()))
    return sorted(ranges, key=lambda r: (-r[0], r[1]))


def choose(request: web.Request, offered: list[str]) -> str | None:
    """The media type to answer with: a ``format`` parameter, else the best Accept match, else the first."""
    for name in ("format", "output"):
        asked = request.query.get(name, "").strip().lower()
        wanted = ALIASES.get(asked, asked)
        if wanted in offered:
            return wanted
    header = request.headers.get("Accept", "")
    if not header.strip():
        return offered[0]
    for q, _, media in accepted(header):
        if q <= 0:
            continue
        media = GENERIC.get(media, media)
        if media in offered:
            return media
        kind, _, sub = media.partition("/")
        if sub == "*" and (kind == "*" or any(o.startswith(kind + "/") for o in offered)):
            return next(o for o in offered if kind == "*" or o.startswith(kind + "/"))
    return None


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


def xml_term(term: Term) -> str:
    if isinstance(term, IriTerm):
        return f"<uri>{escape(term.i)}</uri>"
    if isinstance(term, BlankTerm):
        return f"<bnode>{escape(term.d)}</bnode>"
    if isinstance(term, LiteralTerm):
        attr = (
            f" xml:lang={quoteattr(term.ln)}"
            if term.ln
            else (f" datatype={quoteattr(term.dt)}" if term.dt else "")
        )
        return f"<literal{attr}>{escape(term.v)}</literal>"
    assert isinstance(term, TripleTerm)
    tr = term.tr
    return (
        f"<triple><subject>{xml_term(tr.s)}</subject><predicate>{xml_term(tr.p)}</predicate>"
        f"<object>{xml_term(tr.o)}</object></triple>"
    )


def csv_value(term: Term) -> str:
    if isinstance(term, IriTerm):
        return term.i
    if isinstance(term, BlankTerm):
        return f"_:{term.d}"
    if isinstance(term, LiteralTerm):
        return term.v
    return str(to_ox(term))


def results_body(resp: SparqlQueryResponse, media: str) -> str:
    """SELECT/ASK results in one of the four result formats."""
    asked, variables = resp.query_type == "ask", resp.variables
    rows = [
        {v: t for v, t in zip(variables, b.values, strict=False) if t is not None}
        for b in resp.bindings
    ]
    if media == RESULTS[0]:
        if asked:
            return json.dumps({"head": {}, "boolean": bool(resp.ask_result)})
        shown = [{k: sparql_json(v) for k, v in row.items()} for row in rows]
        return json.dumps(
            {"head": {"vars": variables}, "results": {"bindings": shown}}, ensure_ascii=False
        )
    if media == RESULTS[1]:
        head = '<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">'
        if asked:
            return f"{head}<head/><boolean>{'true' if resp.ask_result else 'false'}</boolean></sparql>\n"
        heads = "".join(f"<variable name={quoteattr(v)}/>" for v in variables)
        results = "".join(
            "<result>"
            + "".join(
                f"<binding name={quoteattr(k)}>{xml_term(v)}</binding>" for k, v in row.items()
            )
            + "</result>"
            for row in rows
        )
        return f"{head}<head>{heads}</head><results>{results}</results></sparql>\n"
    if asked:
        return (
            ("_askResult\r\n" if media == RESULTS[2] else "?_askResult\n")
            + ("true" if resp.ask_result else "false")
            + "\n"
        )
    if media == RESULTS[2]:
        return results_csv(variables, rows, csv_value)
    lines = ["\t".join(f"?{v}" for v in variables)]
    lines += ["\t".join(str(to_ox(row[v])) if v in row else "" for v in variables) for row in rows]
    return "\n".join(lines) + "\n"


def graph_body(resp: SparqlQueryResponse, media: str) -> bytes:
    """CONSTRUCT/DESCRIBE triples as Turtle, N-Triples or TriG (pyoxigraph's serialisers, RDF 1.2)."""
    if media == GRAPHS[2]:
        quads = [
            ox.Quad(to_ox(t.s), ox.NamedNode(t.p.i), to_ox(t.o), graph_node(t.g))  # type: ignore[arg-type]
            for t in resp.triples
        ]
        return serialized(quads, ox.RdfFormat.TRIG)
    triples = [ox.Triple(to_ox(t.s), ox.NamedNode(t.p.i), to_ox(t.o)) for t in resp.triples]  # type: ignore[arg-type]
    fmt = ox.RdfFormat.TURTLE if media == GRAPHS[0] else ox.RdfFormat.N_TRIPLES
    return serialized(triples, fmt)


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
