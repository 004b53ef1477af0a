"""The request/response services and the one-way topics, by name.

Each service ``NAME`` takes requests on topic ``<prefix>.NAME.request``; a requester names
its own reply topic in the ``reply-to`` property and correlates replies by ``id``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
    DocumentRagRequest,
    DocumentRagResponse,
    EmbeddingsRequest,
    EmbeddingsResponse,
    ExplainRequest,
    ExplainResponse,
    GraphRagRequest,
    GraphRagResponse,
    LibrarianRequest,
    LibrarianResponse,
    Response,
    SparqlQueryRequest,
    SparqlQueryResponse,
    TextCompletionRequest,
    TextCompletionResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
    VectorRequest,
    VectorResponse,
)

Req = TypeVar("Req", bound=BaseModel)
Resp = TypeVar("Resp", bound=Response)


@dataclass(frozen=True)
class ServiceSpec(Generic[Req, Resp]):
    """A request/response service: its name and its two message types."""

    name: str
    request: type[Req]
    response: type[Resp]


AGENT = ServiceSpec("agent", AgentRequest, AgentResponse)
GRAPH_RAG = ServiceSpec("graph-rag", GraphRagRequest, GraphRagResponse)
DOCUMENT_RAG = ServiceSpec("document-rag", DocumentRagRequest, DocumentRagResponse)
TEXT_COMPLETION = ServiceSpec("text-completion", TextCompletionRequest, TextCompletionResponse)
EMBEDDINGS = ServiceSpec("embeddings", EmbeddingsRequest, EmbeddingsResponse)
VECTORS = ServiceSpec("vectors", VectorRequest, VectorResponse)
TRIPLES_QUERY = ServiceSpec("triples", TriplesQueryRequest, TriplesQueryResponse)
SPARQL = ServiceSpec("sparql", SparqlQueryRequest, SparqlQueryResponse)
EXPLAIN = ServiceSpec("explain", ExplainRequest, ExplainResponse)
LIBRARIAN = ServiceSpec("librarian", LibrarianRequest, LibrarianResponse)

SERVICES: dict[str, ServiceSpec[BaseModel, Response]] = {
    spec.name: spec  # type: ignore[misc]
    for spec in (
        AGENT,
        GRAPH_RAG,
        DOCUMENT_RAG,
        TEXT_COMPLETION,
        EMBEDDINGS,
        VECTORS,
        TRIPLES_QUERY,
        SPARQL,
        EXPLAIN,
        LIBRARIAN,
    )
}

# One-way topics (names; see Topics.topic for the full Pulsar name).
TRIPLES_STORE = "triples-store"  # Triples: provenance, explainability and knowledge
DOCUMENT_LOADED = "document-loaded"  # DocumentLoaded: librarian → decoder
PAGES = "pages"  # PageText: decoder → chunker
CHUNKS = "chunks"  # ChunkText: chunker → extractor
INGEST_EVENTS = "ingest-events"  # IngestEvent: pipeline stages → librarian
COLLECTION_DELETED = "collection-deleted"  # CollectionDeleted: store → librarian, vectors

NAMESPACE = "persistent://public/default"


@dataclass(frozen=True)
class Topics:
    """Full Pulsar topic names under one prefix (tests use a fresh prefix each)."""

    prefix: str = "tg"

    def topic(self, name: str) -> str:
        return f"{NAMESPACE}/{self.prefix}.{name}"

    def request(self, spec: ServiceSpec[Req, Resp]) -> str:
        return self.topic(f"{spec.name}.request")

    def reply(self, spec: ServiceSpec[Req, Resp], client: str) -> str:
        return self.topic(f"{spec.name}.reply.{client}")

    def dead_letter(self, topic: str, subscription: str) -> str:
        return f"{topic}.{subscription}.dlq"
