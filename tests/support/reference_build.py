"""Builds traces and extraction provenance with the reference's own builders.

Run ONLY with the official client's python (``scripts/official-client``: ``trustgraph-base``
2.11.1 is installed there), never imported by our code or tests: it reads the inputs as JSON
on stdin (tests/support/conformance.py writes them, the same our builders get) and prints
``{"roles": {uri: role}, "triples": [[s, p, o], ...]}``, each term as
``{"iri": …}``, ``{"v": …, "dt": …}`` or ``{"triple": [s, p, o]}``.
"""

# mypy: ignore-errors
from __future__ import annotations

import json
import sys

from trustgraph import provenance as ref
from trustgraph.provenance import uris as ref_uris
from trustgraph.schema import IRI, LITERAL, TRIPLE, Term, Triple


def _term(t: Term) -> dict:
    if t.type == IRI:
        return {"iri": t.iri}
    if t.type == LITERAL:
        return {"v": t.value, "dt": t.datatype or None}
    if t.type == TRIPLE:
        return {"triple": [_term(t.triple.s), _term(t.triple.p), _term(t.triple.o)]}
    raise ValueError(f"unexpected term {t!r}")


def _edge(edge: list[str]) -> tuple[Term, Term, Term]:
    return tuple(Term(type=IRI, iri=x) for x in edge[:3])


def graph_rag(i: dict, roles: dict[str, str]) -> list:
    s, g = i["session"], i["graph_rag"]
    q = ref_uris.question_uri(s)
    ground, exp = ref_uris.grounding_uri(s), ref_uris.exploration_uri(s)
    focus, synth = ref_uris.focus_uri(s), ref_uris.synthesis_uri(s)
    roles.update({q: "graph-rag/question", ground: "graph-rag/grounding"})
    roles.update({exp: "graph-rag/exploration", focus: "graph-rag/focus"})
    roles[synth] = "graph-rag/synthesis"
    for n in range(len(g["edges"])):
        roles[ref_uris.edge_selection_uri(s, n)] = "graph-rag/focus-edge"
    selected = [{"edge": _edge(e), "reasoning": e[3]} for e in g["edges"]]
    return [
        *ref.question_triples(q, i["query"], i["time"]),
        *ref.grounding_triples(ground, q, g["concepts"]),
        *ref.exploration_triples(exp, ground, g["edge_count"]),
        *ref.focus_triples(focus, exp, selected, s, **g["focus_cost"]),
        *ref.synthesis_triples(synth, focus, g["document"] % synth, **g["synthesis_cost"]),
    ]


def document_rag(i: dict, roles: dict[str, str]) -> list:
    s, d = i["session"], i["document_rag"]
    q = ref_uris.docrag_question_uri(s)
    ground, exp = ref_uris.docrag_grounding_uri(s), ref_uris.docrag_exploration_uri(s)
    focus, synth = ref_uris.docrag_focus_uri(s), ref_uris.docrag_synthesis_uri(s)
    roles.update({q: "document-rag/question", ground: "document-rag/grounding"})
    roles.update({exp: "document-rag/exploration", focus: "document-rag/focus"})
    roles[synth] = "document-rag/synthesis"
    for n in range(len(d["chunks"])):
        roles[ref_uris.chunk_selection_uri(s, n)] = "document-rag/chunk-selection"
    chunks = [{"chunk_id": c, "score": sc} for c, sc in zip(d["chunks"], d["scores"], strict=True)]
    return [
        *ref.docrag_question_triples(q, i["query"], i["time"]),
        *ref.grounding_triples(ground, q, d["concepts"]),
        *ref.docrag_exploration_triples(exp, ground, len(d["chunks"]), d["chunks"]),
        *ref.docrag_chunk_selection_triples(focus, exp, chunks, s),
        *ref.docrag_synthesis_triples(synth, exp, d["document"] % synth, **d["synthesis_cost"]),
    ]


def agent(i: dict, roles: dict[str, str]) -> list:
    s, a = i["session"], i["agent"]
    q = ref_uris.agent_session_uri(s)
    roles[q] = "agent/question"
    out = [*ref.agent_session_triples(q, i["query"], i["time"])]
    previous = None
    for n, step in enumerate(a["steps"], start=1):
        it = ref_uris.agent_iteration_uri(s, n)
        thought = ref_uris.agent_thought_uri(s, n)
        seen = ref_uris.agent_observation_uri(s, n)
        roles.update({it: "agent/analysis", thought: "agent/thought", seen: "agent/observation"})
        out += ref.agent_iteration_triples(
            it,
            question_uri=None if previous else q,
            previous_uri=previous,
            action=step["action"],
            arguments=step["arguments"],
            thought_uri=thought,
            thought_document_id=a["document"] % thought,
            tool_candidates=a["candidates"],
            step_number=n,
            llm_duration_ms=a["llm_duration_ms"],
            **a["cost"],
        )
        out += ref.agent_observation_triples(seen, it, a["document"] % seen)
        previous = it
    final = ref_uris.agent_final_uri(s)
    roles[final] = "agent/conclusion"
    out += ref.agent_final_triples(
        final,
        previous_uri=previous,
        document_id=a["document"] % final,
        termination_reason="final-answer",
        **a["cost"],
    )
    return out


def extraction(i: dict, roles: dict[str, str]) -> list:
    x = i["extraction"]
    doc = x["document"]
    page, chunk, sub = ref_uris.page_uri(), ref_uris.chunk_uri(), ref_uris.subgraph_uri()
    roles.update({doc: "extraction/document", page: "extraction/page"})
    roles.update({chunk: "extraction/chunk", sub: "extraction/subgraph"})
    version = x["version"]
    edges = [Triple(*_edge(e)) for e in x["edges"]]
    return [
        *ref.document_triples(doc, title=x["title"], mime_type=x["mime_type"]),
        *ref.derived_entity_triples(
            page, doc, "decoder", version, page_number=x["page_number"], timestamp=i["time"]
        ),
        *ref.derived_entity_triples(
            chunk,
            page,
            "chunker",
            version,
            chunk_index=x["chunk_index"],
            char_offset=x["char_offset"],
            char_length=x["char_length"],
            chunk_size=x["chunk_size"],
            chunk_overlap=x["chunk_overlap"],
            timestamp=i["time"],
        ),
        *ref.subgraph_provenance_triples(
            sub, edges, chunk, "extractor", version, llm_model=x["model"], timestamp=i["time"]
        ),
    ]


def main() -> None:
    inputs = json.load(sys.stdin)
    roles: dict[str, str] = {}
    triples = []
    for build in (graph_rag, document_rag, agent, extraction):
        triples += build(inputs, roles)
    vocabulary = ref.get_vocabulary_triples()
    print(
        json.dumps(
            {
                "roles": roles,
                "triples": [[_term(t.s), _term(t.p), _term(t.o)] for t in triples],
                # with the graph each label is written to (None: the default graph)
                "vocabulary": [[_term(t.s), _term(t.p), _term(t.o), t.g] for t in vocabulary],
            }
        )
    )


if __name__ == "__main__":
    main()
