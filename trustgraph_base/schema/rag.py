"""GraphRAG and DocumentRAG requests and responses."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base.schema.core import Response, Scoped


class RagRequest(Scoped):
    """Fields common to both RAG flows.

    ``parent_uri``: an agent analysis this run is a sub-trace of. ``session_id`` and
    ``started_at`` let a caller fix the trace id and time (tests, replays); empty means
    a fresh uuid and the current time.
    """

    query: str = Field(min_length=1, max_length=20_000)
    streaming: bool = False
    parent_uri: str = ""
    session_id: str = ""
    started_at: str = ""


class GraphRagRequest(RagRequest):
    entity_limit: int = Field(default=50, ge=1, le=1000)
    triple_limit: int = Field(default=30, ge=1, le=1000)
    max_subgraph_size: int = Field(default=150, ge=1, le=10_000)
    max_path_length: int = Field(default=2, ge=1, le=5)
    max_edges_selected: int = Field(default=10, ge=1, le=200)


class DocumentRagRequest(RagRequest):
    doc_limit: int = Field(default=5, ge=1, le=100)


class RagResponse(Response):
    """``message_type`` "answer": ``response`` is answer text (a piece of it when streaming);
    "explain": a trace entity was just published, named by ``explain_id``.
    The final response carries the trace's question URI in ``explain_id`` and the
    ``model`` that wrote the answer (``"offline"``: the offline engine).
    """

    message_type: Literal["answer", "explain"] = "answer"
    response: str = ""
    explain_id: str | None = None
    explain_graph: str | None = None
    model: str | None = None


class GraphRagResponse(RagResponse):
    pass


class DocumentRagResponse(RagResponse):
    pass
