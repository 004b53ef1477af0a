"""Evidence diff: two traces' answers and the evidence each rests on, by edge, chunk, page, document.

Both traces are assembled with provenance (``explain.assemble``), whatever their type:
GraphRAG focus edges and their source chunks, DocumentRAG selected chunks, and for an
agent every sub-trace its tools ran for the steps (and calls) its answer relies on: a
dead-end step's evidence is not what the answer used (SPEC.md, the agent graph). Each side's evidence is then a set per level, and
the diff is their intersection and differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from trustgraph_base.provenance import GRAPH_RETRIEVAL, TG
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Term
from trustgraph_base.schema.explain import (
    EdgeView,
    EvidenceItem,
    EvidenceLevel,
    SourceRef,
    TraceDiff,
    TraceSummary,
    TraceView,
)
from trustgraph_flow.store.core.backend import Handle, subject_quads
from trustgraph_flow.store.core.convert import ConversionError, to_ox
from trustgraph_flow.store.core.rows import edge_key
from trustgraph_flow.store.views.explain import get_trace

LEVELS = ("edges", "chunks", "pages", "documents")


@dataclass
class Evidence:
    """Per level: evidence id → label; and the ids the answer cites."""

    levels: dict[str, dict[str, str | None]] = field(
        default_factory=lambda: {k: {} for k in LEVELS}
    )
    cited: set[str] = field(default_factory=set)


def term_text(term: Term, label: str | None) -> str:
    if label:
        return label
    if isinstance(term, IriTerm):
        return term.i
    return term.v if isinstance(term, LiteralTerm) else str(term)


def edge_id(edge: EdgeView) -> str:
    """The edge's canonical N-Triples text (the lineage index's key)."""
    try:
        return edge_key(ox.Triple(to_ox(edge.s), ox.NamedNode(edge.p.i), to_ox(edge.o)))  # type: ignore[arg-type, union-attr]
    except (ValueError, TypeError, AttributeError, ConversionError):
        return f"{term_text(edge.s, None)} {term_text(edge.p, None)} {term_text(edge.o, None)}"


def add_source(ev: Evidence, ref: SourceRef) -> None:
    ev.levels["chunks"].setdefault(
        ref.chunk, f"chunk {ref.chunk_index}" if ref.chunk_index is not None else None
    )
    if ref.page is not None:
        ev.levels["pages"].setdefault(
            ref.page, f"page {ref.page_number}" if ref.page_number is not None else None
        )
    ev.levels["documents"].setdefault(ref.document, ref.title)


def collect(view: TraceView, ev: Evidence) -> Evidence:
    """The evidence of a trace and of every sub-trace under its steps."""
    for edge in view.edges:
        key = edge_id(edge)
        ev.levels["edges"][key] = " → ".join(
            term_text(t, lab)
            for t, lab in ((edge.s, edge.s_label), (edge.p, edge.p_label), (edge.o, edge.o_label))
        )
        if getattr(edge, "cited", False):
            ev.cited.add(key)
        for ref in edge.sources:
            add_source(ev, ref)
    for chunk in view.chunks:
        ev.levels["chunks"].setdefault(chunk.uri, None)
        if getattr(chunk, "cited", False):
            ev.cited.add(chunk.uri)
        for ref in chunk.sources:
            add_source(ev, ref)
    for step in view.steps:  # an agent: only what its answer relies on (not a dead end)
        subs = [*step.subtraces, *(s for c in step.calls if c.used for s in c.subtraces)]
        for sub in subs if step.used else []:
            collect(sub, ev)
    return ev


def compare(a: Evidence, b: Evidence, level: str) -> EvidenceLevel:
    left, right = a.levels[level], b.levels[level]

    def item(key: str) -> EvidenceItem:
        cited = [side for side, ev in (("a", a), ("b", b)) if key in ev.cited]
        return EvidenceItem(id=key, label=left.get(key) or right.get(key), cited_by=cited)

    def ordered(keys: set[str]) -> list[EvidenceItem]:
        return [
            item(k) for k in sorted(keys, key=lambda k: ((left.get(k) or right.get(k) or k), k))
        ]

    return EvidenceLevel(
        both=ordered(set(left) & set(right)),
        only_a=ordered(set(left) - set(right)),
        only_b=ordered(set(right) - set(left)),
    )


def stage_uris(view: TraceView) -> list[str]:
    """The stages of a trace and its sub-traces that an LLM step made (or may have: a
    verification names a prompt only when an LLM judged)."""
    checked = view.verification.uri if view.verification else None
    found = [u for u in (view.focus, view.synthesis, checked) if u]
    for step in view.steps:
        found.append(step.uri)
        for sub in step.subtraces:
            found += stage_uris(sub)
    return found


def prompts_of(handle: Handle | None, view: TraceView) -> dict[str, str | None]:
    """The prompts (``tg:prompt``, docs/provenance.md) the trace's LLM steps were made from,
    each as ``ID DIGEST``."""
    if handle is None:
        return {}
    graph = ox.NamedNode(GRAPH_RETRIEVAL)
    stages = [ox.NamedNode(u) for u in stage_uris(view)]
    nodes = [
        q.object for q in subject_quads(handle.store, stages, graph, ox.NamedNode(TG.prompt.i))
    ]
    facts: dict[str, dict[str, str]] = {}
    for q in subject_quads(handle.store, [n for n in nodes if isinstance(n, ox.NamedNode)], graph):
        if isinstance(q.object, ox.Literal):
            facts.setdefault(str(q.subject), {})[q.predicate.value] = q.object.value
    out: dict[str, str | None] = {}
    for fact in facts.values():
        pid, digest = fact.get(TG.promptId.i), fact.get(TG.promptDigest.i)
        if pid and digest:
            out[f"{pid} {digest}"] = None
    return out


def summary(view: TraceView) -> TraceSummary:
    return TraceSummary(
        id=view.id, type=view.type, question=view.question, time=view.time, status=view.status
    )


def diff_traces(handle: Handle | None, a_id: str, b_id: str) -> TraceDiff:
    """Both answers, then the evidence used by both / only A / only B at each level."""
    a, b = get_trace(handle, a_id, True), get_trace(handle, b_id, True)
    ea, eb = collect(a, Evidence()), collect(b, Evidence())
    ea.levels["prompts"], eb.levels["prompts"] = prompts_of(handle, a), prompts_of(handle, b)
    return TraceDiff(
        a=summary(a),
        b=summary(b),
        answer_a=a.answer,
        answer_b=b.answer,
        **{level: compare(ea, eb, level) for level in (*LEVELS, "prompts")},
    )
