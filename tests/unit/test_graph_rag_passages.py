"""GraphRAG's passages (``graph_rag.passages.with_passages``): an edge of each chunk nearest
the question joins the focus after the selection, unless the selection already holds one
of that chunk's edges; a chunk that gave no edge is read as text, numbered after the edges."""

from __future__ import annotations

import json

from trustgraph_base.provenance import SelectedEdge
from trustgraph_base.rdf.terms import IriTerm, Triple
from trustgraph_flow.graph_rag.passages import bare_passages, with_passages
from trustgraph_flow.graph_rag.select import fact_lines
from trustgraph_flow.graph_rag.subgraph import Subgraph
from trustgraph_flow.llm import offline


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


def test_a_passage_that_gave_no_edge_is_read_as_text_and_cited_as_itself() -> None:
    # The passages nearest the question that gave no edge: none can bring them to the answer.
    assert bare_passages(["c1", "c2", "c3"], [[OWNS], [], []]) == ["c2", "c3"]
    hill = {
        "s": "Tarle Observatory",
        "p": "stands on",
        "o": "Brant Hill",
        "quote": "Tarle Observatory stands on Brant Hill.",
        "excerpt": "Tarle Observatory stands on Brant Hill.",
    }
    notes = "Opening hours\nThe observatory of Tarle opens to visitors at 10 am on Sundays."
    variables = {
        "question": "When does the observatory of Tarle open to visitors?",
        "edges": [hill],
        "passages": [notes],
    }
    reply = json.loads(offline.complete("graph-rag-answer", variables, structured=True))
    said = "The observatory of Tarle opens to visitors at 10 am on Sundays."
    # fact 2: the passage, numbered after the one edge
    assert reply == {"answer": said, "cited": [2], "claims": [{"text": said, "cited": [2]}]}
    # the prompt a model sees numbers it so too, on one line
    assert fact_lines(variables).splitlines() == [
        "[1] Tarle Observatory stands on Brant Hill",
        f"[2] {' '.join(notes.split())}",
    ]
    # without the passage the edge's text does not answer it
    del variables["passages"]
    reply = json.loads(offline.complete("graph-rag-answer", variables, structured=True))
    assert reply["cited"] == []
