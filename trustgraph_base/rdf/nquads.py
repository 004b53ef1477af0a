"""Wire triples as N-Quads 1.2 text, and that text read back with the schema's rules.

The store topic carries each ``Triples`` message's triples as N-Quads text (``nquads``)
instead of a JSON object per term: a third smaller, written with one f-string a triple,
and read by pyoxigraph's parser in Rust. The parser is strict (absolute IRIs per RFC 3987,
BCP 47 language tags, triple terms as objects only); ``parse_checked`` adds what the
JSON schema checks beyond it, so either form accepts the same triples: a typed literal's
lexical form (``"abc"^^xsd:integer`` is refused), blank node labels, IRI graph names, no
base direction (the wire terms have none).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import pyoxigraph as ox

from trustgraph_base.rdf.assembled import assembled, assembled_triple, iri_term, quoted_term
from trustgraph_base.rdf.rows import Stated
from trustgraph_base.rdf.terms import (
    XSD,
    BlankTerm,
    IriTerm,
    LiteralTerm,
    QuotedTriple,
    Term,
    Triple,
    TripleTerm,
    check_blank,
    check_lexical,
)

_XSD_STRING = XSD + "string"
_NEEDS_ESCAPE = re.compile(r'[\\"\n\r]')


def _escaped(value: str) -> str:
    """``\\ " \\n \\r`` escaped (the backslash first): four ``str.replace`` cost ~0.7 µs on a
    span's JSON literal where ``str.translate`` with a table cost ~9 (it maps character by
    character through a dict: 16 µs of the OTLP import's mapping a span)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def term_text(term: Term | QuotedTriple) -> str:
    """A wire term in N-Quads 1.2 syntax (a blank node keeps its label: ``_:d``)."""
    if isinstance(term, IriTerm):
        return f"<{term.i}>"
    if isinstance(term, LiteralTerm):
        value = term.v
        if _NEEDS_ESCAPE.search(value):  # most literals need no escaping: skip the replaces
            value = _escaped(value)
        if term.ln is not None:
            return f'"{value}"@{term.ln}'
        if term.dt is not None and term.dt != _XSD_STRING:
            return f'"{value}"^^<{term.dt}>'
        return f'"{value}"'
    if isinstance(term, BlankTerm):
        return f"_:{term.d}"
    tr = term.tr if isinstance(term, TripleTerm) else term
    return f"<<( {term_text(tr.s)} <{tr.p.i}> {term_text(tr.o)} )>>"


@lru_cache(maxsize=1024)
def _predicate_text(value: str) -> str:
    """A predicate between its spaces (a vocabulary's few IRIs: kept)."""
    return f" <{value}> "


@lru_cache(maxsize=64)
def _line_end(graph: str | None) -> str:
    """A line's end: its graph, none for the default graph."""
    return f" <{graph}> .\n" if graph else " .\n"


def nquads_text(triples: Iterable[Stated]) -> str:
    """The triples (models, or rows: ``rdf.rows``) as N-Quads text, one line each (the graph
    last, none for the default). A run of triples on one subject (an entity's) writes it
    once, and on one graph its line's end; a predicate's text is kept; a plain literal (a
    row's ``str``, most objects, first) or an IRI object is written here, not in
    ``term_text``: one session of ``bench_agent``'s trace (92 triples in 5 messages) in 44 µs
    of CPU instead of 56."""
    lines: list[str] = []
    add = lines.append
    needs_escape = _NEEDS_ESCAPE.search
    subject: object = None
    s_text = ""
    graph: object = 0  # no graph name: the first triple's is written
    g_text = ""
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
            subject = s
            s_text = f"<{s.i}>" if isinstance(s, IriTerm) else f"_:{s.d}"
        if g is not graph:
            graph = g
            g_text = _line_end(g)
        kind = type(o)
        if kind is str:
            add(f'{s_text}{_predicate_text(p.i)}"{_escaped(o) if needs_escape(o) else o}"{g_text}')
            continue
        if kind is IriTerm:
            o_text = f"<{o.i}>"
        elif kind is LiteralTerm and o.dt is None and o.ln is None:
            value = o.v
            o_text = f'"{_escaped(value) if needs_escape(value) else value}"'
        else:
            o_text = term_text(o)
        add(f"{s_text}{_predicate_text(p.i)}{o_text}{g_text}")
    return "".join(lines)


