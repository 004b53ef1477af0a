"""A fixed corpus of traces and a document, built with the real provenance builders.

Written through the real store, it gives the golden outputs stable ids and times.
"""

from __future__ import annotations

from tests.support.store import EDGE_CAT, EDGE_FOX, Layout, labels, msg, paged_document
from trustgraph_base.provenance import (
    SelectedEdge,
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    citation_triples,
    docrag_exploration_triples,
    docrag_question_triples,
    failure_triples,
    graph_rag_exploration_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    metrics_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.provenance.evidence import (
    ClaimSpec,
    EdgeSpan,
    claim_triples,
    edge_span_triples,
)
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import Triples

DOC = "urn:trustgraph:doc:fox-report"
TIME = "2026-01-01T10:00:{:02d}.000Z"
AGENT = uris.agent_session_uri("golden-agent")
GRAPH_RAG = uris.graph_rag_question_uri("golden-graph-rag")
DOC_RAG = uris.docrag_question_uri("golden-docrag")
SUB = uris.graph_rag_question_uri("golden-sub")
RUNNING = uris.agent_session_uri("golden-running")
FAILED = uris.graph_rag_question_uri("golden-failed")
LONG_ANSWER = "The fox jumps over the dog. " * 40


def batch(triples: list[Triple], ident: str, user: str = "trustgraph") -> Triples:
    return msg(triples, ident, user)


def document() -> list[Triple]:
    """Page 1 (chunks 0 and 1, the fox edge in c0, stated at characters 12-51), page 2
    (chunk 0, the cat edge, no span recorded: extracted before spans were)."""
    layout: Layout = {1: [(0, [EDGE_FOX]), (1, [])], 2: [(0, [EDGE_CAT])]}
    chunk = f"{DOC}/p1/c0"
    said = EdgeSpan(EDGE_FOX, "The quick brown fox\njumps over the dog.", 12, 39, 0)
    spans = edge_span_triples(f"{chunk}/subgraph", chunk, [said])
    return paged_document(DOC, "Fox Report", layout, TIME.format(0)) + spans


def graph_rag(q: str, second: int, parent: str | None = None, *, answer: str = "") -> list[Triple]:
    """A GraphRAG trace that selected the fox and cat edges."""
    out = graph_rag_question_triples(q, "What does the fox do?", TIME.format(second), parent)
    out += graph_rag_exploration_triples(uris.exploration_uri(q), q, 7)
    out += graph_rag_focus_triples(
        uris.focus_uri(q),
        uris.exploration_uri(q),
        q,
        [
            SelectedEdge(*EDGE_FOX, "It says what the fox does."),
            SelectedEdge(*EDGE_CAT, "The fox is chased, which explains why it jumps."),
        ],
    )
    out += synthesis_triples(
        uris.synthesis_uri(q), uris.focus_uri(q), answer or "It jumps over the dog."
    )
    out += citation_triples(uris.synthesis_uri(q), [uris.focus_edge_uri(q, 1)])  # the fox edge
    if not answer:  # its one sentence is a claim citing the fox edge
        claim = ClaimSpec("It jumps over the dog.", 0, 22, (uris.focus_edge_uri(q, 1),))
        out += claim_triples(uris.synthesis_uri(q), [claim])
    out += metrics_triples(
        uris.synthesis_uri(q),
        GRAPH_RETRIEVAL,
        model="offline",
        in_token=212,
        out_token=9,
        latency_ms=3.25,
    )
    return out


def doc_rag() -> list[Triple]:
    out = docrag_question_triples(DOC_RAG, "Who chases the fox?", TIME.format(3))
    chunks = [uris.chunk_uri(uris.page_uri(DOC, 2), 0), uris.chunk_uri(uris.page_uri(DOC, 1), 0)]
    out += docrag_exploration_triples(uris.exploration_uri(DOC_RAG), DOC_RAG, chunks)
    out += synthesis_triples(uris.synthesis_uri(DOC_RAG), uris.exploration_uri(DOC_RAG), "The cat.")
    out += citation_triples(uris.synthesis_uri(DOC_RAG), [chunks[0]])  # page 2: the cat
    out += claim_triples(uris.synthesis_uri(DOC_RAG), [ClaimSpec("The cat.", 0, 8, (chunks[0],))])
    return out


def agent() -> list[Triple]:
    """Two steps; the first ran a GraphRAG sub-trace; then a conclusion."""
    i1, i2 = uris.agent_iteration_uri(AGENT, 1), uris.agent_iteration_uri(AGENT, 2)
    out = agent_session_triples(AGENT, "Why does the fox jump?", TIME.format(4))
    out += agent_iteration_triples(
        i1,
        AGENT,
        "I should ask the knowledge graph.",
        "knowledge-query",
        {"question": "What does the fox do?"},
        "It jumps over the dog.",
    )
    out += agent_observation_triples(uris.agent_observation_uri(i1), i1)
    out += graph_rag(SUB, 5, parent=i1)
    out += agent_iteration_triples(
        i2, i1, "Now I know enough.", "calculator", {"expression": "1+1"}, "2"
    )
    out += agent_observation_triples(uris.agent_observation_uri(i2), i2)
    out += agent_final_triples(uris.agent_final_uri(AGENT), i2, LONG_ANSWER)
    return out


def running() -> list[Triple]:
    """An agent still at work: a question and nothing after it yet."""
    return agent_session_triples(RUNNING, "Still thinking about foxes?", TIME.format(6))


def failed() -> list[Triple]:
    out = graph_rag_question_triples(FAILED, "What breaks?", TIME.format(7))
    out += graph_rag_exploration_triples(uris.exploration_uri(FAILED), FAILED, 0)
    out += failure_triples(FAILED, GRAPH_RETRIEVAL, "text-completion timed out after 30 s")
    return out


def batches() -> list[Triples]:
    """Everything for user ``trustgraph``, plus one trace of user ``bob`` (must stay invisible)."""
    bob = uris.graph_rag_question_uri("bob-private")
    return [
        batch(labels() + document(), "doc"),
        batch(graph_rag(GRAPH_RAG, 2), "graph-rag"),
        batch(doc_rag(), "docrag"),
        batch(agent(), "agent"),
        batch(running(), "running"),
        batch(failed(), "failed"),
        batch(graph_rag(bob, 9), "bob", user="bob"),
    ]


# The trace ids in the golden files, by golden file stem.
GOLDEN_TRACES = {
    "trace_graph_rag": GRAPH_RAG,
    "trace_doc_rag": DOC_RAG,
    "trace_agent": AGENT,
    "trace_running": RUNNING,
    "trace_failed": FAILED,
}
