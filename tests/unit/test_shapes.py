"""The SHACL shapes (docs/shapes/) accept SPEC's traces and name what is wrong in a broken one."""

from __future__ import annotations

import pytest
import rdflib

from trustgraph_cli.shapes import Violation, validate

PREFIXES = """
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix dc: <http://purl.org/dc/elements/1.1/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix tg: <https://trustgraph.ai/ns/> .
"""
Q = "urn:trustgraph:question:q1"
DOC = "urn:trustgraph:doc:d1"
SOURCE = f"""
<{DOC}> a prov:Entity, tg:Document ; dc:title "D" ; tg:mimeType "application/pdf" .
<{DOC}/activity/decode> a prov:Activity ; prov:wasAssociatedWith <urn:trustgraph:component:decoder> .
<urn:trustgraph:component:decoder> a prov:SoftwareAgent .
<{DOC}/p1> a prov:Entity, tg:Page ; prov:wasDerivedFrom <{DOC}> ; tg:pageNumber "1" ;
    prov:wasGeneratedBy <{DOC}/activity/decode> .
<{DOC}/p1/c0> a prov:Entity, tg:Chunk ; prov:wasDerivedFrom <{DOC}/p1> ; tg:chunkIndex "0" ;
    tg:charOffset "0" ; tg:charLength "120" .
<{DOC}/p1/c0/subgraph> a prov:Entity, tg:Subgraph ; prov:wasDerivedFrom <{DOC}/p1/c0> ;
    tg:contains <urn:trustgraph:statement:1> .
<urn:trustgraph:statement:1> a rdf:Statement ; rdf:subject <urn:e:fox> ;
    rdf:predicate <urn:r:jumps> ; rdf:object <urn:e:dog> .
"""
GRAPH_RAG = f"""
<{Q}> a prov:Activity, tg:Question, tg:GraphRagQuestion ; tg:query "What does the fox do?" ;
    prov:startedAtTime "2026-01-01T10:00:00.000Z"^^xsd:dateTime .
<{Q}/exploration> a prov:Entity, tg:Exploration ; prov:wasGeneratedBy <{Q}> ; tg:edgeCount "7" .
<{Q}/focus> a prov:Entity, tg:Focus ; prov:wasDerivedFrom <{Q}/exploration> ;
    tg:selectedEdge <{Q}/focus/e1> .
<{Q}/focus/e1> a tg:EdgeSelection ; tg:edge <urn:trustgraph:statement:1> ; tg:reasoning "fox" .
<{Q}/synthesis/claim1> a prov:Entity, tg:Claim ; prov:wasDerivedFrom <{Q}/synthesis> ;
    tg:content "It jumps over the dog." ; tg:charOffset "0" ; tg:charLength "22" ; tg:cites <{Q}/focus/e1> .
<{Q}/synthesis> a prov:Entity, tg:Synthesis, tg:Answer ; prov:wasDerivedFrom <{Q}/focus> ;
    tg:content "It jumps over the dog." ; tg:cites <{Q}/focus/e1> ; tg:inToken "12" ;
    tg:llmDurationMs "4" .
"""
VERIFIED = f"""
<{Q}/synthesis/verification> a prov:Activity, tg:Verification ; tg:method "heuristic" ;
    tg:llmModel "offline" ; tg:answerVerdict "unsupported" ; tg:reason "no claim is supported" ;
    tg:relevance "0"^^xsd:decimal ;
    prov:startedAtTime "2026-01-01T10:00:01.000Z"^^xsd:dateTime ;
    prov:endedAtTime "2026-01-01T10:00:01.002Z"^^xsd:dateTime ;
    prov:used <{Q}/synthesis/claim1>, <{Q}/focus/e1> ;
    prov:wasAssociatedWith <urn:trustgraph:component:verifier> .
<urn:trustgraph:component:verifier> a prov:SoftwareAgent .
<{Q}/synthesis/claim1/assessment> a prov:Entity, tg:Assessment ;
    prov:wasGeneratedBy <{Q}/synthesis/verification> ; prov:wasDerivedFrom <{Q}/synthesis/claim1> ;
    tg:verdict "not-supported" ; tg:score "0.5"^^xsd:decimal ; tg:reason "dog not in it" .
<{Q}/synthesis/abstention> a prov:Entity, tg:Abstention ;
    prov:wasGeneratedBy <{Q}/synthesis/verification> ; prov:wasDerivedFrom <{Q}/synthesis> ;
    tg:content "The documents do not say." ; tg:reason "no claim is supported" .
"""
P = f"{Q}/prompt/verify-claims/0123456789abcdef"
JUDGED = VERIFIED.replace('tg:method "heuristic"', 'tg:method "llm-judge"') + (
    f"""<{Q}/synthesis/verification> tg:prompt <{P}> .
<{P}> a tg:Prompt ; tg:promptId "verify-claims" ; tg:promptSystem "Judge." ;
    tg:promptTemplate "{{{{question}}}} {{{{claims}}}}" ;
    tg:promptDigest "sha256:{"0123456789abcdef" * 4}" .
"""
)
A = "urn:trustgraph:agent:a1"
AGENT = f"""
<{A}> a prov:Activity, tg:Question, tg:AgentQuestion ; tg:query "Why?" ;
    prov:startedAtTime "2026-01-01T10:00:00.000Z"^^xsd:dateTime .
<{A}/i1> a prov:Entity, tg:Analysis ; prov:wasDerivedFrom <{A}> ; tg:thought "Look it up." ;
    tg:action "knowledge-query" ; tg:arguments "{{}}" ; tg:observation "It jumps." .
<{A}/i1/observation> a prov:Entity, tg:Observation ; prov:wasDerivedFrom <{A}/i1> .
<{A}/final> a prov:Entity, tg:Conclusion ; prov:wasDerivedFrom <{A}/i1> ; tg:answer "It jumps." .
"""
D = "urn:trustgraph:docrag:d1"
DOC_RAG = f"""
<{D}> a prov:Activity, tg:Question, tg:DocRagQuestion ; tg:query "Where?" ;
    prov:startedAtTime "2026-01-01T10:00:00.000Z"^^xsd:dateTime .
<{D}/exploration> a prov:Entity, tg:Exploration ; prov:wasGeneratedBy <{D}> ; tg:chunkCount "1" ;
    tg:selectedChunk <{DOC}/p1/c0> .
<{D}/exploration/c1> tg:rank 1 ; tg:score "0.5" .
<{D}/synthesis> a prov:Entity, tg:Synthesis ; prov:wasDerivedFrom <{D}/exploration> ;
    tg:content "In Paris." .
<{D}/synthesis/claim1> a prov:Entity, tg:Claim ; prov:wasDerivedFrom <{D}/synthesis> ;
    tg:content "In Paris." ; tg:charOffset "0" ; tg:charLength "9" ; tg:cites <{DOC}/p1/c0> .
<{D}/synthesis/claim1/in1> a prov:Entity, tg:ClaimSpan ;
    prov:wasDerivedFrom <{D}/synthesis/claim1> ; tg:inChunk <{DOC}/p1/c0> ;
    tg:quote "In Paris." ; tg:charOffset "12" ; tg:charLength "9" .
"""


