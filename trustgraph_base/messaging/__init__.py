"""Pulsar messaging: the bus, request/response, the processor runtime and the embedded broker."""

from trustgraph_base.messaging.broker import EmbeddedBroker, free_port
from trustgraph_base.messaging.bus import Bus
from trustgraph_base.messaging.receipts import Receipt
from trustgraph_base.messaging.requests import RequestClient
from trustgraph_base.messaging.runtime import Context, Processor
from trustgraph_base.messaging.services import (
    AGENT,
    CHUNKS,
    COLLECTION_DELETED,
    DOCUMENT_LOADED,
    DOCUMENT_RAG,
    EMBEDDINGS,
    EXPLAIN,
    GRAPH_RAG,
    INGEST_EVENTS,
    LIBRARIAN,
    PAGES,
    SERVICES,
    SPARQL,
    TEXT_COMPLETION,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    TRIPLES_STORE_INTAKE,
    VECTORS,
    ServiceSpec,
    Topic,
    Topics,
)

__all__ = [
    "AGENT",
    "CHUNKS",
    "COLLECTION_DELETED",
    "DOCUMENT_LOADED",
    "DOCUMENT_RAG",
    "EMBEDDINGS",
    "EXPLAIN",
    "GRAPH_RAG",
    "INGEST_EVENTS",
    "LIBRARIAN",
    "PAGES",
    "SERVICES",
    "SPARQL",
    "TEXT_COMPLETION",
    "TRIPLES_QUERY",
    "TRIPLES_STORE",
    "TRIPLES_STORE_INTAKE",
    "VECTORS",
    "Bus",
    "Context",
    "EmbeddedBroker",
    "Processor",
    "Receipt",
    "RequestClient",
    "ServiceSpec",
    "Topic",
    "Topics",
    "free_port",
]
