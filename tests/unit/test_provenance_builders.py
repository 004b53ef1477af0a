"""The builders produce exactly the triples of SPEC.md's diagrams."""

from __future__ import annotations

import re

import pytest

from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    GRAPH_SOURCE,
    TG,
    SelectedEdge,
    activity_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
    chunk_triples,
    docrag_exploration_triples,
    docrag_question_triples,
    document_triples,
    failure_triples,
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
from trustgraph_base.rdf import Triple, iri, lit, term_key
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.wire import decode, encode

XSD = "http://www.w3.org/2001/XMLSchema#"


PREFIXES = (
    ("https://trustgraph.ai/ns/", "tg:"),
    ("http://www.w3.org/ns/prov#", "prov:"),
    ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdf:"),
    ("http://www.w3.org/2000/01/rdf-schema#", "rdfs:"),
    ("http://purl.org/dc/elements/1.1/", "dc:"),
    (XSD, "xsd:"),
)


def split(got: list[str], spec: list[str], extras: list[str]) -> None:
    """``got`` is SPEC.md's triples in order, plus exactly TrustGraph's ``extras`` beside them."""
    assert [line for line in got if line not in extras] == spec
    assert sorted(line for line in got if line not in spec) == sorted(extras)


def lines(triples: list[Triple]) -> list[str]:
    """Triples as readable lines with prefixed names, keeping the builder's order."""
    out = []
    for t in triples:
        text = f"{term_key(t.s)} {term_key(t.p)} {term_key(t.o)}"
        for ns, prefix in PREFIXES:
            text = re.sub(f"<{re.escape(ns)}([A-Za-z]+)>", prefix + r"\1", text)
        out.append(text)
    return out


def test_agent_trace_matches_spec() -> None:
    session = uris.agent_session_uri("s1")
    i1 = uris.agent_iteration_uri(session, 1)
    final = uris.agent_final_uri(session)
    got = (
        lines(
            agent_session_triples(session, "What is the capital of France?", "2026-01-01T00:00:00Z")
        )
        + lines(
            agent_iteration_triples(
                i1,
                session,
                "look it up",
                "knowledge-query",
                {"question": "capital of France"},
                "Paris",
            )
        )
        + lines(agent_final_triples(final, i1, "Paris"))
    )
    split(
        got,
        [
            "<urn:trustgraph:agent:s1> rdf:type prov:Activity",
            "<urn:trustgraph:agent:s1> rdf:type tg:Question",
            "<urn:trustgraph:agent:s1> rdf:type tg:AgentQuestion",
            '<urn:trustgraph:agent:s1> tg:query "What is the capital of France?"',
            '<urn:trustgraph:agent:s1> prov:startedAtTime "2026-01-01T00:00:00Z"^^xsd:dateTime',
            "<urn:trustgraph:agent:s1/i1> rdf:type prov:Entity",
            "<urn:trustgraph:agent:s1/i1> rdf:type tg:Analysis",
            "<urn:trustgraph:agent:s1/i1> prov:wasDerivedFrom <urn:trustgraph:agent:s1>",
            '<urn:trustgraph:agent:s1/i1> tg:thought "look it up"',
            '<urn:trustgraph:agent:s1/i1> tg:action "knowledge-query"',
            '<urn:trustgraph:agent:s1/i1> tg:arguments "{\\"question\\": \\"capital of France\\"}"',
            '<urn:trustgraph:agent:s1/i1> tg:observation "Paris"',
            "<urn:trustgraph:agent:s1/final> rdf:type prov:Entity",
            "<urn:trustgraph:agent:s1/final> rdf:type tg:Conclusion",
            "<urn:trustgraph:agent:s1/final> prov:wasDerivedFrom <urn:trustgraph:agent:s1/i1>",
            '<urn:trustgraph:agent:s1/final> tg:answer "Paris"',
        ],
        [
            '<urn:trustgraph:agent:s1> rdfs:label "Agent Question"',
            "<urn:trustgraph:agent:s1/i1> rdf:type tg:ToolUse",
            '<urn:trustgraph:agent:s1/i1> rdfs:label "Analysis: knowledge-query"',
            "<urn:trustgraph:agent:s1/final> rdf:type tg:Answer",
            '<urn:trustgraph:agent:s1/final> rdfs:label "Conclusion"',
            "<urn:trustgraph:agent:s1/final> tg:document <urn:trustgraph:agent:s1/final/document>",
        ],
    )
    everything = agent_session_triples(session, "q", "2026-01-01T00:00:00Z") + agent_final_triples(
        final, session, "a"
    )
    assert {t.g for t in everything} == {GRAPH_RETRIEVAL}


