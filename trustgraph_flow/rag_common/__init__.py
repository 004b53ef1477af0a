"""What GraphRAG and DocumentRAG share, by responsibility: ``settings`` (settings and
state), ``trace`` (the trace's stages, the guard that marks failures), ``calls`` (LLM,
embeddings and vector calls with their cost), ``citations`` (the cited-answer reply) and
``nodata`` (why nothing was found). The names below are the package's public surface.
"""

from trustgraph_flow.rag_common.calls import (
    Completion,
    Cost,
    Timer,
    add_cost,
    chunk_contents,
    chunk_texts,
    nearest_kinds,
)
from trustgraph_flow.rag_common.citations import CITE_SYSTEM, CitedAnswer, cited_schema
from trustgraph_flow.rag_common.nodata import (
    LOOKUP_TIMEOUT,
    no_data_error,
    nothing_found_error,
    refuse_unknown_collection,
)
from trustgraph_flow.rag_common.repeat import trace_identity
from trustgraph_flow.rag_common.settings import RagContext, RagSettings, RagState, open_rag_state
from trustgraph_flow.rag_common.trace import QuestionTriples, Trace, traced

__all__ = [
    "CITE_SYSTEM",
    "LOOKUP_TIMEOUT",
    "CitedAnswer",
    "Completion",
    "Cost",
    "QuestionTriples",
    "RagContext",
    "RagSettings",
    "RagState",
    "Timer",
    "Trace",
    "add_cost",
    "chunk_contents",
    "chunk_texts",
    "cited_schema",
    "nearest_kinds",
    "no_data_error",
    "nothing_found_error",
    "open_rag_state",
    "refuse_unknown_collection",
    "trace_identity",
    "traced",
]
