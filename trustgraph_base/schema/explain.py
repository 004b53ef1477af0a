"""The explain service's request and response: trace listing, assembled traces, lineage.

The views it answers are in ``schema/trace.py`` (traces) and ``schema/lineage.py``
(hierarchies, source usage, removals, diffs); they are re-exported here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base import bounds
from trustgraph_base.schema.core import Message, Response, Scoped, bounded
from trustgraph_base.schema.integrity import Verification
from trustgraph_base.schema.lineage import (
    ChunkNode,
    DocumentView,
    EvidenceItem,
    EvidenceLevel,
    PageNode,
    RemovalReport,
    SourceUsage,
    TraceDiff,
    UsagePath,
    UsageTrace,
)
from trustgraph_base.schema.trace import (
    AgentCallView,
    AgentStepView,
    AnswerVerdict,
    ChunkView,
    ClaimView,
    EdgeView,
    Removal,
    SourceRef,
    SpanRef,
    StageMetrics,
    TraceStatus,
    TraceSummary,
    TraceType,
    TraceView,
    VerificationView,
)

__all__ = [
    "AgentCallView",
    "AgentStepView",
    "AnswerVerdict",
    "ChunkNode",
    "ChunkView",
    "ClaimView",
    "DocumentView",
    "EdgeView",
    "EvidenceItem",
    "EvidenceLevel",
    "ExplainClientOperation",
    "ExplainInternalOperation",
    "ExplainRequest",
    "ExplainResponse",
    "FaithfulnessBucket",
    "PageNode",
    "Removal",
    "RemovalReport",
    "SourceRef",
    "SourceUsage",
    "SpanRef",
    "StageMetrics",
    "TraceDiff",
    "TraceStatus",
    "TraceSummary",
    "TraceType",
    "TraceView",
    "UsagePath",
    "UsageTrace",
    "VerificationView",
]

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
    "verify-trace",
    "verify-log",
    "audit-log",
    "export-document",
    "seal-bundle",
    "faithfulness",
]
ExplainInternalOperation = Literal["delete-document", "seal-document"]


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
    # source-usage of a page (or page-less document): only what lies on characters
    # char_start…char_end of its text (docs/lineage.md)
    char_start: int | None = Field(default=None, ge=0)
    char_end: int | None = Field(default=None, ge=0)
    # export-trace: the trace and its source chain in this format (docs/lineage.md)
    format: Literal["trig", "turtle", "jsonld", "provn", "provjson"] = "trig"
    rdf11: bool = False  # trig/turtle: each triple term an rdf:Statement node (RDF 1.1 readers)
    # delete-document
    purge_traces: bool = False  # delete the traces that used it instead of marking them
    reason: str = Field(default="", max_length=2000)
    upto: int | None = Field(default=None, ge=0)  # and its loads up to this, still in flight
    # list-traces (and get-trace's step window)
    cursor: str | None = Field(default=None, max_length=2000)
    search: str | None = Field(default=None, max_length=500)
    type: TraceType | None = None
    status: TraceStatus | None = None
    verdict: AnswerVerdict | None = None  # list-traces: only traces whose answer has it
    by: Literal["day", "hour"] = "day"  # faithfulness: the period of each bucket
    since: str | None = Field(default=None, max_length=64)
    until: str | None = Field(default=None, max_length=64)
    step_offset: int | None = Field(default=None, ge=0)
    step_limit: int | None = Field(default=None, ge=1, le=10_000)
    streaming: bool = False  # get-trace: the steps in replies of step_limit steps
    # a read of one trace: seconds at most to wait for one not stored yet (None: the store's
    # trace_wait, which also bounds it; 0: at once, as a probe of other collections asks)
    wait: float | None = Field(default=None, ge=0)
    # document-hierarchy: only chunks chunk_offset… (at most chunk_limit) of the document's
    # chunks in order (pages by number, each page's by index, then page-less ones by index)
    chunk_offset: int = Field(default=0, ge=0)
    chunk_limit: int | None = bounded(bounds.CHUNK_WINDOW)


class FaithfulnessBucket(Message):
    """One period of a collection's answers (``faithfulness``): how many were verified, their
    claims, the claims supported and their share (None: no claims), the answers withheld."""

    period: str  # "YYYY-MM-DD" (by day) or "YYYY-MM-DDTHH" (by hour), UTC
    answers: int = 0
    claims: int = 0
    supported: int = 0
    share: float | None = None
    abstained: int = 0


class ExplainResponse(Response):
    traces: list[TraceSummary] = []
    faithfulness: list[FaithfulnessBucket] = []
    cursor: str | None = None  # list-traces: pass back for the next page; None on the last
    step_total: int | None = None  # get-trace with step_limit: how many steps the trace has
    chunk_total: int | None = None  # document-hierarchy: how many chunks the document has
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
    unreachable: list[str] = []  # list-collections: a line naming each store server (shard) that
    # did not answer: ``collections`` lacks its collections
    verification: Verification | None = None  # verify-trace / verify-log