def test_docrag_trace_matches_spec() -> None:
    q = uris.docrag_question_uri("d1")
    exp, syn = uris.exploration_uri(q), uris.synthesis_uri(q)
    chunks = ["urn:trustgraph:doc:x/p1/c0", "urn:trustgraph:doc:x/p2/c3"]
    got = (
        lines(
            docrag_question_triples(
                q, "q?", "2026-01-01T00:00:00Z", parent_uri="urn:trustgraph:agent:s1/i2"
            )
        )
        + lines(grounding_triples(uris.grounding_uri(q), q, ["q?"]))
        + lines(docrag_exploration_triples(exp, q, chunks, grounding=uris.grounding_uri(q)))
        + lines(synthesis_triples(syn, exp, "answer"))
    )
    split(
        got,
        [
            "<urn:trustgraph:docrag:d1> rdf:type prov:Activity",
            "<urn:trustgraph:docrag:d1> rdf:type tg:Question",
            "<urn:trustgraph:docrag:d1> rdf:type tg:DocRagQuestion",
            '<urn:trustgraph:docrag:d1> tg:query "q?"',
            '<urn:trustgraph:docrag:d1> prov:startedAtTime "2026-01-01T00:00:00Z"^^xsd:dateTime',
            "<urn:trustgraph:docrag:d1> prov:wasDerivedFrom <urn:trustgraph:agent:s1/i2>",
            "<urn:trustgraph:docrag:d1/exploration> rdf:type prov:Entity",
            "<urn:trustgraph:docrag:d1/exploration> rdf:type tg:Exploration",
            "<urn:trustgraph:docrag:d1/exploration> prov:wasGeneratedBy <urn:trustgraph:docrag:d1>",
            '<urn:trustgraph:docrag:d1/exploration> tg:chunkCount "2"',
            "<urn:trustgraph:docrag:d1/exploration> tg:selectedChunk <urn:trustgraph:doc:x/p1/c0>",
            "<urn:trustgraph:docrag:d1/exploration> tg:selectedChunk <urn:trustgraph:doc:x/p2/c3>",
            "<urn:trustgraph:docrag:d1/synthesis> rdf:type prov:Entity",
            "<urn:trustgraph:docrag:d1/synthesis> rdf:type tg:Synthesis",
            "<urn:trustgraph:docrag:d1/synthesis> prov:wasDerivedFrom <urn:trustgraph:docrag:d1/exploration>",
            '<urn:trustgraph:docrag:d1/synthesis> tg:content "answer"',
        ],
        [
            '<urn:trustgraph:docrag:d1> rdfs:label "DocumentRAG Question"',
            "<urn:trustgraph:docrag:d1/grounding> rdf:type prov:Entity",
            "<urn:trustgraph:docrag:d1/grounding> rdf:type tg:Grounding",
            "<urn:trustgraph:docrag:d1/grounding> prov:wasDerivedFrom <urn:trustgraph:docrag:d1>",
            '<urn:trustgraph:docrag:d1/grounding> rdfs:label "Grounding"',
            '<urn:trustgraph:docrag:d1/grounding> tg:concept "q?"',
            '<urn:trustgraph:docrag:d1/exploration> rdfs:label "Exploration"',
            "<urn:trustgraph:docrag:d1/exploration> prov:wasDerivedFrom <urn:trustgraph:docrag:d1/grounding>",
            "<urn:trustgraph:docrag:d1/synthesis> rdf:type tg:Answer",
            '<urn:trustgraph:docrag:d1/synthesis> rdfs:label "Synthesis"',
            "<urn:trustgraph:docrag:d1/synthesis> tg:document <urn:trustgraph:docrag:d1/synthesis/document>",
        ],
    )


