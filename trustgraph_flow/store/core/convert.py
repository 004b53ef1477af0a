"""Conversion between the wire RDF terms and pyoxigraph terms."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import pyoxigraph as ox

from trustgraph_base.rdf.nquads import from_ox, literal_of, triple_of
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

__all__ = ["from_ox", "literal_of", "triple_of"]  # the wire side of the conversion (rdf.nquads)


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


def value_of(node: OxObject | None) -> str | None:
    """The IRI or lexical value of a term (None for absent terms and triple terms)."""
    if isinstance(node, ox.NamedNode | ox.Literal | ox.BlankNode):
        return node.value
    return None
