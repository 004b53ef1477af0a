"""The inputs of the conformance test (tests/integration/test_reference_conformance.py), and
the traces and extraction provenance our builders make of them, as our flows call them.

The same inputs go, as JSON, to tests/support/reference_build.py, which runs the reference's
builders (trustgraph-base 2.11.1) in the official client's venv. Each side names the role of
every URI it minted (``graph-rag/focus``, ``agent/analysis``, …) so the two can be compared
role by role whatever their URI schemes.
"""

from __future__ import annotations

from typing import Any

from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    GRAPH_SOURCE,
    TG,
    SelectedEdge,
    activity_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    chunk_triples,
    citation_triples,
    docrag_exploration_triples,
    docrag_question_triples,
    document_triples,
    graph_rag_exploration_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    grounding_triples,
    metrics_triples,
    page_triples,
    subgraph_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.provenance.extraction import VERSION
from trustgraph_base.provenance.prompts import prompt_triples
from trustgraph_base.rdf.terms import IriTerm, Triple

SESSION = "5f0c2a7e-9d4b-4c1e-8a36-0b7d2e91c4aa"
QUERY = "What is the capital of France?"
TIME = "2026-12-05T03:00:00.000Z"
DOC = "urn:trustgraph:doc:world-facts"
EDGES = [
    ["urn:trustgraph:entity:paris", "urn:trustgraph:rel:is_the_capital_of",
     "urn:trustgraph:entity:france", "mentions 'capital', 'france' from the question"],
    ["urn:trustgraph:entity:paris", "urn:trustgraph:rel:lies_on",
     "urn:trustgraph:entity:seine", "names Paris"],
]  # fmt: skip
CHUNKS = [f"{DOC}/p1/c0", f"{DOC}/p3/c1"]
ANSWER = "Paris is the capital of France."
COST: dict[str, Any] = {"in_token": 336, "out_token": 9, "model": "offline"}
LATENCY_MS = 8.25  # ours records each LLM step's duration (tg:llmDurationMs "8", whole ms)

INPUTS: dict[str, Any] = {
    "session": SESSION,
    "query": QUERY,
    "time": TIME,
    "graph_rag": {
        "concepts": [QUERY],  # both our flows search with the question whole
        "edge_count": 33,
        "edges": EDGES,
        "focus_cost": COST,
        "synthesis_cost": COST,
        "document": "%s/document",  # the answer's librarian document: ours, given to both
    },
    "document_rag": {
        "concepts": [QUERY],
        "chunks": CHUNKS,
        "scores": [0.619, 0.42],
        # ours only: the hybrid retrieval's vector rank and word score for each chunk, in the
        # fused order (the first chunk came 2nd in the vector search); the reference has none
        "reranked": [[2, 1.386], [1, 0.0]],
        "synthesis_cost": COST,
        "document": "%s/document",
    },
    "agent": {
        "steps": [
            {"thought": "I should look this up.", "action": "knowledge-query",
             "arguments": {"question": QUERY}, "observation": ANSWER},
            {"thought": "I have the answer.", "action": "document-query",
             "arguments": {"question": QUERY}, "observation": ANSWER},
        ],
        "candidates": ["knowledge-query", "document-query"],
        "cost": COST,
        "llm_duration_ms": 8,  # ours: LATENCY_MS, rounded
        "answer": ANSWER,
        "document": "%s/document",
    },
    "extraction": {
        "document": DOC,
        "title": "world-facts.pdf",
        "mime_type": "application/pdf",
        "page_number": 1,
        "chunk_index": 0,
        "char_offset": 0,
        "char_length": 186,
        "chunk_size": 1000,
        "chunk_overlap": 100,
        "model": "offline",
        "version": VERSION,  # each activity's tg:componentVersion: ours, given to both
        "edges": [e[:3] for e in EDGES],
    },
}  # fmt: skip

PROMPT = ("graph-rag-answer", "sha256:" + "9f2c" * 16, "You answer questions.", "{{question}}")


def _cost(uri: str, graph: str = GRAPH_RETRIEVAL) -> list[Triple]:
    return [
        *metrics_triples(uri, graph, latency_ms=LATENCY_MS, **COST),
        *prompt_triples(uri, graph, *PROMPT),
    ]


def _edges() -> list[SelectedEdge]:
    return [SelectedEdge(IriTerm(i=s), IriTerm(i=p), IriTerm(i=o), why) for s, p, o, why in EDGES]


