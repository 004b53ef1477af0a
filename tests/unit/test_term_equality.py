"""IRI and literal terms compare as pydantic compares models (same class, same fields), by
their own ``__eq__``, and hash alike when equal: sets and dicts of terms and triples work."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from trustgraph_base.rdf.terms import XSD, BlankTerm, IriTerm, LiteralTerm, Triple, quoted

A = "http://ex.org/a"


def pydantic_eq(x: BaseModel, y: object) -> bool:
    """What pydantic's own ``__eq__`` says (NotImplemented read as Python falls back: identity)."""
    said = BaseModel.__eq__(x, y)
    return x is y if said is NotImplemented else bool(said)


TERMS = [
    IriTerm(i=A),
    IriTerm(i=A),
    IriTerm(i="http://ex.org/b"),
    LiteralTerm(v=A),
    LiteralTerm(v="x"),
    LiteralTerm(v="x"),
    LiteralTerm(v="x", ln="en"),
    LiteralTerm(v="x", ln="en-GB"),
    LiteralTerm(v="5", dt=XSD + "integer"),
    LiteralTerm(v="5", dt=XSD + "int"),
    LiteralTerm(v="5"),
    BlankTerm(d="b0"),
    quoted(IriTerm(i=A), IriTerm(i=A), LiteralTerm(v="x")),
]


@pytest.mark.parametrize("x", TERMS, ids=repr)
def test_equality_is_pydantics(x: BaseModel) -> None:
    for y in TERMS:
        assert (x == y) is pydantic_eq(x, y), (x, y)
        assert (x != y) is not pydantic_eq(x, y), (x, y)
        if x == y:
            assert hash(x) == hash(y)
    text: object = A
    fields: object = {"t": "i", "i": A}
    assert x != text  # never equal to its text or its fields
    assert x != fields


def test_sets_and_triples() -> None:
    assert len({IriTerm(i=A), IriTerm(i=A), LiteralTerm(v=A), LiteralTerm(v=A)}) == 2
    one = Triple(s=IriTerm(i=A), p=IriTerm(i=A), o=LiteralTerm(v="x", ln="en"))
    same = Triple(s=IriTerm(i=A), p=IriTerm(i=A), o=LiteralTerm(v="x", ln="en"))
    other = Triple(s=IriTerm(i=A), p=IriTerm(i=A), o=LiteralTerm(v="x"))
    assert one == same and hash(one) == hash(same)
    assert one != other
    assert {one: 1}[same] == 1
