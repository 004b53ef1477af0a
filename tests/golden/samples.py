"""Hand-built views for the renderer tests: one of each trace shape, and a document tree."""

from __future__ import annotations

from trustgraph_base.rdf.terms import IriTerm, LiteralTerm
from trustgraph_base.schema.explain import (
    AgentStepView,
    ChunkNode,
    ChunkView,
    ClaimView,
    DocumentView,
    EdgeView,
    PageNode,
    SourceRef,
    SpanRef,
    StageMetrics,
    TraceView,
)

DOC = "urn:trustgraph:doc:sample"
TIME = "2026-01-02T03:04:05.000Z"


def source(page: int = 1, chunk: int = 0, spans: list[SpanRef] | None = None) -> SourceRef:
    return SourceRef(
        chunk=f"{DOC}/p{page}/c{chunk}",
        chunk_index=chunk,
        page=f"{DOC}/p{page}",
        page_number=page,
        document=DOC,
        title="Sample PDF",
        mime_type="application/pdf",
        char_offset=900 * chunk,
        char_length=1000,
        spans=spans or [],
    )


def edge(
    s: str, p: str, o: str, *, reasoning: str | None = None, literal: bool = False
) -> EdgeView:
    obj = LiteralTerm(v=o) if literal else IriTerm(i=f"urn:trustgraph:entity:{o.lower()}")
    return EdgeView(
        s=IriTerm(i=f"urn:trustgraph:entity:{s.lower()}"),
        p=IriTerm(i=f"urn:trustgraph:rel:{p.replace(' ', '-')}"),
        o=obj,
        s_label=s,
        p_label=p,
        o_label=None if literal else o,
        reasoning=reasoning,
    )


def graph_rag(*, provenance: bool = True, parent: str | None = None) -> TraceView:
    q = "urn:trustgraph:question:g1"
    e1 = edge("Alice", "knows", "Bob", reasoning="Alice is the person asked about.")
    e2 = edge("Bob", "age", "42", reasoning="Gives the age.", literal=True)
    if provenance:
        said = SpanRef(quote="Alice knows\nBob well.", page_offset=312, length=20)
        e1 = e1.model_copy(update={"sources": [source(1, 0, [said])]})
        unlocated = SpanRef(quote="Bob is forty-two.", located=False)  # reworded by the model
        e2 = e2.model_copy(update={"sources": [source(2, 3, [unlocated])]})
    return TraceView(
        id=q,
        type="graph-rag",
        question="Who does Alice know?",
        time=TIME,
        status="complete",
        parent=parent,
        exploration=f"{q}/exploration",
        edge_count=12,
        focus=f"{q}/focus",
        edges=[
            e1.model_copy(update={"uri": f"{q}/focus/e1"}),
            e2.model_copy(update={"uri": f"{q}/focus/e2"}),
        ],
        synthesis=f"{q}/synthesis",
        answer="Alice knows Bob, who is 42.",
        claims=[
            ClaimView(
                uri=f"{q}/synthesis/claim1",
                text="Alice knows Bob, who is 42.",
                offset=0,
                length=27,
                cited=[f"{q}/focus/e1", f"{q}/focus/e2"],
            )
        ],
        metrics={
            "synthesis": StageMetrics(model="offline", in_token=120, out_token=9, latency_ms=12.5)
        },
    )


def doc_rag() -> TraceView:
    q = "urn:trustgraph:docrag:d1"
    return TraceView(
        id=q,
        type="document-rag",
        question="What is the fox like?",
        time=TIME,
        status="complete",
        exploration=f"{q}/exploration",
        chunk_count=2,
        chunks=[
            ChunkView(uri=f"{DOC}/p1/c0", sources=[source(1, 0)]),
            ChunkView(uri=f"{DOC}/p1/c1"),
        ],
        synthesis=f"{q}/synthesis",
        answer="The fox is quick and brown.",
    )


def agent() -> TraceView:
    a = "urn:trustgraph:agent:a1"
    sub = graph_rag(provenance=False, parent=f"{a}/i1")
    return TraceView(
        id=a,
        type="agent",
        question="How old is Alice's friend?",
        time=TIME,
        status="complete",
        steps=[
            AgentStepView(
                uri=f"{a}/i1",
                index=1,
                thought="I should look in the knowledge graph.",
                action="knowledge-query",
                arguments='{"question": "Who does Alice know?"}',
                observation="Alice knows Bob, who is 42.",
                subtraces=[sub],
            ),
        ],
        answer="Bob is 42.",
    )


def in_progress() -> TraceView:
    a = "urn:trustgraph:agent:a2"
    return TraceView(
        id=a,
        type="agent",
        question="Still thinking?",
        time=TIME,
        status="in-progress",
        steps=[AgentStepView(uri=f"{a}/i1", index=1, thought="Look it up.", action="search")],
    )


def failed() -> TraceView:
    q = "urn:trustgraph:question:f1"
    return TraceView(
        id=q,
        type="graph-rag",
        question="Why did it fail?",
        time=TIME,
        status="failed",
        error="text-completion timed out",
        exploration=f"{q}/exploration",
        edge_count=3,
    )


def document() -> DocumentView:
    c0 = ChunkNode(
        uri=f"{DOC}/p1/c0",
        index=0,
        char_offset=0,
        char_length=120,
        edges=[edge("Fox", "jumps over", "Dog")],
        content="The quick brown fox jumps over the lazy dog. " * 6,
    )
    c1 = ChunkNode(
        uri=f"{DOC}/p1/c1",
        index=1,
        char_offset=100,
        char_length=40,
        content="Machine learning is fun.",
    )
    return DocumentView(
        id=DOC,
        title="Sample PDF",
        mime_type="application/pdf",
        pages=[PageNode(uri=f"{DOC}/p1", number=1, chunks=[c0, c1])],
    )
