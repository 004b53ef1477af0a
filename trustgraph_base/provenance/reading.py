"""Explain triples validated only where they are read.

A reader of explain events that looks at a few kinds of their triples (the agent checking
its tools' claims, a command printing the answer's verdict) declares its field as
``Annotated[list[Triple], only_reading(predicates, types)]``: the triples with one of
``predicates``, or ``rdf:type`` one of ``types``, are validated into models; the others
(most of a trace: the question, the walk's edges, the prompts, the timings) are parsed as
JSON and dropped unvalidated, as a reply that is only written on is
(``requests.forwarded``): they were checked when made, and the store checks them again as
it writes the trace. A triple whose predicate cannot be told is validated (and refused if
it is malformed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidatorFunctionWrapHandler, WrapValidator

from trustgraph_base.provenance.namespaces import RDF
from trustgraph_base.rdf.terms import IriTerm, Triple


def _iri(term: Any) -> Any:
    return term.get("i") if isinstance(term, dict) else None


def only_reading(predicates: Iterable[IriTerm], types: Iterable[IriTerm] = ()) -> WrapValidator:
    """The validator of a ``list[Triple]`` field that keeps only the triples read (above)."""
    read = frozenset(p.i for p in predicates)
    classes = frozenset(c.i for c in types)

    def kept(triple: Any) -> bool:
        if not isinstance(triple, dict):
            return True
        p = _iri(triple.get("p"))
        if not isinstance(p, str):
            return True
        return p in read or (p == RDF.type.i and _iri(triple.get("o")) in classes)

    def only(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(value, list):
            value = [t for t in value if kept(t)]
        return handler(value)

    return WrapValidator(only)


def kept_reading(triples: Sequence[Triple], read: frozenset[str]) -> list[Triple]:
    """The triples a caller reading ``read`` (IRIs of predicates and of ``rdf:type``
    classes) reads: what an explain event carries for it (``RagRequest.explain_read``)."""
    kind = RDF.type.i
    return [
        t for t in triples
        if t.p.i in read or (t.p.i == kind and getattr(t.o, "i", None) in read)
    ]  # fmt: skip


def read_iris(predicates: Iterable[IriTerm], types: Iterable[IriTerm] = ()) -> list[str]:
    """What ``only_reading(predicates, types)`` reads, as a request's ``explain_read``."""
    return [t.i for t in (*predicates, *types)]