def check(*parts: str) -> list[Violation]:
    graph = rdflib.Graph()
    graph.parse(data=PREFIXES + "".join(parts), format="turtle")
    return validate(graph)


def test_each_trace_type_with_its_source_chain_conforms() -> None:
    assert check(SOURCE, GRAPH_RAG) == []
    assert check(SOURCE, AGENT) == []
    assert check(SOURCE, DOC_RAG) == []
    assert check(SOURCE, GRAPH_RAG, VERIFIED) == []
    assert check(SOURCE, GRAPH_RAG, JUDGED) == []


def test_an_agent_graph_with_the_references_facts_conforms() -> None:
    # The conclusion derives from what the answering step used: an observation and the question.
    graph = AGENT.replace(
        f"prov:wasDerivedFrom <{A}/i1> ; tg:answer",
        f'prov:wasDerivedFrom <{A}/i1/observation>, <{A}> ; tg:terminationReason "final-answer" ; '
        "tg:answer",
    ).replace('tg:thought "Look it up." ;', 'tg:stepNumber "1" ; tg:toolCandidate "kq", "dq" ;')
    # A step that called two tools at once: a call and its Observation (beside SPEC's analysis).
    graph += f"""<{A}/i1> a tg:ToolUse .
<{A}/i1/c1> a prov:Entity, tg:ToolUse ; prov:wasDerivedFrom <{A}/i1> ; tg:action "kq" .
<{A}/i1/c1/observation> a prov:Entity, tg:Observation ;
    prov:wasDerivedFrom <{A}/i1/c1>, <{A}/i1> ; tg:observation "It jumps." ."""
    assert check(SOURCE, graph) == []


