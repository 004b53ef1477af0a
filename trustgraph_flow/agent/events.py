"""What an agent session tells its caller: the streamed events, and how the session ended
(the final response's ``finish_reason``, kept on the conclusion as ``tg:terminationReason``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from trustgraph_base.provenance import GRAPH_RETRIEVAL, TerminationReason
from trustgraph_base.rdf.assembled import assembled
from trustgraph_base.rdf.rows import Stated
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


def event(kind: EventKind, content: str = "") -> AgentResponse:
    return AgentResponse(message_type=kind, content=content, end_of_stream=False)


# An explain event's fields: every one of AgentResponse's, those it gives set (``assembled``).
_DEFAULTS = {
    name: info.get_default(call_default_factory=True)
    for name, info in AgentResponse.model_fields.items()
}
_GIVEN = ("message_type", "content", "explain_id", "explain_graph", "explain_triples")


def explain(explain_id: str, triples: Sequence[Stated]) -> AgentResponse:
    """The explain event of the entity ``explain_id``, its triples inline. They are rows
    (``rdf.rows``) as the session built them, which only its wire form reads
    (``wire.encode`` writes rows and models alike), so it is assembled, not validated
    (validation wants models, whose making is what rows save): the same bytes on the wire
    as the validated event of the rows' models (``tests/unit/test_json_text.py``)."""
    values = {
        **_DEFAULTS,
        "message_type": "explain",
        "content": "",
        "explain_id": explain_id,
        "explain_graph": GRAPH_RETRIEVAL,
        "explain_triples": triples,
        "end_of_stream": False,
    }
    return assembled(AgentResponse, values, {*_GIVEN, "end_of_stream"})