def parse_checked(text: str) -> list[ox.Quad]:
    """The quads of N-Quads text, or ``ValueError`` naming the first thing the schema refuses
    (pyoxigraph's reason with its line and columns, or the schema's own)."""
    try:
        quads = list(ox.parse(text, ox.RdfFormat.N_QUADS))
    except SyntaxError as exc:
        raise ValueError(str(exc)) from None
    # What the text cannot hold needs no look (this loop is on the store's hot path).
    blank, typed = "_:" in text, "^^" in text
    literal, triple = ox.Literal, ox.Triple
    for n, q in enumerate(quads, 1):
        if blank:
            _check_nodes(q, n)
        o = q.object
        kind = type(o)
        if kind is literal:
            if o.language is not None:
                if o.direction is not None:
                    raise ValueError(f"quad {n}: a literal with a base direction is not supported")
            elif typed:
                _check_typed(o, n)
        elif kind is triple:
            _check_term(o, n)
    return quads


def _check_nodes(q: ox.Quad, n: int) -> None:
    if isinstance(q.graph_name, ox.BlankNode):
        raise ValueError(f"quad {n}: a graph name is an IRI, not _:{q.graph_name.value}")
    for node in (q.subject, q.object):
        if isinstance(node, ox.BlankNode):
            _check_blank(node, n)


def _check_blank(node: ox.BlankNode, n: int) -> None:
    try:
        check_blank(node.value)
    except ValueError as exc:
        raise ValueError(f"quad {n}: {exc}") from None


def _check_typed(o: ox.Literal, n: int) -> None:
    try:
        check_lexical(o.value, o.datatype.value)
    except ValueError as exc:
        raise ValueError(f"quad {n}: {exc}") from None


def _check_term(o: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple, n: int) -> None:
    """A term inside a triple term, checked as a quad's own."""
    if isinstance(o, ox.Literal):
        if o.direction is not None:
            raise ValueError(f"quad {n}: a literal with a base direction is not supported")
        if o.language is None:
            _check_typed(o, n)
    elif isinstance(o, ox.BlankNode):
        _check_blank(o, n)
    elif isinstance(o, ox.Triple):
        _check_term(o.subject, n)
        _check_term(o.object, n)


def from_ox(node: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> Term:
    """A pyoxigraph term as a wire term (an IRI's checked once per process, ``iri_term``)."""
    if isinstance(node, ox.NamedNode):
        return iri_term(node.value)
    if isinstance(node, ox.Literal):
        return literal_of(node)
    if isinstance(node, ox.BlankNode):
        return BlankTerm(d=node.value)
    s = from_ox(node.subject)
    if not isinstance(s, IriTerm | BlankTerm):  # pyoxigraph has no other subject
        raise ValueError(f"a subject is an IRI or a blank node, not {s!r}")
    # Assembled from its terms, each checked as it was made (a GraphRAG passage's edge).
    return quoted_term(s, iri_term(node.predicate.value), from_ox(node.object))


def literal_of(node: ox.Literal) -> LiteralTerm:
    """A literal as a wire term; ``ValueError`` for an ill-typed one (SPARQL can compute them)."""
    language = node.language
    if language is None and node.datatype.value == _XSD_STRING:  # a plain literal: nothing to check
        return assembled(LiteralTerm, {"t": "l", "v": node.value, "dt": None, "ln": None}, _PLAIN)
    dt = None if language else node.datatype.value
    return LiteralTerm(v=node.value, dt=dt, ln=language)


_PLAIN = {"v", "dt", "ln"}  # the fields ``LiteralTerm(v=…, dt=None, ln=None)`` has set


def triple_of(
    q: ox.Quad | ox.Triple, graph: ox.NamedNode | ox.BlankNode | ox.DefaultGraph | None = None
) -> Triple:
    """A quad (or a triple plus its graph) as a wire triple, assembled from its terms, each
    checked as it was made (``rdf.assembled``: ~16 µs a triple validated again, ~4 now)."""
    g = q.graph_name if isinstance(q, ox.Quad) else graph
    name = g.value if isinstance(g, ox.NamedNode | ox.BlankNode) else None
    s = from_ox(q.subject)
    if not isinstance(s, IriTerm | BlankTerm):  # pyoxigraph has no other subject
        raise ValueError(f"a subject is an IRI or a blank node, not {s!r}")
    return assembled_triple(s, iri_term(q.predicate.value), from_ox(q.object), name)
