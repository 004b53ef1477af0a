"""The RDF term model shared by every message that carries triples."""

from trustgraph_base.rdf.terms import (
    BlankTerm,
    IriTerm,
    LiteralTerm,
    Term,
    Triple,
    TripleTerm,
    blank,
    iri,
    lit,
    quoted,
    term_key,
)

__all__ = [
    "BlankTerm",
    "IriTerm",
    "LiteralTerm",
    "Term",
    "Triple",
    "TripleTerm",
    "blank",
    "iri",
    "lit",
    "quoted",
    "term_key",
]