def graph_rag(roles: dict[str, str]) -> list[Triple]:
    q = uris.graph_rag_question_uri(SESSION)
    ground, exp = uris.grounding_uri(q), uris.exploration_uri(q)
    focus, synth = uris.focus_uri(q), uris.synthesis_uri(q)
    roles.update({q: "graph-rag/question", ground: "graph-rag/grounding"})
    roles.update({exp: "graph-rag/exploration", focus: "graph-rag/focus"})
    roles[synth] = "graph-rag/synthesis"
    for n in range(1, len(EDGES) + 1):
        roles[uris.focus_edge_uri(q, n)] = "graph-rag/focus-edge"
    return [
        *graph_rag_question_triples(q, QUERY, TIME),
        *grounding_triples(ground, q, [QUERY]),
        *graph_rag_exploration_triples(exp, q, 33, ground),
        *graph_rag_focus_triples(focus, exp, q, _edges()),
        *_cost(focus),
        *synthesis_triples(synth, focus, ANSWER),
        *citation_triples(synth, [uris.focus_edge_uri(q, 1)]),
        *_cost(synth),
    ]


def document_rag(roles: dict[str, str]) -> list[Triple]:
    q = uris.docrag_question_uri(SESSION)
    ground, exp, synth = uris.grounding_uri(q), uris.exploration_uri(q), uris.synthesis_uri(q)
    roles.update({q: "document-rag/question", ground: "document-rag/grounding"})
    roles.update({exp: "document-rag/exploration", synth: "document-rag/synthesis"})
    for rank in range(1, len(CHUNKS) + 1):
        roles[uris.exploration_chunk_uri(exp, rank)] = "document-rag/chunk-selection"
    scores = INPUTS["document_rag"]["scores"]
    reranked = [(int(r), float(w)) for r, w in INPUTS["document_rag"]["reranked"]]
    return [
        *docrag_question_triples(q, QUERY, TIME),
        *grounding_triples(ground, q, [QUERY]),
        *docrag_exploration_triples(exp, q, CHUNKS, scores, grounding=ground, reranked=reranked),
        *synthesis_triples(synth, exp, ANSWER),
        *citation_triples(synth, CHUNKS[:1]),
        *_cost(synth),
    ]


def agent(roles: dict[str, str]) -> list[Triple]:
    q = uris.agent_session_uri(SESSION)
    roles[q] = "agent/question"
    out = agent_session_triples(q, QUERY, TIME)
    parent, steps = q, INPUTS["agent"]["steps"]
    for n, step in enumerate(steps, start=1):
        it = uris.agent_iteration_uri(q, n)
        seen = uris.agent_observation_uri(it)
        roles.update({it: "agent/analysis", seen: "agent/observation"})
        out += agent_iteration_triples(
            it, parent, step["thought"], step["action"], step["arguments"],
            step["observation"], step=n, candidates=INPUTS["agent"]["candidates"],
        )  # fmt: skip
        out += _cost(it)
        out += agent_observation_triples(seen, it)
        parent = it
    final = uris.agent_final_uri(q)
    roles[final] = "agent/conclusion"
    return [*out, *agent_final_triples(final, parent, ANSWER, "final-answer"), *_cost(final)]


def extraction(roles: dict[str, str]) -> list[Triple]:
    x = INPUTS["extraction"]
    page = uris.page_uri(DOC, 1)
    chunk = uris.chunk_uri(page, 0)
    sub = uris.subgraph_uri(chunk)
    roles.update({DOC: "extraction/document", page: "extraction/page"})
    roles.update({chunk: "extraction/chunk", sub: "extraction/subgraph"})
    decode, chunking = uris.activity_uri(DOC, "decode"), uris.activity_uri(page, "chunk")
    extract = uris.activity_uri(chunk, "extract")
    settings: dict[IriTerm, int | str] = {TG.chunkSize: 1000, TG.chunkOverlap: 100}
    edges = [(IriTerm(i=s), IriTerm(i=p), IriTerm(i=o)) for s, p, o in x["edges"]]
    return [
        *document_triples(DOC, x["title"], x["mime_type"]),
        *activity_triples(decode, uris.component_uri("decoder"), "decoder", TIME, used=DOC),
        *page_triples(page, DOC, 1, decode),
        *activity_triples(
            chunking, uris.component_uri("chunker"), "chunker", TIME, settings, used=page
        ),
        *chunk_triples(chunk, page, 0, 0, 186, chunking),
        *activity_triples(
            extract,
            uris.component_uri("extractor"),
            "extractor",
            TIME,
            {TG.llmModel: "offline"},
            used=chunk,
        ),
        *metrics_triples(extract, GRAPH_SOURCE, in_token=336, out_token=9, latency_ms=LATENCY_MS),
        *subgraph_triples(sub, chunk, edges, extract),
    ]


def ours() -> tuple[dict[str, str], list[Triple]]:
    """Our builders' triples for ``INPUTS``, and the role of each URI they minted."""
    roles: dict[str, str] = {}
    triples: list[Triple] = []
    for build in (graph_rag, document_rag, agent, extraction):
        triples += build(roles)
    return roles, triples
