"""One-line texts of a trace's parts: an edge, a source chain, a stage's figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustgraph_base.layout import line_place, line_span
from trustgraph_cli.render.text import label_or_term, short_time
from trustgraph_cli.render.tree import Field

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import (
        ClaimView,
        EdgeView,
        Removal,
        SourceRef,
        SpanRef,
        StageMetrics,
        TraceView,
    )
    from trustgraph_base.schema.trace import ChunkView
    from trustgraph_cli.render.style import Style


def edge_text(edge: EdgeView, style: Style) -> str:
    """``s → p → o`` with labels where the store found them."""
    parts = (
        label_or_term(edge.s_label, edge.s),
        label_or_term(edge.p_label, edge.p),
        label_or_term(edge.o_label, edge.o),
    )
    return style.arrow.join(parts)


def source_text(ref: SourceRef, style: Style, *, named: bool = False) -> str:
    """chunk → page N → document title (URI); ``named``: the chunk URI is shown already."""
    chunk = ref.chunk if not named else ""
    if ref.chunk_index is not None:
        chunk = (
            f"chunk {ref.chunk_index} ({ref.chunk})" if not named else f"chunk {ref.chunk_index}"
        )
    parts = [chunk] if chunk else []
    if ref.page is not None:
        parts.append(f"page {ref.page_number}" if ref.page_number is not None else ref.page)
    parts.append(f'"{ref.title}" ({ref.document})' if ref.title else ref.document)
    return style.arrow.join(parts)


def place_text(page_number: int | None, offset: int, length: int, text: str | None = None) -> str:
    """``page N, chars a–b``; in a page-less document's ``text`` (when given) its line and
    columns first, ``line 3, cols 20–50, chars a–b``."""
    page = f"page {page_number}, " if page_number is not None else ""
    if page_number is None and text is not None and offset + length <= len(text):
        page = line_place(*line_span(text, offset, length)) + ", "
    return f"{page}chars {offset}–{offset + length}"


def span_text(ref: SourceRef, span: SpanRef, text: str | None = None) -> str:
    """The quoted sentence and where it is (``text``: the page-less document's, for its
    lines), or that it was not found in its chunk."""
    quote = '"' + " ".join(span.quote.split()) + '"'
    if not span.located or span.page_offset is None or span.length is None:
        return f"{quote} (unlocated: not found in its chunk)"
    return f"{quote} ({place_text(ref.page_number, span.page_offset, span.length, text)})"


def evidence_names(view: TraceView) -> dict[str, str]:
    """Evidence URI → its name in the tree: ``Edge n`` (focus edges) or ``Chunk n``."""
    names = {e.uri: f"Edge {n}" for n, e in enumerate(view.edges, start=1) if e.uri}
    names.update({c.uri: f"Chunk {n}" for n, c in enumerate(view.chunks, start=1)})
    return names


def claim_text(claim: ClaimView, names: dict[str, str]) -> str:
    """``"sentence" → cites Edge 1, Edge 3`` (or ``→ cites nothing``)."""
    cited = ", ".join(names.get(uri, uri) for uri in claim.cited) or "nothing"
    return '"' + " ".join(claim.text.split()) + f'" → cites {cited}'


def metrics_text(m: StageMetrics) -> str:
    """``model M, tokens 120 in / 40 out, 830 ms`` (only the figures present)."""
    parts = []
    if m.model:
        parts.append(f"model {m.model}")
    if m.in_token is not None or m.out_token is not None:
        tin = "?" if m.in_token is None else m.in_token
        tout = "?" if m.out_token is None else m.out_token
        parts.append(f"tokens {tin} in / {tout} out")
    if m.latency_ms is not None:
        parts.append(f"{m.latency_ms:.0f} ms")
    return ", ".join(parts) or "none"


CITED = "★ cited by the answer"  # retrieved → selected → cited (docs/lineage.md)


def answer_field(text: str) -> Field:
    return Field("Answer", text)


def count_field(label: str, count: int | None) -> Field:
    return Field(label, "unknown" if count is None else str(count))


def removal_text(r: Removal) -> str:
    """``source removed on TIME (DOC; reason: …)``: where a removed document's link was."""
    detail = "; ".join(x for x in (r.document, f"reason: {r.reason}" if r.reason else None) if x)
    return f"source removed on {short_time(r.time)}" + (f" ({detail})" if detail else "")


def chunk_figures(chunk: ChunkView) -> list[tuple[str, str | None]]:
    """A retrieved chunk's figures (None: not recorded): its vector similarity and, with
    hybrid retrieval (docs/rag.md), its place in the vector search and its word score."""
    return [
        ("Score", None if chunk.score is None else f"{chunk.score:.3f}"),
        ("Vector rank", None if chunk.vector_rank is None else str(chunk.vector_rank)),
        ("Word score", None if chunk.lexical_score is None else f"{chunk.lexical_score:.3f}"),
    ]
