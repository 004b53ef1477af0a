"""The replies tg-invoke-agent and the RAG commands read, validated as far as they are shown.

A command shows an explain event's id (``-x``) and, from the verification stage's event,
the answer's verdict (``verdict_of``); it prints none of the events' other triples (most of
a trace). Those are parsed as JSON and dropped unvalidated (``provenance.reading``):
validating every triple into models was ~5 µs a triple, ~130 µs of client CPU an agent
iteration. The rest of each reply is validated as before; ``tg-show-explain-trace`` reads
and validates the whole trace.
"""

from __future__ import annotations

from typing import Annotated

from trustgraph_base.provenance.verification import VERDICT_READ
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.agent import AgentResponse
from trustgraph_base.schema.rag import RagResponse


class AgentAnswer(AgentResponse):
    """An agent reply with only the explain triples the command reads."""

    explain_triples: Annotated[list[Triple], VERDICT_READ] = []


class RagAnswer(RagResponse):
    """A GraphRAG or DocumentRAG reply with only the explain triples the command reads."""

    explain_triples: Annotated[list[Triple], VERDICT_READ] = []