def test_graph_rag_trace_matches_spec() -> None:
    q = uris.graph_rag_question_uri("g1")
    exp, foc, syn = uris.exploration_uri(q), uris.focus_uri(q), uris.synthesis_uri(q)
    edge = SelectedEdge(
        iri("urn:trustgraph:entity:paris"),
        iri("urn:trustgraph:rel:capital_of"),
        iri("urn:trustgraph:entity:france"),
        "names the capital",
    )
    got = (
        lines(graph_rag_question_triples(q, "q?", "2026-01-01T00:00:00Z"))
        + lines(graph_rag_exploration_triples(exp, q, 12, uris.grounding_uri(q)))
        + lines(graph_rag_focus_triples(foc, exp, q, [edge]))
        + lines(synthesis_triples(syn, foc, "Paris"))
    )
    split(
        got,
        [
            "<urn:trustgraph:question:g1> rdf:type prov:Activity",
            "<urn:trustgraph:question:g1> rdf:type tg:Question",
            "<urn:trustgraph:question:g1> rdf:type tg:GraphRagQuestion",
            '<urn:trustgraph:question:g1> tg:query "q?"',
            '<urn:trustgraph:question:g1> prov:startedAtTime "2026-01-01T00:00:00Z"^^xsd:dateTime',
            "<urn:trustgraph:question:g1/exploration> rdf:type prov:Entity",
            "<urn:trustgraph:question:g1/exploration> rdf:type tg:Exploration",
            "<urn:trustgraph:question:g1/exploration> prov:wasGeneratedBy <urn:trustgraph:question:g1>",
            '<urn:trustgraph:question:g1/exploration> tg:edgeCount "12"',
            "<urn:trustgraph:question:g1/focus> rdf:type prov:Entity",
            "<urn:trustgraph:question:g1/focus> rdf:type tg:Focus",
            "<urn:trustgraph:question:g1/focus> prov:wasDerivedFrom <urn:trustgraph:question:g1/exploration>",
            "<urn:trustgraph:question:g1/focus> tg:selectedEdge <urn:trustgraph:question:g1/focus/e1>",
            "<urn:trustgraph:question:g1/focus/e1> tg:edge <<( <urn:trustgraph:entity:paris> <urn:trustgraph:rel:capital_of> <urn:trustgraph:entity:france> )>>",
            '<urn:trustgraph:question:g1/focus/e1> tg:reasoning "names the capital"',
            "<urn:trustgraph:question:g1/synthesis> rdf:type prov:Entity",
            "<urn:trustgraph:question:g1/synthesis> rdf:type tg:Synthesis",
            "<urn:trustgraph:question:g1/synthesis> prov:wasDerivedFrom <urn:trustgraph:question:g1/focus>",
            '<urn:trustgraph:question:g1/synthesis> tg:content "Paris"',
        ],
        [
            '<urn:trustgraph:question:g1> rdfs:label "GraphRAG Question"',
            '<urn:trustgraph:question:g1/exploration> rdfs:label "Exploration"',
            "<urn:trustgraph:question:g1/exploration> prov:wasDerivedFrom <urn:trustgraph:prov:grounding:g1>",
            '<urn:trustgraph:question:g1/focus> rdfs:label "Focus"',
            "<urn:trustgraph:question:g1/focus/e1> rdf:type tg:EdgeSelection",
            "<urn:trustgraph:question:g1/synthesis> rdf:type tg:Answer",
            '<urn:trustgraph:question:g1/synthesis> rdfs:label "Synthesis"',
            "<urn:trustgraph:question:g1/synthesis> tg:document <urn:trustgraph:question:g1/synthesis/document>",
        ],
    )


