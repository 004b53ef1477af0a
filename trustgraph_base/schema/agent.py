"""The ReAct agent's messages (SPEC.md: Messages)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from trustgraph_base import bounds
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.core import Message, Response, Scoped, StartedAt, bounded


class AgentStep(Message):
    """One past iteration, as carried in ``AgentRequest.history``."""

    thought: str = ""
    action: str = ""
    arguments: dict[str, Any] = {}
    observation: str = ""
    user: str = ""


class AgentRequest(Scoped):
    """Ask the agent, within one user's collection. An empty ``session_id`` makes the service
    create one (every run is traced).

    ``started_at`` fixes the trace's time (tests, replays); empty means now.
    """

    question: str = Field(min_length=1, max_length=bounds.QUESTION_MAX)
    state: str = ""
    group: list[str] | None = None
    history: list[AgentStep] = []
    streaming: bool = False
    session_id: str = ""
    started_at: StartedAt = ""
    max_iterations: int | None = bounded(bounds.MAX_ITERATIONS)


class AgentResponse(Response):
    """One streamed piece: a ``thought``, ``action``, ``observation``, the ``answer``, or an
    ``explain`` event naming a just-published trace entity. The final response carries the
    answer and the session URI in ``explain_id``, the ``model`` that chose the steps
    (``"offline"``: the offline engine), ``finish_reason``: ``"answer"``, or
    ``"iteration-limit"`` when the loop stopped without a final answer, and, as TrustGraph's,
    the tokens in and out of the LLM calls that chose its steps and wrote its answer
    (``in_token``, ``out_token``; its tools' own calls are in their sub-traces).
    """

    message_type: Literal["thought", "action", "observation", "answer", "explain"] = "answer"
    content: str = ""
    explain_id: str | None = None
    explain_graph: str | None = None
    explain_triples: list[Triple] = []  # an explain event's triples, inline (TrustGraph's field)
    model: str | None = None
    in_token: int | None = None
    out_token: int | None = None
    finish_reason: Literal["answer", "iteration-limit"] | None = None
