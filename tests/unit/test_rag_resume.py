"""A rerun of a run cut short reads back what its trace already holds: GraphRAG's focus
selection (so the synthesis cites the edges the recorded focus names), the agent's steps and
answer, or that the agent's run had failed (then its error again, never an answer)."""

from __future__ import annotations

import pytest

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    SelectedEdge,
    agent_error_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
    failure_triples,
    graph_rag_focus_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import AgentRequest, AgentResponse
from trustgraph_flow.agent.loop import run
from trustgraph_flow.agent.resume import recorded_answer, recorded_failure, recorded_steps
from trustgraph_flow.agent.session import Session
from trustgraph_flow.graph_rag.select import recorded_edges
from trustgraph_flow.trace_writer import TraceWriter

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


def failed_run(
    why: str = "the empty collection has no documents", error_type: str | None = "no-data"
) -> dict[str, list[Triple]]:
    """A session that failed at step 2, as its journal holds it: the question, step 1, and
    the question's mark sent with the conclusion that says the run failed, and of what type
    (``None``: as written before ``tg:errorType``)."""
    i1, final = uris.agent_iteration_uri(A, 1), uris.agent_final_uri(A)
    return {
        A: agent_session_triples(A, "Why?", "2026-01-01T10:00:00Z")
        + failure_triples(A, GRAPH_RETRIEVAL, why)
        + agent_error_triples(final, i1, why, error_type),
        i1: agent_iteration_triples(i1, A, "look it up", "knowledge-query", {}, "no"),
    }


def test_a_run_that_had_failed_has_no_answer_but_its_failure() -> None:
    recorded = failed_run()
    assert recorded_answer(recorded, A) is None
    assert recorded_failure(recorded, A) == (
        "the empty collection has no documents",
        ErrorType.NO_DATA,
    )
    final = uris.agent_final_uri(A)  # without the conclusion: cut short before it failed
    recorded[A] = [t for t in recorded[A] if getattr(t.s, "i", None) != final]
    assert recorded_failure(recorded, A) is None


def test_a_failure_recorded_before_its_type_was_a_fact_keeps_the_type_of_its_suffix() -> None:
    # Written between ba422b9 and tg:errorType: the type only as the reason's "[type]" suffix.
    old = failed_run("the LLM did not answer within 30s [timeout]", None)
    assert recorded_failure(old, A) == ("the LLM did not answer within 30s", ErrorType.TIMEOUT)
    # Before that, only the LLM's failure named its type; the others named none.
    older = failed_run("the empty collection has no documents", None)
    assert recorded_failure(older, A) == (
        "the empty collection has no documents",
        ErrorType.LLM_ERROR,
    )
    unknown = failed_run("it broke [oddly]", None)  # not a type: the reason as it is
    assert recorded_failure(unknown, A) == ("it broke [oddly]", ErrorType.LLM_ERROR)


@pytest.mark.parametrize(
    "recorded",
    [failed_run(), failed_run("the empty collection has no documents [no-data]", None)],
    ids=["typed", "suffixed"],
)
async def test_a_rerun_of_a_failed_run_gives_its_error_again_never_an_answer(
    recorded: dict[str, list[Triple]],
) -> None:
    # No LLM or broker: the rerun must end before it asks anything (it would fail otherwise).
    trace = TraceWriter(None, A, "u", "c", "2026-01-01T10:00:00Z", recorded=recorded)  # type: ignore[arg-type]
    session = Session(
        ctx=None,  # type: ignore[arg-type]
        req=AgentRequest(question="Why?"),
        uri=A,
        tools=[],
        max_iterations=5,
        prior=[],
        trace=trace,
    )
    seen: list[AgentResponse] = []
    with pytest.raises(ServiceError) as failed:
        async for event in run(session):
            seen.append(event)
    assert failed.value.type == ErrorType.NO_DATA
    assert failed.value.message == "this run had failed: the empty collection has no documents"
    assert [e.message_type for e in seen] == ["explain"]  # the question's, nothing answered
    assert trace.count == 0  # nothing written again
