"""A store quad read as a wire triple (``triple_of``, assembled from terms checked once) is
the very model validation builds: same fields, same fields set, same JSON, equal, same hash;
and what validation refuses is still refused."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from pydantic import BaseModel

from trustgraph_base.rdf.nquads import triple_of
from trustgraph_base.rdf.terms import (
    BlankTerm,
    IriTerm,
    LiteralTerm,
    QuotedTriple,
    Triple,
    TripleTerm,
)

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
QUADS = list(
    ox.parse(
        """
<http://e/a> <http://p/x> <http://e/b> .
<http://e/a> <http://www.w3.org/2000/01/rdf-schema#label> "Marrowby" <urn:graph:source> .
<http://e/a> <http://p/y> "chat"@fr <urn:graph:retrieval> .
<http://e/a> <http://p/z> "42"^^<http://www.w3.org/2001/XMLSchema#integer> <urn:graph:retrieval> .
<http://e/a> <http://p/t> "2026-12-05T10:00:00.000Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://e/a> <http://p/s> "plain"^^<http://www.w3.org/2001/XMLSchema#string> .
_:b1 <http://p/x> _:b2 <urn:graph:retrieval> .
<http://e/c> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <http://e/a> <http://p/x> "q"@en )>> .
<http://e/\u00e9> <http://p/x> "two\\nlines, \\"quoted\\"" .
""",
        ox.RdfFormat.N_QUADS,
    )
)


def validated(node: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> BaseModel:
    """The term as a validating constructor makes it (what ``from_ox`` made before)."""
    if isinstance(node, ox.NamedNode):
        return IriTerm(i=node.value)
    if isinstance(node, ox.BlankNode):
        return BlankTerm(d=node.value)
    if isinstance(node, ox.Literal):
        plain = node.language or node.datatype.value == XSD_STRING
        return LiteralTerm(
            v=node.value, dt=None if plain else node.datatype.value, ln=node.language
        )
    s, p, o = validated(node.subject), validated(node.predicate), validated(node.object)
    return TripleTerm(tr=QuotedTriple(s=s, p=p, o=o))


@pytest.mark.parametrize("quad", QUADS, ids=str)
def test_a_quad_reads_as_the_validated_triple(quad: ox.Quad) -> None:
    g = quad.graph_name
    want = Triple(
        s=validated(quad.subject),
        p=IriTerm(i=quad.predicate.value),
        o=validated(quad.object),
        g=g.value if isinstance(g, ox.NamedNode) else None,
    )
    got = triple_of(quad)
    assert got == want and want == got and hash(got) == hash(want)
    assert repr(got) == repr(want)
    assert got.model_fields_set == want.model_fields_set
    assert got.model_dump_json(exclude_none=True) == want.model_dump_json(exclude_none=True)
    for mine, theirs in ((got.s, want.s), (got.p, want.p), (got.o, want.o)):
        assert type(mine) is type(theirs) and mine.model_fields_set == theirs.model_fields_set
    assert Triple.model_validate_json(got.model_dump_json()) == got


def test_a_triple_with_its_graph_given_apart() -> None:
    plain = ox.Triple(ox.NamedNode("http://e/a"), ox.NamedNode("http://p/x"), ox.Literal("v"))
    assert triple_of(plain, ox.NamedNode("urn:graph:x")).g == "urn:graph:x"
    assert triple_of(plain, ox.DefaultGraph()).g is None
    assert triple_of(plain).g is None


def test_what_validation_refuses_is_still_refused() -> None:
    plain = ox.Triple(ox.NamedNode("http://e/a"), ox.NamedNode("http://p/x"), ox.Literal("v"))
    with pytest.raises(ValueError, match="IRI"):
        triple_of(plain, ox.BlankNode("g1"))  # a graph name is an IRI
