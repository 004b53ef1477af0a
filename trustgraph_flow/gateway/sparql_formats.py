"""The SPARQL Protocol endpoint's answer formats: content negotiation and the serialisers.

SELECT and ASK as SPARQL JSON (default), XML, CSV or TSV; CONSTRUCT and DESCRIBE as
Turtle (default), N-Triples or TriG. ``choose`` picks one from a ``format``/``output``
parameter or the ``Accept`` header.
"""

from __future__ import annotations

import json
from xml.sax.saxutils import escape, quoteattr

import pyoxigraph as ox
from aiohttp import web

from trustgraph_base.rdf.results import results_csv
from trustgraph_base.rdf.terms import BlankTerm, IriTerm, LiteralTerm, Term, TripleTerm, sparql_json
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_flow.store.core.convert import graph_node, serialized, to_ox

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
