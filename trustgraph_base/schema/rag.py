"""GraphRAG and DocumentRAG requests and responses."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.core import Response, Scoped, StartedAt


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
    started_at: StartedAt = ""


class GraphRagRequest(RagRequest):
    """The limits on the wire are TrustGraph's kebab-case names (``entity-limit``, …;
    ``edge-limit`` is how many edges the LLM may select); the Python names are accepted too."""

    entity_limit: int = Field(default=50, ge=1, le=1000, alias="entity-limit")
    triple_limit: int = Field(default=30, ge=1, le=1000, alias="triple-limit")
    max_subgraph_size: int = Field(default=150, ge=1, le=10_000, alias="max-subgraph-size")
    max_path_length: int = Field(default=2, ge=1, le=5, alias="max-path-length")
    max_edges_selected: int = Field(default=10, ge=1, le=200, alias="edge-limit")


class DocumentRagRequest(RagRequest):
    doc_limit: int = Field(default=5, ge=1, le=100, alias="doc-limit")


class RagResponse(Response):
    """TrustGraph's message types: "chunk": ``response`` is answer text (a piece of it when
    streaming); "explain": a trace entity was just published, named by ``explain_id``,
    its triples inline in ``explain_triples``. The final response has ``end_of_session``
    and carries the trace's question URI in ``explain_id`` and the ``model`` that wrote
    the answer (``"offline"``: the offline engine).
    """

    message_type: Literal["chunk", "explain"] = "chunk"
    response: str = ""
    explain_id: str | None = None
    explain_graph: str | None = None
    explain_triples: list[Triple] = []
    end_of_session: bool = False
    model: str | None = None


class GraphRagResponse(RagResponse):
    pass


class DocumentRagResponse(RagResponse):
    pass
