"""The explain service: trace listing, assembled traces and document hierarchies.

The store assembles these views server-side so that a client needs one round trip
whatever the size of a trace. The CLI renders them as text or dumps them as JSON
(their field names are the stable JSON keys).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base import bounds
from trustgraph_base.rdf.terms import Term
from trustgraph_base.schema.core import Message, Response, Scoped, bounded

TraceType = Literal["agent", "graph-rag", "document-rag"]
TraceStatus = Literal["complete", "in-progress", "failed", "interrupted"]
# What a client may ask of the explain service through the gateway (trustgraph_flow/gateway/
# edge.py), and what only the librarian asks (on remove-document).
ExplainClientOperation = Literal[
    "list-traces",
    "get-trace",
    "delete-trace",
    "document-hierarchy",
    "delete-collection",
    "source-usage",
    "purge-traces",
    "diff-traces",
    "export-trace",
    "list-collections",
]
ExplainInternalOperation = Literal["delete-document"]


class TraceSummary(Message):
    """One row of the trace list."""

    id: str
    type: TraceType
    question: str
    time: str  # xsd:dateTime lexical form
    status: TraceStatus = "complete"


class SourceRef(Message):
    """Where a chunk came from: chunk → page (if any) → document."""

    chunk: str
    chunk_index: int | None = None
    page: str | None = None
    page_number: int | None = None
    document: str
    title: str | None = None
    mime_type: str | None = None


class Removal(Message):
    """A source a trace used was removed: the erasure activity (``prov:wasInvalidatedBy``)."""

    erasure: str  # urn:trustgraph:erasure:{uuid}
    time: str  # xsd:dateTime of the removal
    reason: str | None = None
    document: str | None = None  # the document removed


class EdgeView(Message):
    """A knowledge edge ``<< s p o >>``; for a GraphRAG focus edge, with its reasoning."""

    uri: str | None = None
    s: Term
    p: Term
    o: Term
    s_label: str | None = None
    p_label: str | None = None
    o_label: str | None = None
    reasoning: str | None = None
    cited: bool = False  # a focus edge the answer cites (tg:cites on the synthesis)
    sources: list[SourceRef] = []
    removed: list[Removal] = []  # a focus edge whose source document was removed since


class ChunkView(Message):
    """A chunk selected by DocumentRAG, with its source when provenance was asked for."""

    uri: str
    score: float | None = None  # similarity to the question (None in traces from before scores)
    cited: bool = False  # a selected chunk the answer cites (tg:cites on the synthesis)
    sources: list[SourceRef] = []
    removed: list[Removal] = []  # the chunk's document was removed since


class StageMetrics(Message):
    """Per-stage figures recorded as extra predicates (tg:model, tg:inToken, …)."""

    model: str | None = None
    in_token: int | None = None
    out_token: int | None = None
    latency_ms: float | None = None


class AgentStepView(Message):
    """One agent iteration: thought, action, arguments, observation, and any sub-traces it ran."""

    uri: str
    index: int
    thought: str = ""
    action: str = ""
    arguments: str = ""  # JSON text, as stored
    observation: str | None = None  # None: not yet known (trace in progress)
    subtraces: list[TraceView] = []


class TraceView(Message):
    """A whole trace, assembled from ``urn:graph:retrieval`` (and ``urn:graph:source``)."""

    id: str
    type: TraceType
    question: str
    time: str
    status: TraceStatus
    error: str | None = None
    parent: str | None = None  # the analysis this sub-trace was called from
    # agent
    steps: list[AgentStepView] = []
    answer: str | None = None  # agent conclusion (tg:answer) or RAG synthesis (tg:content)
    # GraphRAG / DocumentRAG
    exploration: str | None = None
    edge_count: int | None = None
    chunk_count: int | None = None
    chunks: list[ChunkView] = []
    focus: str | None = None
    edges: list[EdgeView] = []
    synthesis: str | None = None
    metrics: dict[str, StageMetrics] = {}  # stage name → figures


AgentStepView.model_rebuild()


class ChunkNode(Message):
    """A chunk in a document hierarchy, with the edges extracted from it."""

    uri: str
    index: int
    char_offset: int
    char_length: int
    edges: list[EdgeView] = []
    content: str | None = None
    used_by: int | None = None  # top-level traces whose answer rests on this chunk


class PageNode(Message):
    uri: str
    number: int
    chunks: list[ChunkNode] = []
    content: str | None = None
    used_by: int | None = None  # top-level traces whose answer rests on this page


class DocumentView(Message):
    """Document → pages → chunks → edges (plain-text documents have chunks directly)."""

    id: str
    title: str | None = None
    mime_type: str | None = None
    pages: list[PageNode] = []
    chunks: list[ChunkNode] = []


class UsagePath(Message):
    """How a trace reaches the source: a focus edge or a selected chunk of (a sub-trace of) it."""

    kind: Literal["edge", "chunk"]
    trace: str  # the (sub-)trace whose entity holds the link
    entity: str  # that entity: a focus edge ``…/focus/e{n}`` or an exploration
    chunk: str | None = None  # the chunk (within the asked source) the link goes through
    edge: EdgeView | None = None  # for an edge link: the edge
    cited: bool = False  # the answer cites this edge or chunk (not only selected it)


class UsageTrace(Message):
    """A top-level trace whose answer rests on the source, with every path that links them."""

    trace: TraceSummary
    paths: list[UsagePath] = []


class SourceUsage(Message):
    """Reverse lineage of a document, page, chunk or edge: the answers that used it, newest first."""

    source: str  # the URI, or the edge as N-Triples text
    kind: Literal["document", "page", "chunk", "edge"]
    traces: list[UsageTrace] = []


class RemovalReport(Message):
    """What removing a document did to the traces that used it."""

    document: str
    erasure: str | None = (
        None  # the erasure activity marking kept traces (None: nothing used it, or purged)
    )
    marked: list[str] = []  # top-level traces kept and marked
    purged: list[str] = []  # top-level traces deleted (``purge_traces``)
    edges_removed: int = 0  # knowledge edges no other document supported


class EvidenceItem(Message):
    """One piece of evidence in a diff: an edge (its N-Triples text), chunk, page or document URI."""

    id: str
    label: str | None = None  # edge "s → p → o" with labels; document title; page/chunk number
    cited_by: list[Literal["a", "b"]] = []  # the answers that cite it (tg:cited…, when recorded)


class EvidenceLevel(Message):
    both: list[EvidenceItem] = []
    only_a: list[EvidenceItem] = []
    only_b: list[EvidenceItem] = []


class TraceDiff(Message):
    """Two answers and the evidence they rest on, compared at each level."""

    a: TraceSummary
    b: TraceSummary
    answer_a: str | None = None
    answer_b: str | None = None
    edges: EvidenceLevel = EvidenceLevel()
    chunks: EvidenceLevel = EvidenceLevel()
    pages: EvidenceLevel = EvidenceLevel()
    documents: EvidenceLevel = EvidenceLevel()


class ExplainRequest(Scoped):
    """Operations on traces and hierarchies; ``id`` is a trace or document URI.

    ``list-traces`` pages with ``cursor`` (the previous reply's) and narrows with
    ``search`` (question text), ``type``, ``status`` and ``since``/``until``
    (xsd:dateTime, inclusive/exclusive). ``get-trace`` with ``step_limit`` returns an
    agent's steps ``step_offset`` to ``step_offset + step_limit`` only.
    """

    operation: Literal[ExplainClientOperation, ExplainInternalOperation]
    id: str = ""
    limit: int = bounded(bounds.TRACE_LIMIT)
    include_provenance: bool = False
    # purge-traces: top-level traces (with their sub-traces) started longer ago than this
    older_than: float | None = Field(default=None, ge=0)  # seconds
    dry_run: bool = False  # only say which traces would go
    # diff-traces: ``id`` is trace A, ``other`` trace B
    other: str = ""
    # export-trace: the trace and its source chain in this format (docs/lineage.md)
    format: Literal["trig", "turtle", "jsonld", "provn", "provjson"] = "trig"
    # delete-document
    purge_traces: bool = False  # delete the traces that used it instead of marking them
    reason: str = Field(default="", max_length=2000)
    # list-traces (and get-trace's step window)
    cursor: str | None = Field(default=None, max_length=2000)
    search: str | None = Field(default=None, max_length=500)
    type: TraceType | None = None
    status: TraceStatus | None = None
    since: str | None = Field(default=None, max_length=64)
    until: str | None = Field(default=None, max_length=64)
    step_offset: int | None = Field(default=None, ge=0)
    step_limit: int | None = Field(default=None, ge=1, le=10_000)
    streaming: bool = False  # get-trace: the steps in replies of step_limit steps


class ExplainResponse(Response):
    traces: list[TraceSummary] = []
    cursor: str | None = None  # list-traces: pass back for the next page; None on the last
    step_total: int | None = None  # get-trace with step_limit: how many steps the trace has
    trace: TraceView | None = None
    document: DocumentView | None = None
    usage: SourceUsage | None = None
    removal: RemovalReport | None = None
    deleted: list[
        TraceSummary
    ] = []  # delete-trace / purge-traces: the top-level traces removed (at most ``limit``)
    diff: TraceDiff | None = None
    export: str = ""  # export-trace: the document text
    media_type: str = ""  # its media type (application/trig, text/turtle, …)
    count: int = 0  # purge-traces: how many top-level traces were (or, dry run, would be) removed
    collections: list[str] = []  # list-collections: the user's collections holding a store