def test_extraction_provenance_matches_spec() -> None:
    doc = uris.document_uri("abc123")
    page = uris.page_uri(doc, 1)
    chunk = uris.chunk_uri(page, 0)
    sub = uris.subgraph_uri(chunk)
    act = uris.activity_uri(chunk, "extract")
    edge = (iri("urn:trustgraph:entity:paris"), iri("urn:trustgraph:rel:capital_of"), lit("France"))
    got = (
        lines(document_triples(doc, "Sample PDF", "application/pdf"))
        + lines(page_triples(page, doc, 1, uris.activity_uri(doc, "decode")))
        + lines(chunk_triples(chunk, page, 0, 0, 120, uris.activity_uri(page, "chunk")))
        + lines(subgraph_triples(sub, chunk, [edge], act))
        + lines(
            activity_triples(
                act,
                uris.component_uri("extractor"),
                "extractor",
                "2026-01-01T00:00:00Z",
                {TG.llmModel: "offline"},
                used=chunk,
            )
        )
    )
    assert got == [
        "<urn:trustgraph:doc:abc123> rdf:type prov:Entity",
        "<urn:trustgraph:doc:abc123> rdf:type tg:Document",
        '<urn:trustgraph:doc:abc123> dc:title "Sample PDF"',
        '<urn:trustgraph:doc:abc123> tg:mimeType "application/pdf"',
        '<urn:trustgraph:doc:abc123> rdfs:label "Sample PDF"',
        "<urn:trustgraph:doc:abc123/p1> rdf:type prov:Entity",
        "<urn:trustgraph:doc:abc123/p1> rdf:type tg:Page",
        '<urn:trustgraph:doc:abc123/p1> tg:pageNumber "1"',
        "<urn:trustgraph:doc:abc123/p1> prov:wasDerivedFrom <urn:trustgraph:doc:abc123>",
        "<urn:trustgraph:doc:abc123/p1> prov:wasGeneratedBy <https://trustgraph.ai/activity/8f93ffb4-ab5c-5a76-aa58-1776530ac3ec>",
        "<urn:trustgraph:doc:abc123/p1/c0> rdf:type prov:Entity",
        "<urn:trustgraph:doc:abc123/p1/c0> rdf:type tg:Chunk",
        '<urn:trustgraph:doc:abc123/p1/c0> tg:chunkIndex "0"',
        '<urn:trustgraph:doc:abc123/p1/c0> tg:charOffset "0"',  # the reference's form
        '<urn:trustgraph:doc:abc123/p1/c0> tg:charLength "120"',
        "<urn:trustgraph:doc:abc123/p1/c0> prov:wasDerivedFrom <urn:trustgraph:doc:abc123/p1>",
        "<urn:trustgraph:doc:abc123/p1/c0> prov:wasGeneratedBy <https://trustgraph.ai/activity/96e5fc8b-a970-5cb4-aa0a-07a100ae77cd>",
        "<urn:trustgraph:doc:abc123/p1/c0/subgraph> rdf:type prov:Entity",
        "<urn:trustgraph:doc:abc123/p1/c0/subgraph> rdf:type tg:Subgraph",
        "<urn:trustgraph:doc:abc123/p1/c0/subgraph> prov:wasDerivedFrom <urn:trustgraph:doc:abc123/p1/c0>",
        "<urn:trustgraph:doc:abc123/p1/c0/subgraph> prov:wasGeneratedBy <https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900>",
        '<urn:trustgraph:doc:abc123/p1/c0/subgraph> tg:contains <<( <urn:trustgraph:entity:paris> <urn:trustgraph:rel:capital_of> "France" )>>',
        "<https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900> rdf:type prov:Activity",
        "<https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900> prov:wasAssociatedWith <https://trustgraph.ai/agent/extractor>",
        '<https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900> prov:startedAtTime "2026-01-01T00:00:00Z"',
        "<https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900> prov:used <urn:trustgraph:doc:abc123/p1/c0>",
        '<https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900> rdfs:label "extractor extraction"',
        f'<https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900> tg:componentVersion "{VERSION}"',
        "<https://trustgraph.ai/agent/extractor> rdf:type prov:Agent",
        "<https://trustgraph.ai/agent/extractor> rdf:type prov:SoftwareAgent",
        '<https://trustgraph.ai/agent/extractor> rdfs:label "extractor"',
        '<https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900> tg:llmModel "offline"',
    ]
    assert {t.g for t in document_triples(doc, "t", "text/plain")} == {GRAPH_SOURCE}


def test_metrics_and_failure_are_declared_predicates() -> None:
    got = lines(
        metrics_triples(
            "urn:trustgraph:question:g1/focus",
            GRAPH_RETRIEVAL,
            model="m",
            in_token=3,
            out_token=4,
            latency_ms=1.5,
        )
    )
    assert got == [
        '<urn:trustgraph:question:g1/focus> tg:llmModel "m"',
        '<urn:trustgraph:question:g1/focus> tg:inToken "3"',
        '<urn:trustgraph:question:g1/focus> tg:outToken "4"',
        '<urn:trustgraph:question:g1/focus> tg:llmDurationMs "2"',  # whole ms, rounded half up
    ]
    assert lines(failure_triples("urn:trustgraph:agent:s1", GRAPH_RETRIEVAL, "LLM down")) == [
        '<urn:trustgraph:agent:s1> tg:error "LLM down"'
    ]


def test_misspelt_vocabulary_term_fails_loudly() -> None:
    with pytest.raises(AttributeError):
        _ = TG.selectedEdges  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", ["", "a b", "x/y", "../etc", "<script>"])
def test_session_ids_are_uri_safe(bad: str) -> None:
    with pytest.raises(ValueError):
        uris.agent_session_uri(bad)


