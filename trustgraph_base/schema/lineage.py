"""Lineage views the explain service answers: document hierarchies, source usage, removals, diffs.

See docs/lineage.md for the model behind them.
"""

from __future__ import annotations

from typing import Literal

from trustgraph_base.schema.core import Message
from trustgraph_base.schema.trace import EdgeView, TraceSummary


class ChunkNode(Message):
    """A chunk in a document hierarchy, with the edges extracted from it."""

    uri: str
    index: int
    char_offset: int
    char_length: int
    edges: list[EdgeView] = []
    content: str | None = None
    used_by: int | None = None  # top-level traces whose answer rests on this chunk
    cited_by: int | None = None  # of those, the ones whose answer cites it (not only retrieved)


class PageNode(Message):
    uri: str
    number: int
    chunks: list[ChunkNode] = []
    content: str | None = None
    used_by: int | None = None  # top-level traces whose answer rests on this page
    cited_by: int | None = None  # of those, the ones whose answer cites it (not only retrieved)


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
    # False: found by an agent step the answer does not depend on (a dead end: SPEC.md, the
    # agent graph), so not evidence the answer used
    used: bool = True


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
    prompts: EvidenceLevel = EvidenceLevel()  # the prompts the LLM steps were made from
