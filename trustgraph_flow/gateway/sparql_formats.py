"""The SPARQL Protocol endpoint's answer formats: content negotiation and the serialisers.

SELECT as SPARQL JSON (default), XML, CSV or TSV; ASK as JSON or XML (the CSV and TSV
formats are for SELECT results only); CONSTRUCT and DESCRIBE as Turtle (default),
N-Triples, TriG, N-Quads (RDF 1.2: triple terms kept), RDF/XML or JSON-LD (RDF 1.1: each
triple term an ``rdf:Statement`` node, ``store.core.reify``, so RDF 1.1 readers take
them). ``choose`` picks one from a ``format``/``output`` parameter or the ``Accept`` header.
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
from trustgraph_flow.store.core.reify import rdf11

RESULTS = [
    "application/sparql-results+json",
    "application/sparql-results+xml",
    "text/csv",
    "text/tab-separated-values",
]
BOOLEAN = RESULTS[:2]
GRAPHS = [
    "text/turtle",
    "application/n-triples",
    "application/trig",
    "application/n-quads",
    "application/rdf+xml",
    "application/ld+json",
]
RDF11 = {"application/rdf+xml": ox.RdfFormat.RDF_XML, "application/ld+json": ox.RdfFormat.JSON_LD}
RDF12 = {
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "application/trig": ox.RdfFormat.TRIG,
    "application/n-quads": ox.RdfFormat.N_QUADS,
}
WITH_GRAPHS = ("application/trig", "application/n-quads")
# Names a ``format``/``output`` parameter may use, and generic media types, by what is answered.
ALIASES = {
    "json": RESULTS[0],
    "xml": RESULTS[1],
    "csv": RESULTS[2],
    "tsv": RESULTS[3],
}
GRAPH_ALIASES = {
    "turtle": GRAPHS[0],
    "ttl": GRAPHS[0],
    "n-triples": GRAPHS[1],
    "ntriples": GRAPHS[1],
    "nt": GRAPHS[1],
    "trig": GRAPHS[2],
    "n-quads": GRAPHS[3],
    "nquads": GRAPHS[3],
    "xml": GRAPHS[4],
    "rdf": GRAPHS[4],
    "rdfxml": GRAPHS[4],
    "rdf+xml": GRAPHS[4],
    "json-ld": GRAPHS[5],
    "jsonld": GRAPHS[5],
    "json": GRAPHS[5],
}
GENERIC = {
    "application/json": RESULTS[0],
    "application/xml": RESULTS[1],
    "text/xml": RESULTS[1],
}
GRAPH_GENERIC = {
    "application/json": GRAPHS[5],
    "application/xml": GRAPHS[4],
    "text/xml": GRAPHS[4],
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
    """The media type to answer with: a ``format``/``output`` parameter, else the best
    Accept match, else the first offered."""
    graph = offered[0] in GRAPHS
    aliases, generic = (GRAPH_ALIASES, GRAPH_GENERIC) if graph else (ALIASES, GENERIC)
    for name in ("format", "output"):
        asked = request.query.get(name, "").strip().lower()
        wanted = aliases.get(asked, asked)
        if wanted in offered:
            return wanted
    header = request.headers.get("Accept", "")
    if not header.strip():
        return offered[0]
    for q, _, media in accepted(header):
        if q <= 0:
            continue
        media = generic.get(media, media)
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


def tsv_value(term: Term) -> str:
    """A term as SPARQL 1.2 TSV writes it: Turtle's form, a triple term as ``<<( s p o )>>``."""
    if isinstance(term, TripleTerm):
        tr = term.tr
        return f"<<( {tsv_value(tr.s)} {tsv_value(tr.p)} {tsv_value(tr.o)} )>>"
    return str(to_ox(term))  # a tab or line break in a literal is escaped (\t, \n)


def csv_value(term: Term) -> str:
    """A term as CSV writes it: the bare IRI or lexical form; a triple term in TSV's form."""
    if isinstance(term, IriTerm):
        return term.i
    if isinstance(term, BlankTerm):
        return f"_:{term.d}"
    if isinstance(term, LiteralTerm):
        return term.v
    return tsv_value(term)


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
    assert not asked, "ASK is answered in JSON or XML only (BOOLEAN)"
    if media == RESULTS[2]:
        return results_csv(variables, rows, csv_value)
    lines = ["\t".join(f"?{v}" for v in variables)]
    lines += ["\t".join(tsv_value(row[v]) if v in row else "" for v in variables) for row in rows]
    return "\n".join(lines) + "\n"


def graph_body(resp: SparqlQueryResponse, media: str) -> bytes:
    """CONSTRUCT/DESCRIBE triples in ``media``."""
    quads = [
        ox.Quad(to_ox(t.s), ox.NamedNode(t.p.i), to_ox(t.o), graph_node(t.g))  # type: ignore[arg-type]
        for t in resp.triples
    ]
    return quads_body(quads, media)


def triples_body(triples: list[ox.Triple], media: str) -> bytes:
    return quads_body([ox.Quad(t.subject, t.predicate, t.object) for t in triples], media)


def quads_body(quads: list[ox.Quad], media: str) -> bytes:
    """Statements in ``media``: RDF 1.2 (pyoxigraph's serialisers) or, for RDF/XML and
    JSON-LD, RDF 1.1 with each triple term reified."""
    if media in RDF11:
        quads = rdf11(quads)
    if media in WITH_GRAPHS:
        return serialized(quads, RDF12[media])
    triples = [ox.Triple(q.subject, q.predicate, q.object) for q in quads]
    return serialized(triples, RDF12.get(media) or RDF11[media])
