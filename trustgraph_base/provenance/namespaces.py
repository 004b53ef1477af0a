"""The closed vocabulary: every IRI the system writes, declared once.

A term is an attribute of its namespace class, so a misspelt term is an
``AttributeError`` at import (and a mypy error), never a silent new IRI in the store.
"""

from __future__ import annotations

from typing import Final

from trustgraph_base.provenance.document_uris import COMPONENT_PREFIX
from trustgraph_base.rdf.terms import IriTerm

TG_NS: Final = "https://trustgraph.ai/ns/"
PROV_NS: Final = "http://www.w3.org/ns/prov#"
RDF_NS: Final = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_NS: Final = "http://www.w3.org/2000/01/rdf-schema#"
DC_NS: Final = "http://purl.org/dc/elements/1.1/"
XSD_NS: Final = "http://www.w3.org/2001/XMLSchema#"

GRAPH_SOURCE: Final = "urn:graph:source"
GRAPH_RETRIEVAL: Final = "urn:graph:retrieval"


def _t(ns: str, local: str) -> IriTerm:
    return IriTerm(i=ns + local)


class TG:
    """``tg:`` terms (https://trustgraph.ai/ns/)."""

    # classes
    Question: Final = _t(TG_NS, "Question")
    GraphRagQuestion: Final = _t(TG_NS, "GraphRagQuestion")
    DocRagQuestion: Final = _t(TG_NS, "DocRagQuestion")
    AgentQuestion: Final = _t(TG_NS, "AgentQuestion")
    Analysis: Final = _t(TG_NS, "Analysis")
    Conclusion: Final = _t(TG_NS, "Conclusion")
    Exploration: Final = _t(TG_NS, "Exploration")
    Focus: Final = _t(TG_NS, "Focus")
    Synthesis: Final = _t(TG_NS, "Synthesis")
    Document: Final = _t(TG_NS, "Document")
    Page: Final = _t(TG_NS, "Page")
    Chunk: Final = _t(TG_NS, "Chunk")
    Subgraph: Final = _t(TG_NS, "Subgraph")
    # what TrustGraph's tools also read, written beside the SPEC triples (docs/provenance.md)
    Grounding: Final = _t(TG_NS, "Grounding")
    Answer: Final = _t(TG_NS, "Answer")
    ToolUse: Final = _t(TG_NS, "ToolUse")
    Observation: Final = _t(TG_NS, "Observation")
    EdgeSelection: Final = _t(TG_NS, "EdgeSelection")
    ChunkSelection: Final = _t(TG_NS, "ChunkSelection")  # a ranked chunk (docs/conformance.md)
    KnowledgeCore: Final = _t(TG_NS, "KnowledgeCore")  # what a loaded core holds (cores.py)
    concept: Final = _t(TG_NS, "concept")
    document: Final = _t(TG_NS, "document")
    # query-time predicates
    query: Final = _t(TG_NS, "query")
    thought: Final = _t(TG_NS, "thought")
    action: Final = _t(TG_NS, "action")
    arguments: Final = _t(TG_NS, "arguments")
    observation: Final = _t(TG_NS, "observation")
    answer: Final = _t(TG_NS, "answer")
    chunkCount: Final = _t(TG_NS, "chunkCount")
    selectedChunk: Final = _t(TG_NS, "selectedChunk")
    edgeCount: Final = _t(TG_NS, "edgeCount")
    selectedEdge: Final = _t(TG_NS, "selectedEdge")
    edge: Final = _t(TG_NS, "edge")
    reasoning: Final = _t(TG_NS, "reasoning")
    content: Final = _t(TG_NS, "content")
    # extraction-time predicates
    mimeType: Final = _t(TG_NS, "mimeType")
    pageNumber: Final = _t(TG_NS, "pageNumber")
    chunkIndex: Final = _t(TG_NS, "chunkIndex")
    charOffset: Final = _t(TG_NS, "charOffset")
    charLength: Final = _t(TG_NS, "charLength")
    contains: Final = _t(TG_NS, "contains")
    # stage metrics: the reference's names for an LLM call's model and duration (whole ms)
    # and for an embeddings model; tokens; tg:latencyMs (ours) times a stage that made no
    # LLM call (an exploration's embedding and search)
    llmModel: Final = _t(TG_NS, "llmModel")
    llmDurationMs: Final = _t(TG_NS, "llmDurationMs")
    embeddingModel: Final = _t(TG_NS, "embeddingModel")
    inToken: Final = _t(TG_NS, "inToken")
    outToken: Final = _t(TG_NS, "outToken")
    latencyMs: Final = _t(TG_NS, "latencyMs")
    model: Final = _t(TG_NS, "model")  # before tg:llmModel / tg:embeddingModel: migrated at start
    # extensions declared here (SPEC.md leaves them to us): settings, failure
    chunkSize: Final = _t(TG_NS, "chunkSize")
    chunkOverlap: Final = _t(TG_NS, "chunkOverlap")
    componentVersion: Final = _t(TG_NS, "componentVersion")  # the reference's, on an activity
    error: Final = _t(TG_NS, "error")
    interrupted: Final = _t(TG_NS, "interrupted")  # a run its process died in (the reason)
    # OpenTelemetry (docs/otel.md): an imported span's identity and kind, on its entity —
    # one JSON literal (``otelSpan``); traces imported before it have a triple per field
    otelTraceId: Final = _t(TG_NS, "otelTraceId")
    otelSpan: Final = _t(TG_NS, "otelSpan")
    otelSpanId: Final = _t(TG_NS, "otelSpanId")
    otelParentSpanId: Final = _t(TG_NS, "otelParentSpanId")
    otelName: Final = _t(TG_NS, "otelName")
    otelKind: Final = _t(TG_NS, "otelKind")
    otelStartNs: Final = _t(TG_NS, "otelStartNs")
    otelEndNs: Final = _t(TG_NS, "otelEndNs")
    # lineage governance (docs/lineage.md): removal of a source a trace used
    Erasure: Final = _t(TG_NS, "Erasure")
    reason: Final = _t(TG_NS, "reason")
    removedDocument: Final = _t(TG_NS, "removedDocument")
    removedSource: Final = _t(TG_NS, "removedSource")
    # DocumentRAG: each selected chunk's rank and similarity, on a reifier of its
    # tg:selectedChunk triple (docs/provenance.md)
    rank: Final = _t(TG_NS, "rank")
    score: Final = _t(TG_NS, "score")
    # … and, from a hybrid retrieval, its place in the vector search and its lexical score
    # (docs/provenance.md)
    vectorRank: Final = _t(TG_NS, "vectorRank")
    lexicalScore: Final = _t(TG_NS, "lexicalScore")
    # the evidence a synthesis cites: a focus edge (…/focus/e{n}) or a chunk URI,
    # beside SPEC's triples (docs/provenance.md, "Cited evidence")
    cites: Final = _t(TG_NS, "cites")
    # evidence down to the sentence (docs/provenance.md, "Where each edge was stated"):
    # a span of a chunk that states an extracted edge, with its quoted text; a page's
    # missing text layer
    Span: Final = _t(TG_NS, "Span")
    quote: Final = _t(TG_NS, "quote")
    located: Final = _t(TG_NS, "located")
    pageCharOffset: Final = _t(TG_NS, "pageCharOffset")
    textLayer: Final = _t(TG_NS, "textLayer")
    Claim: Final = _t(TG_NS, "Claim")  # a sentence of an answer, citing its evidence
    # where a claim's sentence is in a chunk it cites (DocumentRAG): the chunk, and
    # tg:charOffset/tg:charLength within it (docs/provenance.md, "Claims")
    ClaimSpan: Final = _t(TG_NS, "ClaimSpan")
    inChunk: Final = _t(TG_NS, "inChunk")
    # claim verification (docs/provenance.md, "Verification"): the activity that checked an
    # answer's claims against their evidence, one assessment per claim, the answer's verdict
    # and, when the answer was withheld, the abstention given instead
    Verification: Final = _t(TG_NS, "Verification")
    Assessment: Final = _t(TG_NS, "Assessment")
    Abstention: Final = _t(TG_NS, "Abstention")
    verdict: Final = _t(TG_NS, "verdict")
    method: Final = _t(TG_NS, "method")
    answerVerdict: Final = _t(TG_NS, "answerVerdict")
    relevance: Final = _t(TG_NS, "relevance")
    addressesQuestion: Final = _t(TG_NS, "addressesQuestion")
    # the reference's (TrustGraph 2.11.1) agent facts where SPEC.md is silent (docs/provenance.md,
    # "Agent steps as a graph"): an analysis's step number and the tools offered to it, why
    # the loop ended (on the conclusion)
    stepNumber: Final = _t(TG_NS, "stepNumber")
    toolCandidate: Final = _t(TG_NS, "toolCandidate")
    terminationReason: Final = _t(TG_NS, "terminationReason")
    # ours: a failed run's error type on its conclusion (docs/provenance.md, "A run that failed")
    errorType: Final = _t(TG_NS, "errorType")
    # the prompt an LLM step was made from (docs/provenance.md, "Which prompt")
    Prompt: Final = _t(TG_NS, "Prompt")
    prompt: Final = _t(TG_NS, "prompt")
    promptId: Final = _t(TG_NS, "promptId")
    promptDigest: Final = _t(TG_NS, "promptDigest")
    promptSystem: Final = _t(TG_NS, "promptSystem")
    promptTemplate: Final = _t(TG_NS, "promptTemplate")


