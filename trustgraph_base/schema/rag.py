"""GraphRAG and DocumentRAG requests and responses."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base import bounds
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.core import Response, Scoped, StartedAt, bounded


class RagRequest(Scoped):
    """Fields common to both RAG flows.

    ``parent_uri``: an agent analysis this run is a sub-trace of. ``session_id`` and
    ``started_at`` let a caller fix the trace id and time (tests, replays); empty means
    a fresh uuid and the current time. ``retake`` (beside TrustGraph's fields): an agent
    step taken again after a kill may have asked for this ``session_id`` before; a trace
    the service did not run itself but the store has is then never joined: the run gets a
    fresh id (``rag_common/repeat.py``). ``explain_read`` (beside TrustGraph's fields): the
    IRIs of the explain triples the caller reads, predicates and ``rdf:type`` classes; each
    explain event then carries only its triples with one of those predicates or types (the
    trace is stored whole, as always). The agent names what it reads of its tools' sub-traces
    (``agent/evidence.py``); unset, an event carries every triple of its entities.
    """

    query: str = Field(min_length=1, max_length=bounds.QUESTION_MAX)
    streaming: bool = False
    parent_uri: str = ""
    session_id: str = ""
    started_at: StartedAt = ""
    retake: bool | None = None
    explain_read: list[str] | None = Field(default=None, max_length=bounds.EXPLAIN_READ_MAX)


class GraphRagRequest(RagRequest):
    """The limits on the wire are TrustGraph's kebab-case names (``entity-limit``, …;
    ``edge-limit`` is how many edges the LLM may select); the Python names are accepted too."""

    entity_limit: int = bounded(bounds.ENTITY_LIMIT, alias="entity-limit")
    triple_limit: int = bounded(bounds.TRIPLE_LIMIT, alias="triple-limit")
    max_subgraph_size: int = bounded(bounds.MAX_SUBGRAPH_SIZE, alias="max-subgraph-size")
    max_path_length: int = bounded(bounds.MAX_PATH_LENGTH, alias="max-path-length")
    max_edges_selected: int = bounded(bounds.MAX_EDGES_SELECTED, alias="edge-limit")


class DocumentRagRequest(RagRequest):
    doc_limit: int = bounded(bounds.DOC_LIMIT, alias="doc-limit")


class RagResponse(Response):
    """TrustGraph's message types: "chunk": ``response`` is answer text (a piece of it when
    streaming); "explain": a trace entity was just published, named by ``explain_id``,
    its triples inline in ``explain_triples``. The final response has ``end_of_session``
    and carries the trace's question URI in ``explain_id``, the ``model`` that wrote
    the answer (``"offline"``: the offline engine) and, as TrustGraph's, the tokens in and out
    of every LLM call the run made (``in_token``, ``out_token``: the focus, synthesis and
    verification stages' sum).
    """

    message_type: Literal["chunk", "explain"] = "chunk"
    response: str = ""
    explain_id: str | None = None
    explain_graph: str | None = None
    explain_triples: list[Triple] = []
    end_of_session: bool = False
    model: str | None = None
    in_token: int | None = None
    out_token: int | None = None


class GraphRagResponse(RagResponse):
    pass


class DocumentRagResponse(RagResponse):
    pass
