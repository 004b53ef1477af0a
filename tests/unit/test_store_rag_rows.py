"""The trace index's read-model rows: a reified triple's row as earlier stores wrote it."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from trustgraph_base.rdf.nquads import from_ox, term_text
from trustgraph_flow.store.backends.embedded.trace_sql import stored_value
from trustgraph_flow.store.backends.trace_facts import rag_row


@pytest.mark.parametrize(
    "obj",
    [
        ox.NamedNode("urn:trustgraph:doc:d0/p1/c9"),
        ox.Literal('a "quoted"\nvalue'),
        ox.Literal("0.5", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")),
    ],
)
def test_a_reified_triples_row_is_the_text_earlier_stores_wrote(
    obj: ox.NamedNode | ox.Literal,
) -> None:
    """A row's value is part of its key: a redelivered trace written by an earlier store must
    give the same text (``term_text`` of the wire term), or its facts would show twice."""
    s, p = ox.NamedNode("urn:trustgraph:docrag:x/exploration"), ox.NamedNode("urn:p")
    triple = ox.Triple(s, p, obj)
    row = rag_row("urn:r", "urn:e", "urn:q", triple)
    assert row == ("urn:r", "urn:e", "urn:q", "t", term_text(from_ox(triple)))
    assert stored_value(row[3], row[4]) == triple
