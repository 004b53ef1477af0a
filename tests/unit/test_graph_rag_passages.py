"""GraphRAG's passages (``graph_rag.passages.with_passages``): an edge of each chunk nearest
the question joins the focus after the selection, unless the selection already holds one
of that chunk's edges."""

from __future__ import annotations

from trustgraph_base.provenance import SelectedEdge
from trustgraph_base.rdf.terms import IriTerm, Triple
from trustgraph_flow.graph_rag.passages import with_passages
from trustgraph_flow.graph_rag.subgraph import Subgraph


def _t(s: str, p: str, o: str) -> Triple:
    return Triple(s=IriTerm(i=f"urn:e:{s}"), p=IriTerm(i=f"urn:r:{p}"), o=IriTerm(i=f"urn:e:{o}"))


def _picked(t: Triple, why: str) -> SelectedEdge:
    return SelectedEdge(t.s, t.p, t.o, why)


FOUNDED, OWNS, BUILT, BORN = (
    _t("obst", "founded", "shipping"),
    _t("shipping", "owns", "boats"),
    _t("pell", "built", "hall"),
    _t("pell", "born_in", "derby"),
)


def test_a_passage_none_of_whose_edges_was_picked_brings_its_first() -> None:
    picked = [_picked(BUILT, "names the hall")]
    out = with_passages(picked, [[OWNS, FOUNDED], [BORN, BUILT]], Subgraph())
    assert out[0] == picked[0]
    assert [(e.s, e.p, e.o) for e in out[1:]] == [(OWNS.s, OWNS.p, OWNS.o)]
    assert out[1].reasoning == "read from passage 1 of the 2 nearest the question"


def test_nothing_is_added_twice_nor_for_a_chunk_without_edges() -> None:
    out = with_passages([], [[], [FOUNDED], [FOUNDED, OWNS]], Subgraph())
    assert [(e.p, e.reasoning) for e in out] == [
        (FOUNDED.p, "read from passage 2 of the 3 nearest the question")
    ]
    assert with_passages([], [], Subgraph()) == []


def test_a_passage_brings_no_edge_that_names_nothing() -> None:
    # "it → founded → shipping" (a label "it", or an IRI whose tail is "it"): junk, whoever
    # extracted it; the passage's next edge comes instead.
    hollow = _t("it", "founded", "shipping")
    out = with_passages([], [[hollow, OWNS], [_t("1998", "built", "hall")]], Subgraph())
    assert [(e.s, e.p, e.o) for e in out] == [(OWNS.s, OWNS.p, OWNS.o)]