def test_a_running_trace_and_a_failed_one_conform() -> None:
    running = AGENT.split(f"<{A}/i1>")[0]
    assert check(running) == []
    failed = GRAPH_RAG.split(f"<{Q}/focus>")[0] + f'<{Q}> tg:error "timed out" .'
    assert check(failed) == []
    assert check(FAILED_AGENT) == []  # as written before tg:errorType
    assert check(FAILED_AGENT + f'<{A}/final> tg:errorType "llm-error" .') == []


# An agent run whose LLM failed after its first step: the question's tg:error, and a
# conclusion with no answer, terminationReason "error" and the reason (docs/provenance.md).
FAILED_AGENT = AGENT.replace(
    'tg:answer "It jumps." .',
    'tg:terminationReason "error" ; tg:error "the LLM failed" .\n'
    f'<{A}> tg:error "the LLM failed" .',
)


BROKEN = [
    ("no query", GRAPH_RAG.replace('tg:query "What does the fox do?" ;', ""), Q, "query"),
    (
        "time as a plain string",
        GRAPH_RAG.replace('"2026-01-01T10:00:00.000Z"^^xsd:dateTime', '"yesterday"'),
        Q,
        "startedAtTime",
    ),
    ("two subtypes", GRAPH_RAG + f"<{Q}> a tg:AgentQuestion .", Q, None),
    ("not an activity", GRAPH_RAG.replace("prov:Activity, ", ""), Q, "type"),
    (
        "edge not quoted",
        GRAPH_RAG.replace("tg:edge <urn:trustgraph:statement:1>", "tg:edge <urn:e:x>"),
        f"{Q}/focus/e1",
        "edge",
    ),
    (
        "synthesis without answer",
        GRAPH_RAG.replace('tg:content "It jumps over the dog." ;', ""),
        f"{Q}/synthesis",
        "content",
    ),
    ("two answers", AGENT + f'<{A}/final> tg:answer "Another." .', f"{A}/final", "answer"),
    (
        "conclusion from nowhere",
        AGENT.replace(f"prov:wasDerivedFrom <{A}/i1> ; tg:answer", "tg:answer"),
        f"{A}/final",
        "wasDerivedFrom",
    ),
    (
        "unknown termination reason",
        AGENT + f'<{A}/final> tg:terminationReason "bored" .',
        f"{A}/final",
        "terminationReason",
    ),
    (
        "conclusion with no answer",
        AGENT.replace('tg:answer "It jumps." .', 'tg:terminationReason "final-answer" .'),
        f"{A}/final",
        None,
    ),
    (
        "error conclusion with an answer",
        FAILED_AGENT + f'<{A}/final> tg:answer "It jumps." .',
        f"{A}/final",
        None,
    ),
    (
        "error conclusion without why",
        FAILED_AGENT.replace(' ; tg:error "the LLM failed" .', " ."),
        f"{A}/final",
        None,
    ),
    (
        "two error types",
        FAILED_AGENT + f'<{A}/final> tg:errorType "llm-error", "timeout" .',
        f"{A}/final",
        "errorType",
    ),
    ("step number 0", AGENT + f'<{A}/i1> tg:stepNumber "0" .', f"{A}/i1", "stepNumber"),
    (
        "negative tokens",
        GRAPH_RAG.replace('tg:inToken "12"', 'tg:inToken "-3"'),
        f"{Q}/synthesis",
        "inToken",
    ),
    (
        "wrong URI scheme",
        GRAPH_RAG.replace(Q, "urn:trustgraph:docrag:q1"),
        "urn:trustgraph:docrag:q1",
        None,
    ),
    ("docrag count missing", DOC_RAG.replace('tg:chunkCount "1" ;', ""), f"{D}/exploration", None),
    (
        "claim span without its place",
        DOC_RAG.replace('tg:charOffset "12" ; ', ""),
        f"{D}/synthesis/claim1/in1",
        "charOffset",
    ),
    (
        "claim from an exploration",
        GRAPH_RAG.replace(
            f"<{Q}/synthesis/claim1> a prov:Entity, tg:Claim ; prov:wasDerivedFrom <{Q}/synthesis>",
            f"<{Q}/synthesis/claim1> a prov:Entity, tg:Claim ; prov:wasDerivedFrom <{Q}/exploration>",
        ),
        f"{Q}/synthesis/claim1",
        "wasDerivedFrom",
    ),
    (
        "verdict not in the vocabulary",
        GRAPH_RAG + VERIFIED.replace('"not-supported"', '"probably"'),
        f"{Q}/synthesis/claim1/assessment",
        "verdict",
    ),
    (
        "assessment of no claim",
        GRAPH_RAG
        + VERIFIED.replace(
            f"prov:wasDerivedFrom <{Q}/synthesis/claim1> ;", f"prov:wasDerivedFrom <{Q}/focus> ;"
        ),
        f"{Q}/synthesis/claim1/assessment",
        "wasDerivedFrom",
    ),
    (
        "score past 1",
        GRAPH_RAG + VERIFIED.replace('tg:score "0.5"', 'tg:score "1.5"'),
        f"{Q}/synthesis/claim1/assessment",
        "score",
    ),
    (
        "verification without method",
        GRAPH_RAG
        + VERIFIED.replace(
            'tg:method "heuristic" ;\n    tg:llmModel "offline" ; tg:answerVerdict',
            "tg:answerVerdict",
        ),
        f"{Q}/synthesis/verification",
        "method",
    ),
    (
        "heuristic naming a prompt",
        GRAPH_RAG + JUDGED.replace('"llm-judge"', '"heuristic"'),
        f"{Q}/synthesis/verification",
        None,
    ),
    (
        "verification naming what is no prompt",
        GRAPH_RAG + JUDGED.replace(f"<{P}> a tg:Prompt ;", f"<{P}>"),
        f"{Q}/synthesis/verification",
        "prompt",
    ),
    (
        "abstention without its answer",
        GRAPH_RAG + VERIFIED.replace('tg:content "The documents do not say." ;', ""),
        f"{Q}/synthesis/abstention",
        "content",
    ),
]
SOURCE_BROKEN = [
    (
        "chunk without offset",
        SOURCE.replace('tg:charOffset "0" ;', ""),
        f"{DOC}/p1/c0",
        "charOffset",
    ),
    (
        "page number 0",
        SOURCE.replace('tg:pageNumber "1"', 'tg:pageNumber "0"'),
        f"{DOC}/p1",
        "pageNumber",
    ),
    (
        "chunk of two pages",
        SOURCE + f"<{DOC}/p1/c0> prov:wasDerivedFrom <{DOC}/p2> . <{DOC}/p2> a tg:Page .",
        f"{DOC}/p1/c0",
        "wasDerivedFrom",
    ),
    (
        "activity without agent",
        SOURCE.replace(
            "prov:wasAssociatedWith <urn:trustgraph:component:decoder>",
            'prov:startedAtTime "2026-01-01T00:00:00Z"^^xsd:dateTime',
        ),
        f"{DOC}/activity/decode",
        None,
    ),
    (
        "statement without object",
        SOURCE.replace("rdf:object <urn:e:dog>", "rdf:object <urn:e:dog>, <urn:e:cat>"),
        f"{DOC}/p1/c0/subgraph",
        "contains",
    ),
]


CASES = [(why, (SOURCE, data), focus, path) for why, data, focus, path in BROKEN] + [
    (why, (data, GRAPH_RAG), focus, path) for why, data, focus, path in SOURCE_BROKEN
]


@pytest.mark.parametrize(("why", "parts", "focus", "path"), CASES, ids=[c[0] for c in CASES])
def test_a_broken_trace_is_named_where_it_breaks(
    why: str, parts: tuple[str, str], focus: str, path: str | None
) -> None:
    found = check(*parts)
    hits = [
        v for v in found if v.focus == focus and (path is None or (v.path or "").endswith(path))
    ]
    assert hits, (why, [v.line() for v in found])
    assert all(v.message for v in hits)
