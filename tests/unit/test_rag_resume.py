"""A rerun of a run cut short reads back what its trace already holds: GraphRAG's focus
selection (so the synthesis cites the edges the recorded focus names), the agent's steps and
answer."""

from __future__ import annotations

from trustgraph_base.provenance import (
    SelectedEdge,
    agent_final_triples,
    agent_iteration_triples,
    graph_rag_focus_triples,
    uris,
)
from trustgraph_base.rdf.terms import iri, lit
from trustgraph_flow.agent.resume import recorded_answer, recorded_steps
from trustgraph_flow.graph_rag.select import recorded_edges

Q = "urn:trustgraph:question:q1"
A = "urn:trustgraph:agent:a1"


def test_the_recorded_focus_gives_back_its_edges_in_order() -> None:
    edges = [
        SelectedEdge(iri("urn:e:paris"), iri("urn:r:capital_of"), iri("urn:e:france"), "names it"),
        SelectedEdge(iri("urn:e:fox"), iri("urn:r:lives_in"), lit("the forest"), ""),
    ]
    focus = graph_rag_focus_triples(f"{Q}/focus", f"{Q}/exploration", Q, edges)
    assert recorded_edges(focus, Q) == edges
    assert recorded_edges([], Q) == []


def test_the_recorded_analyses_become_the_steps_so_far_and_the_answer_is_kept() -> None:
    i1, i2 = uris.agent_iteration_uri(A, 1), uris.agent_iteration_uri(A, 2)
    recorded = {
        A: [],
        i1: agent_iteration_triples(
            i1, A, "look it up", "knowledge-query", {"question": "x"}, "no"
        ),
        i2: agent_iteration_triples(i2, i1, "try documents", "document-query", {}, "Paris."),
    }
    steps = recorded_steps(recorded, A)
    assert [(s.thought, s.action, s.arguments, s.observation) for s in steps] == [
        ("look it up", "knowledge-query", {"question": "x"}, "no"),
        ("try documents", "document-query", {}, "Paris."),
    ]
    assert recorded_answer(recorded, A) is None
    final = uris.agent_final_uri(A)
    recorded[final] = agent_final_triples(final, i2, "Paris.")
    assert recorded_answer(recorded, A) == "Paris."
