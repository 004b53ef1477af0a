"""PROV-O vocabulary, URI builders and pure triple builders for every entity in SPEC.md."""

from trustgraph_base.provenance.agent import (
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    arguments_json,
)
from trustgraph_base.provenance.common import (
    check_started_at,
    failure_triples,
    interrupted_triples,
    metrics_triples,
    now_iso,
)
from trustgraph_base.provenance.extraction import (
    activity_triples,
    chunk_triples,
    document_triples,
    page_triples,
    subgraph_triples,
)
from trustgraph_base.provenance.namespaces import (
    DC,
    GRAPH_RETRIEVAL,
    GRAPH_SOURCE,
    PREFIXES,
    PROV,
    RDF,
    RDFS,
    TG,
    XSD,
)
from trustgraph_base.provenance.rag import (
    SelectedEdge,
    docrag_exploration_triples,
    docrag_question_triples,
    graph_rag_exploration_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    grounding_triples,
    synthesis_triples,
)

__all__ = [
    "DC",
    "GRAPH_RETRIEVAL",
    "GRAPH_SOURCE",
    "PREFIXES",
    "PROV",
    "RDF",
    "RDFS",
    "TG",
    "XSD",
    "SelectedEdge",
    "activity_triples",
    "agent_final_triples",
    "agent_iteration_triples",
    "agent_observation_triples",
    "agent_session_triples",
    "arguments_json",
    "check_started_at",
    "chunk_triples",
    "docrag_exploration_triples",
    "docrag_question_triples",
    "document_triples",
    "failure_triples",
    "graph_rag_exploration_triples",
    "graph_rag_focus_triples",
    "graph_rag_question_triples",
    "grounding_triples",
    "interrupted_triples",
    "metrics_triples",
    "now_iso",
    "page_triples",
    "subgraph_triples",
    "synthesis_triples",
]