def test_trace_uri_parsing() -> None:
    assert uris.trace_kind("urn:trustgraph:agent:s1/i3") == "agent"
    assert uris.trace_root("urn:trustgraph:agent:s1/i3") == "urn:trustgraph:agent:s1"
    assert uris.trace_root("urn:trustgraph:agent:s1/i3/observation") == "urn:trustgraph:agent:s1"
    assert uris.trace_root("urn:trustgraph:question:q/focus/e2") == "urn:trustgraph:question:q"
    assert uris.trace_root("urn:trustgraph:docrag:d/synthesis") == "urn:trustgraph:docrag:d"
    assert uris.trace_kind("urn:trustgraph:doc:x") is None
    assert uris.document_uri("my doc") == "urn:trustgraph:doc:my%20doc"
    assert uris.entity_uri("Marie  Curie") == "urn:trustgraph:entity:marie_curie"


def test_parse_helpers_invert_the_builders() -> None:
    session = uris.agent_session_uri("s1")
    assert uris.session_id_of(session) == "s1"
    assert uris.session_id_of(uris.docrag_question_uri("d.2")) == "d.2"
    assert uris.session_id_of("urn:trustgraph:doc:x") is None
    assert uris.session_trace_uris("s1") == [
        session,
        uris.graph_rag_question_uri("s1"),
        uris.docrag_question_uri("s1"),
    ]
    assert uris.agent_step_index(session, uris.agent_iteration_uri(session, 12)) == 12
    assert uris.agent_step_index(session, uris.agent_final_uri(session)) is None
    step = uris.agent_iteration_uri(session, 3)
    assert uris.agent_step_index(session, uris.agent_observation_uri(step)) is None
    assert uris.agent_step_index(session + "0", uris.agent_iteration_uri(session, 3)) is None
    assert uris.is_conclusion_uri(session, uris.agent_final_uri(session))
    question = uris.graph_rag_question_uri("q")
    assert uris.is_conclusion_uri(question, uris.synthesis_uri(question))
    assert not uris.is_conclusion_uri(question, uris.synthesis_uri(question + "/x"))
    docrag = uris.docrag_question_uri("d")
    exploration = uris.exploration_uri(docrag)
    selection = uris.exploration_chunk_uri(exploration, 2)  # the reference's, 0-based
    assert selection == "urn:trustgraph:prov:chunk:d:1" and uris.trace_root(selection) == docrag
    assert uris.is_exploration_chunk_uri(exploration, selection)
    assert not uris.is_exploration_chunk_uri(exploration, uris.focus_edge_uri(docrag, 2))
    assert not uris.is_exploration_chunk_uri(uris.exploration_uri(docrag + "0"), selection)
    assert uris.is_session_id("a-b_c.d") and not uris.is_session_id("a b")


def test_built_triples_are_the_models_the_wire_gives_back() -> None:
    """The builders assemble triples from parts checked once; what they make is equal to,
    and encodes like, the same triples validated from their JSON."""
    session = uris.agent_session_uri("s2")
    i1 = uris.agent_iteration_uri(session, 1)
    built = [
        *agent_session_triples(session, "Q?", "2026-01-01T00:00:00Z"),
        *agent_iteration_triples(i1, session, "t", "kq", {"question": "é"}, "obs"),
        *metrics_triples(i1, GRAPH_RETRIEVAL, model="m", in_token=3, latency_ms=7.25),
        *agent_final_triples(uris.agent_final_uri(session), i1, "A"),
    ]
    batch = Triples(metadata=Metadata(id=session), triples=built)
    again = decode(Triples, encode(batch))
    assert again.triples == built
    assert encode(again) == encode(batch)
    assert [t.model_dump() for t in again.triples] == [t.model_dump() for t in built]


def test_a_bad_parent_iri_is_still_refused() -> None:
    with pytest.raises(ValueError, match="IRI"):
        agent_iteration_triples("urn:x:a/i1", "not an iri", "t", "kq", {}, "obs")


def test_activity_uris_are_the_references_and_derived() -> None:
    """An extraction activity is named as the reference names one, by a UUID derived from the
    entity it read and its stage: the same extraction, the same URI; an old one is known."""
    chunk = "urn:trustgraph:doc:abc123/p1/c0"
    extract = uris.activity_uri(chunk, "extract")
    assert extract == uris.activity_uri(chunk, "extract") != uris.activity_uri(chunk, "chunk")
    assert extract == "https://trustgraph.ai/activity/0dd1503c-5710-511d-b786-43c3b18fc900"
    assert uris.is_activity_uri(extract) and uris.is_activity_uri(f"{chunk}/activity/extract")
    # a document named by a URI of its own with "/activity/" in its path is no activity
    assert not uris.is_activity_uri("https://example.org/activity/report/p1")
