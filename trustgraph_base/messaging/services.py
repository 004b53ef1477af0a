"""The request/response services and the one-way topics, each with its message types.

Each service ``NAME`` takes requests on topic ``<prefix>.NAME.request``; a requester names
its own reply topic in the ``reply-to`` property and correlates replies by ``id``. A
one-way topic is a ``Topic[M]``: it carries messages of type ``M`` only, so that a consumer
takes its payload type from it and ``ctx.publish(topic, message)`` is type-checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
    ChunkText,
    CollectionDeleted,
    ConfigChanged,
    ConfigRequest,
    ConfigResponse,
    DocumentLoaded,
    DocumentRagRequest,
    DocumentRagResponse,
    EmbeddingsRequest,
    EmbeddingsResponse,
    ExplainRequest,
    ExplainResponse,
    FlowRequest,
    FlowResponse,
    GraphRagRequest,
    GraphRagResponse,
    HeldWritten,
    IngestEvent,
    KnowledgeRequest,
    KnowledgeResponse,
    LibrarianRequest,
    LibrarianResponse,
    LoadsRemoved,
    PageText,
    PromptRequest,
    Response,
    SparqlQueryRequest,
    SparqlQueryResponse,
    StoreTriples,
    TextCompletionRequest,
    TextCompletionResponse,
    Triples,
    TriplesQueryRequest,
    TriplesQueryResponse,
    VectorRequest,
    VectorResponse,
)
from trustgraph_base.schema.llm import RerankRequest, RerankResponse
from trustgraph_base.schema.metrics import MetricsReport

M = TypeVar("M", bound=BaseModel)
Req = TypeVar("Req", bound=BaseModel)
Resp = TypeVar("Resp", bound=Response)


@dataclass(frozen=True)
class Topic(Generic[M]):
    """A one-way topic: its short name and the one message type it carries.

    It prints as its short name (``f"store.{TRIPLES_STORE}"`` is a subscription name).
    """

    name: str
    model: type[M]

    def __str__(self) -> str:
        return self.name


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
CONFIG = ServiceSpec("config", ConfigRequest, ConfigResponse)
FLOW = ServiceSpec("flow", FlowRequest, FlowResponse)
KNOWLEDGE = ServiceSpec("knowledge", KnowledgeRequest, KnowledgeResponse)
PROMPT = ServiceSpec("prompt", PromptRequest, TextCompletionResponse)
RERANKER = ServiceSpec("reranker", RerankRequest, RerankResponse)

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
        CONFIG,
        FLOW,
        KNOWLEDGE,
        PROMPT,
        RERANKER,
    )
}

# One-way topics (see Topics.topic for the full Pulsar name).
TRIPLES_STORE = Topic("triples-store", Triples)  # ingestion provenance, edges, knowledge
# The same topic as the store reads it: N-Quads text parsed and checked, no model per term.
TRIPLES_STORE_INTAKE = Topic("triples-store", StoreTriples)
# Traces (agent, RAG, run recovery, OTLP import): a topic of their own, so an answer's trace
# is never queued behind a large load's provenance on triples-store (docs/store.md, intake).
EXPLAIN_STORE = Topic("explain-store", Triples)
EXPLAIN_STORE_INTAKE = Topic("explain-store", StoreTriples)  # as the store and exporter read it
DOCUMENT_LOADED = Topic("document-loaded", DocumentLoaded)  # librarian → decoder
PAGES = Topic("pages", PageText)  # decoder → chunker
CHUNKS = Topic("chunks", ChunkText)  # chunker → extractor
INGEST_EVENTS = Topic("ingest-events", IngestEvent)  # pipeline stages → librarian
COLLECTION_DELETED = Topic("collection-deleted", CollectionDeleted)  # store → librarian, vectors
LOADS_REMOVED = Topic("loads-removed", LoadsRemoved)  # librarian, store → chunker, extractor
HELD_WRITTEN = Topic("held-written", HeldWritten)  # store → librarian: held writes are in
CONFIG_CHANGED = Topic("config-changed", ConfigChanged)  # config → every config reader
METRICS = Topic("metrics", MetricsReport)  # every processor → gateways (/api/metrics)

NAMESPACE = "persistent://public/default"


@dataclass(frozen=True)
class Topics:
    """Full Pulsar topic names under one prefix (tests use a fresh prefix each)."""

    prefix: str = "tg"

    def topic(self, topic: Topic[Any] | str) -> str:
        """The full name of a one-way topic (or of a bare name, e.g. a test's own topic)."""
        return f"{NAMESPACE}/{self.prefix}.{topic}"

    def request(self, spec: ServiceSpec[Req, Resp]) -> str:
        return self.topic(f"{spec.name}.request")

    def reply(self, spec: ServiceSpec[Req, Resp], client: str) -> str:
        return self.topic(f"{spec.name}.reply.{client}")

    def dead_letter(self, topic: str, subscription: str) -> str:
        return f"{topic}.{subscription}.dlq"
