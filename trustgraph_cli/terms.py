"""RDF terms on the command line: parse what users type, format what the gateway returns.

Accepted input (``parse_term``):

- ``<http://example.org/x>`` or a bare absolute IRI ``http://example.org/x``, ``urn:x:y``
- ``"text"``, ``"text"@en``, ``"5"^^<http://www.w3.org/2001/XMLSchema#integer>`` or
  ``"5"^^xsd:integer`` (inside quotes ``\\"``, ``\\\\``, ``\\n``, ``\\t`` are escapes)
- ``_:b1`` (a blank node)
- in object position only, any other bare text is a plain literal (``-o Alice``)

Kept free of heavy imports at module level so that ``--help`` stays fast.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from trustgraph_base.rdf.terms import BlankTerm, IriTerm, LiteralTerm, TripleTerm

    AnyTerm = IriTerm | LiteralTerm | BlankTerm | TripleTerm

XSD = "http://www.w3.org/2001/XMLSchema#"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S")
_LITERAL = re.compile(r'^"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9\-]+)|\^\^(<[^>]*>|xsd:\w+))?$', re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


class TermError(ValueError):
    """Text that is not a term in the accepted syntax."""


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), text)


def parse_term(text: str, *, bare_literal: bool = False) -> AnyTerm:
    """Parse one term; ``bare_literal`` lets unquoted non-IRI text be a plain literal."""
    from pydantic import ValidationError

    from trustgraph_base.rdf.terms import BlankTerm, IriTerm, LiteralTerm

    value = text.strip()
    try:
        if value.startswith("<") and value.endswith(">"):
            return IriTerm(i=value[1:-1])
        if value.startswith("_:"):
            return BlankTerm(d=value[2:])
        if value.startswith('"'):
            match = _LITERAL.match(value)
            if match is None:
                raise TermError(f"not a literal (unbalanced quotes?): {text!r}")
            lexical, lang, dt = match.groups()
            if dt is not None:
                dt = XSD + dt[4:] if dt.startswith("xsd:") else dt[1:-1]
            return LiteralTerm(v=_unescape(lexical), ln=lang, dt=dt)
        if _SCHEME.match(value):
            return IriTerm(i=value)
    except ValidationError as exc:
        reason = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise TermError(f"{text!r}: {reason}") from None
    if bare_literal and value:
        return LiteralTerm(v=text)
    raise TermError(f'not a term: {text!r} (write <iri>, a full IRI, "literal" or _:blank)')


class TermParam(click.ParamType):  # type: ignore[type-arg]  # generic in click 8.5
    """A click parameter that parses a term (usage error, exit 2, naming the value)."""

    name = "term"

    def __init__(self, *, bare_literal: bool = False, kinds: str = "ilbt") -> None:
        self.bare_literal = bare_literal
        self.kinds = kinds  # allowed term kinds: i(ri) l(iteral) b(lank) t(riple)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            term = parse_term(value, bare_literal=self.bare_literal)
        except TermError as exc:
            self.fail(str(exc), param, ctx)
        if term.t not in self.kinds:
            from trustgraph_base.rdf.terms import KIND_NAMES

            allowed = " or ".join(KIND_NAMES[k] for k in self.kinds)
            self.fail(f"{value!r} is {KIND_NAMES[term.t]}; expected {allowed}", param, ctx)
        return term


def from_wire(value: Any) -> AnyTerm:
    """A term from its gateway JSON form ``{"t": "i"|"l"|"b"|"t", …}``."""
    from pydantic import TypeAdapter

    from trustgraph_base.rdf.terms import Term

    term: AnyTerm = TypeAdapter(Term).validate_python(value)
    return term


def format_term(term: AnyTerm | dict[str, Any]) -> str:
    """N-Triples form: ``<iri>``, ``"v"@en``, ``"5"^^<dt>``, ``_:b``, ``<<( s p o )>>``."""
    from trustgraph_base.rdf.terms import term_key

    return term_key(from_wire(term) if isinstance(term, dict) else term)


def display_term(term: AnyTerm | dict[str, Any]) -> str:
    """Human form: an IRI bare, a literal its text, others as in N-Triples."""
    from trustgraph_base.rdf.terms import IriTerm, LiteralTerm

    value = from_wire(term) if isinstance(term, dict) else term
    if isinstance(value, IriTerm):
        return value.i
    if isinstance(value, LiteralTerm):
        return value.v
    return format_term(value)


def format_triple(triple: dict[str, Any], *, with_graph: bool = True) -> str:
    """One wire triple as an N-Triples (or, with its graph, N-Quads) line."""
    parts = [format_term(triple[k]) for k in ("s", "p", "o")]
    if with_graph and triple.get("g"):
        parts.append(f"<{triple['g']}>")
    return " ".join(parts) + " ."


def sparql_json_term(term: AnyTerm | dict[str, Any]) -> dict[str, Any]:
    """A term (or its wire JSON) as a SPARQL 1.1 Query Results JSON binding (``sparql_json``)."""
    from trustgraph_base.rdf.terms import sparql_json

    return sparql_json(from_wire(term) if isinstance(term, dict) else term)
