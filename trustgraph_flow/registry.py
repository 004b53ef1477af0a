"""Every processor of the embedded stack, in start order (name → module run as ``python -m``)."""

from __future__ import annotations

PROCESSORS: dict[str, str] = {
    "store": "trustgraph_flow.store.processor",
    "config": "trustgraph_flow.config.processor",
    "text-completion": "trustgraph_flow.llm.processor",
    "embeddings": "trustgraph_flow.embeddings.processor",
    "vectors": "trustgraph_flow.vectors.processor",
    "librarian": "trustgraph_flow.librarian.processor",
    "decoder": "trustgraph_flow.decoder",
    "chunker": "trustgraph_flow.chunker",
    "extractor": "trustgraph_flow.extractor",
    "graph-rag": "trustgraph_flow.graph_rag.processor",
    "document-rag": "trustgraph_flow.document_rag.processor",
    "agent": "trustgraph_flow.agent.processor",
}

# Started only when the environment variable named is set (name → (module, variable)).
OPTIONAL: dict[str, tuple[str, str]] = {
    "otel-export": ("trustgraph_flow.otel.exporter", "TG_OTLP_ENDPOINT"),  # docs/otel.md
}