class PROV:
    """``prov:`` terms (W3C PROV-O)."""

    Activity: Final = _t(PROV_NS, "Activity")
    Entity: Final = _t(PROV_NS, "Entity")
    SoftwareAgent: Final = _t(PROV_NS, "SoftwareAgent")
    Agent: Final = _t(PROV_NS, "Agent")
    wasDerivedFrom: Final = _t(PROV_NS, "wasDerivedFrom")
    wasGeneratedBy: Final = _t(PROV_NS, "wasGeneratedBy")
    wasAssociatedWith: Final = _t(PROV_NS, "wasAssociatedWith")
    startedAtTime: Final = _t(PROV_NS, "startedAtTime")
    endedAtTime: Final = _t(PROV_NS, "endedAtTime")
    wasInvalidatedBy: Final = _t(PROV_NS, "wasInvalidatedBy")
    used: Final = _t(PROV_NS, "used")


class RDF:
    type: Final = _t(RDF_NS, "type")
    reifies: Final = _t(RDF_NS, "reifies")  # RDF 1.2: a reifier names the triple it is about
    # classic reification: exports to formats without RDF 1.2 triple terms
    Statement: Final = _t(RDF_NS, "Statement")
    subject: Final = _t(RDF_NS, "subject")
    predicate: Final = _t(RDF_NS, "predicate")
    object: Final = _t(RDF_NS, "object")


class RDFS:
    label: Final = _t(RDFS_NS, "label")


class DC:
    title: Final = _t(DC_NS, "title")


class XSD:
    """Datatype IRIs (as strings, for ``LiteralTerm.dt``)."""

    dateTime: Final = XSD_NS + "dateTime"
    integer: Final = XSD_NS + "integer"
    decimal: Final = XSD_NS + "decimal"
    double: Final = XSD_NS + "double"
    string: Final = XSD_NS + "string"


PREFIXES: Final = {
    "tg": TG_NS,
    "prov": PROV_NS,
    "rdf": RDF_NS,
    "rdfs": RDFS_NS,
    "dc": DC_NS,
    "xsd": XSD_NS,
    # The software agents' namespace, declared so that the ``prov`` package can read an
    # agent named only as a relation's object (``prov:wasAssociatedWith``): it resolves such
    # an object by a declared namespace alone, and failed when it met the relation first.
    "component": COMPONENT_PREFIX,
}
