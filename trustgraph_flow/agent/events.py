"""What an agent session tells its caller: the streamed events, and how the session ended
(the final response's ``finish_reason``, kept on the conclusion as ``tg:terminationReason``)."""

from __future__ import annotations

from typing import Literal

from trustgraph_base.provenance import GRAPH_RETRIEVAL, TerminationReason
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import AgentResponse


def stopped_answer(iterations: int) -> str:
    """The conclusion of a session that hit its iteration limit."""
    noun = "iteration" if iterations == 1 else "iterations"
    return f"Stopped after {iterations} {noun} without a final answer."


EventKind = Literal["thought", "action", "observation", "explain"]
# How a session ends (the final response's ``finish_reason``) and the reference's name for it
# on the conclusion (``tg:terminationReason``). "abstained": the agent declined to answer
# from what it found (the answer says why).
FinishReason = Literal["answer", "iteration-limit", "abstained"]
TERMINATION: dict[FinishReason, TerminationReason] = {
    "answer": "final-answer",
    "iteration-limit": "max-iterations",
    "abstained": "abstained",
}


def event(
    kind: EventKind,
    content: str = "",
    explain_id: str | None = None,
    triples: list[Triple] | None = None,
) -> AgentResponse:
    graph = GRAPH_RETRIEVAL if explain_id else None
    return AgentResponse(
        message_type=kind,
        content=content,
        explain_id=explain_id,
        explain_graph=graph,
        explain_triples=triples or [],
        end_of_stream=False,
    )
