"""Triples as plain tuples (rows), for the traces a service writes and sends on at once.

An agent session's trace is some 93 triples, each sent twice (its trace message's N-Quads,
its explain event's JSON) and never read by the process that makes it. As models each is
four objects (the triple, its three terms: ~2 µs a triple to make); as a row it is one
tuple, ``(s, p, o, g)``: the subject and predicate checked IRI terms (``iri_term``: made
once per distinct IRI), the object a term, or a plain literal's text as a ``str`` (most of
a trace's objects: thoughts, observations, labels), the graph a checked name or None.
``nquads_text`` and ``triples_json`` write rows and models alike, to the same text;
``triples_of`` makes the models for a caller that reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ParamSpec, TypeAlias

from trustgraph_base.rdf.assembled import assembled_triple, graph_name, iri_term, plain_literal
from trustgraph_base.rdf.terms import IriTerm, Term, Triple

Row: TypeAlias = tuple[IriTerm, IriTerm, Term | str, str | None]
Stated: TypeAlias = Triple | Row  # what a trace message or an explain event carries

P = ParamSpec("P")


def row(s: str, p: IriTerm, o: Term | str, graph: str | None) -> Row:
    """The row of ``s p o`` in ``graph`` (``o`` a ``str``: a plain literal). The subject and
    graph are checked, once per distinct value (``ValueError`` as ``IriTerm`` raises it); a
    ``str`` subclass (an enum's member) is its ``str()``, as a literal model's value."""
    if type(o) is not str and isinstance(o, str):
        o = str(o)
    return (iri_term(s), p, o, graph_name(graph))


def triple_of(r: Row) -> Triple:
    """The model of a row: the one the builders made before rows (same fields, same set)."""
    s, p, o, g = r
    return assembled_triple(s, p, plain_literal(o) if type(o) is str else o, g)  # type: ignore[arg-type]


def triples_of(rows: Iterable[Stated]) -> list[Triple]:
    """The models of ``rows`` (models among them kept as they are)."""
    return [triple_of(r) if type(r) is tuple else r for r in rows]  # type: ignore[misc]


def as_triples(build: Callable[P, list[Row]]) -> Callable[P, list[Triple]]:
    """A builder of rows as a builder of models, for the callers that read the triples."""

    def models(*args: P.args, **kwargs: P.kwargs) -> list[Triple]:
        return triples_of(build(*args, **kwargs))

    models.__name__ = build.__name__.removesuffix("_rows") + "_triples"
    models.__doc__ = build.__doc__
    return models
