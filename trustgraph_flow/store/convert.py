"""Conversion between the wire RDF terms and pyoxigraph terms."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import pyoxigraph as ox

from trustgraph_base.rdf.terms import (
    XSD,
    BlankTerm,
    IriTerm,
    LiteralTerm,
    QuotedTriple,
    Term,
    Triple,
    TripleTerm,
)

OxSubject = ox.NamedNode | ox.BlankNode
OxObject = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
OxGraph = ox.NamedNode | ox.BlankNode | ox.DefaultGraph

DEFAULT_GRAPH = ox.DefaultGraph()
_XSD_STRING = XSD + "string"


class ConversionError(ValueError):
    """A term pyoxigraph refuses (a bad IRI, language tag or triple term position)."""


def serialized(
    items: Iterable[ox.Quad] | Iterable[ox.Triple],
    fmt: ox.RdfFormat,
    prefixes: dict[str, str] | None = None,
) -> bytes:
    """pyoxigraph's serialisation (which returns None only when it is given a file)."""
    data = ox.serialize(items, format=fmt, prefixes=prefixes)
    assert data is not None
    return data


@lru_cache(maxsize=65536)
def named(value: str) -> ox.NamedNode:
    """A NamedNode, cached: predicates, graphs and datatypes repeat in every message."""
    return ox.NamedNode(value)


def graph_node(g: str | None) -> OxGraph:
    """The graph of a wire triple: ``None``/``""`` is the default graph."""
    return named(g) if g else DEFAULT_GRAPH


def to_ox(term: Term | QuotedTriple) -> OxObject:
    """A wire term (or quoted triple) as a pyoxigraph term."""
    if isinstance(term, IriTerm):
        return named(term.i)
    if isinstance(term, LiteralTerm):
        if term.ln is not None:
            return ox.Literal(term.v, language=term.ln)
        if term.dt is not None and term.dt != _XSD_STRING:
            return ox.Literal(term.v, datatype=named(term.dt))
        return ox.Literal(term.v)
    if isinstance(term, BlankTerm):
        return ox.BlankNode(term.d)
    if isinstance(term, TripleTerm):
        return quoted_to_ox(term.tr)
    return quoted_to_ox(term)


def quoted_to_ox(tr: QuotedTriple) -> ox.Triple:
    subject = to_ox(tr.s)
    assert isinstance(subject, ox.NamedNode | ox.BlankNode)
    return ox.Triple(subject, named(tr.p.i), to_ox(tr.o))


def quad_of(t: Triple) -> ox.Quad:
    """A wire triple as a quad; raises ``ConversionError`` naming what pyoxigraph refused."""
    try:
        subject = named(t.s.i) if isinstance(t.s, IriTerm) else ox.BlankNode(t.s.d)
        return ox.Quad(subject, named(t.p.i), to_ox(t.o), graph_node(t.g))
    except (ValueError, TypeError) as exc:
        raise ConversionError(f"{exc} in triple s={t.s!r} p={t.p.i!r}") from None


def from_ox(node: OxObject) -> Term:
    """A pyoxigraph term as a wire term."""
    if isinstance(node, ox.NamedNode):
        return IriTerm(i=node.value)
    if isinstance(node, ox.Literal):
        return literal_of(node)
    if isinstance(node, ox.BlankNode):
        return BlankTerm(d=node.value)
    return TripleTerm(
        tr=QuotedTriple(
            s=from_ox(node.subject), p=IriTerm(i=node.predicate.value), o=from_ox(node.object)
        )
    )


def literal_of(node: ox.Literal) -> LiteralTerm:
    """A literal as a wire term; ``ValueError`` for an ill-typed one (SPARQL can compute them)."""
    dt = None if node.language or node.datatype.value == _XSD_STRING else node.datatype.value
    return LiteralTerm(v=node.value, dt=dt, ln=node.language)


def triple_of(q: ox.Quad | ox.Triple, graph: OxGraph | None = None) -> Triple:
    """A quad (or a triple plus its graph) as a wire triple."""
    g = q.graph_name if isinstance(q, ox.Quad) else graph
    name = g.value if isinstance(g, ox.NamedNode | ox.BlankNode) else None
    return Triple(
        s=from_ox(q.subject),
        p=IriTerm(i=q.predicate.value),
        o=from_ox(q.object),
        g=name,
    )


def value_of(node: OxObject | None) -> str | None:
    """The IRI or lexical value of a term (None for absent terms and triple terms)."""
    if isinstance(node, ox.NamedNode | ox.Literal | ox.BlankNode):
        return node.value
    return None


_ESCAPE = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})
_NEEDS_ESCAPE = re.compile(r'[\\"\n\r]')


def nquads_term(term: Term | QuotedTriple) -> str | None:
    """A term in N-Quads 1.2 syntax; None for blank nodes (a parser would rename them)."""
    if isinstance(term, IriTerm):
        return f"<{term.i}>"
    if isinstance(term, LiteralTerm):
        value = term.v
        if _NEEDS_ESCAPE.search(value):  # most literals need no escaping: skip the translate
            value = value.translate(_ESCAPE)
        if term.ln is not None:
            return f'"{value}"@{term.ln}'
        if term.dt is not None and term.dt != _XSD_STRING:
            return f'"{value}"^^<{term.dt}>'
        return f'"{value}"'
    if isinstance(term, BlankTerm):
        return None
    tr = term.tr if isinstance(term, TripleTerm) else term
    s, o = nquads_term(tr.s), nquads_term(tr.o)
    return None if s is None or o is None else f"<<( {s} <{tr.p.i}> {o} )>>"


def nquads(triples: list[Triple]) -> str | None:
    """N-Quads text of a message for ``Store.load`` (parsed in Rust: much faster than building quads
    in Python); None when it holds a blank node, which must keep its label to stay idempotent."""
    lines = []
    for t in triples:
        s, o = t.s, t.o
        s_text = f"<{s.i}>" if isinstance(s, IriTerm) else None
        o_text = f"<{o.i}>" if isinstance(o, IriTerm) else nquads_term(o)
        if s_text is None or o_text is None:
            return None
        lines.append(
            f"{s_text} <{t.p.i}> {o_text} <{t.g}> .\n"
            if t.g
            else f"{s_text} <{t.p.i}> {o_text} .\n"
        )
    return "".join(lines)
