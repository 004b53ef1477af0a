"""Wire triples as JSON text written by hand: the bytes pydantic writes for them, sooner.

An explain event carries its entity's triples inline (``explain_triples``), some 24 an agent
iteration, and pydantic's serialiser walks four models a triple (the triple, its three
terms) through their discriminated unions: the largest part of what explainability added
to the agent's CPU (session 19's profile). Here a triple is one f-string: its subject
written once for the entity's run of triples, its predicate's text kept (a vocabulary's
few IRIs; a trace's own IRIs are new in every session, so keeping them would only cost),
each string escaped by the ``json`` module's C escaper, which escapes exactly what
pydantic's does (``"``, ``\\``, the control characters, as ``\\n`` or ``\\u001f``; nothing
else: the text is UTF-8, not ASCII). One session of ``bench_agent``'s, built as the agent
builds it, each session's URIs new: 185 µs to encode its 8 explain events, 261 by pydantic.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from json.encoder import encode_basestring
from typing import Any

from trustgraph_base.rdf.rows import Stated
from trustgraph_base.rdf.terms import (
    BlankTerm,
    IriTerm,
    LiteralTerm,
    QuotedTriple,
    TripleTerm,
)

__all__ = ["triples_json"]


@lru_cache(maxsize=1024)
def _predicate(value: str) -> str:
    """A predicate's text (a vocabulary's few IRIs: kept, unlike a trace's own, each new)."""
    return ',"p":{"t":"i","i":' + encode_basestring(value) + '},"o":'


@lru_cache(maxsize=64)
def _graph(graph: str | None) -> str:
    """A triple's end: its graph (absent for the default graph, as ``exclude_none`` has it)."""
    return "}" if graph is None else ',"g":' + encode_basestring(graph) + "}"


def _term(term: object) -> str:
    kind = type(term)
    if kind is IriTerm:
        return '{"t":"i","i":' + encode_basestring(term.i) + "}"  # type: ignore[attr-defined]
    if kind is LiteralTerm:
        values = term.__dict__
        text = '{"t":"l","v":' + encode_basestring(values["v"])
        if values["dt"] is not None:
            text += ',"dt":' + encode_basestring(values["dt"])
        if values["ln"] is not None:
            text += ',"ln":' + encode_basestring(values["ln"])
        return text + "}"
    if kind is BlankTerm:
        return '{"t":"b","d":' + encode_basestring(term.d) + "}"  # type: ignore[attr-defined]
    if kind is TripleTerm:
        tr: QuotedTriple = term.tr  # type: ignore[attr-defined]
        p = _predicate(tr.p.i)
        return f'{{"t":"t","tr":{{"s":{_term(tr.s)}{p}{_term(tr.o)}}}}}'
    raise TypeError(f"not a wire term: {kind.__name__}")


def triples_json(triples: Sequence[Stated]) -> str:
    """The JSON array of ``triples`` (models, or rows: ``rdf.rows``) as
    ``model_dump_json(exclude_none=True)`` writes each model (the same text;
    ``tests/unit/test_json_text.py`` holds them side by side). A string with a lone
    surrogate cannot be UTF-8: encoding the text raises, as pydantic would."""
    parts: list[str] = []
    add = parts.append
    subject, head = None, ""  # an entity's triples come together: its subject written once
    s: Any
    p: Any
    o: Any
    g: Any
    for t in triples:
        if type(t) is tuple:
            s, p, o, g = t
        else:
            values = t.__dict__
            s, p, o, g = values["s"], values["p"], values["o"], values["g"]
        if s is not subject:
            subject, head = s, '{"s":' + _term(s)
        kind = type(o)
        if kind is str:  # a row's plain literal
            obj = '{"t":"l","v":' + encode_basestring(o) + "}"
        elif kind is LiteralTerm and o.dt is None and o.ln is None:  # most objects: inline
            obj = '{"t":"l","v":' + encode_basestring(o.v) + "}"
        else:
            obj = _term(o)
        add(f"{head}{_predicate(p.i)}{obj}{_graph(g)}")
    return "[" + ",".join(parts) + "]"
