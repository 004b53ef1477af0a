"""An answer's evidence, claim by claim: what each sentence cites and where that is.

Built from a ``TraceView`` read with its provenance: each RAG answer (the trace's own, or
its agent's sub-traces') lists its claims; each claim its cited focus edges or chunks; each
of those the places that hold it — an edge's sentence (``tg:Span``), or the claim's own
sentence in a chunk it cites or a cited edge was read from — with the quoted text, the
document, the page and the characters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trustgraph_base.layout import line_place, line_span
from trustgraph_base.spans import locate
from trustgraph_cli.render.parts import edge_text, place_text, removal_text
from trustgraph_cli.render.verdicts import verdict_mark, verification_lines

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ChunkView, SourceRef, TraceView
    from trustgraph_base.schema.trace import Removal
    from trustgraph_cli.render.style import Style


def rag_views(view: TraceView) -> list[TraceView]:
    """The RAG answers of a trace: itself, or its agent steps' sub-traces, in order."""
    if view.type != "agent":
        return [view]
    return [rag for step in view.steps for sub in step.subtraces for rag in rag_views(sub)]


def _place(ref: SourceRef, quote: str | None, offset: int | None, length: int | None) -> Any:
    return {
        "document": ref.document,
        "title": ref.title,
        "page": ref.page,
        "page_number": ref.page_number,
        "chunk": ref.chunk,
        "char_offset": offset,
        "char_length": length,
        "quote": quote,
        "located": offset is not None,
        "mime_type": ref.mime_type,
        "lines": None,  # [first, last] line of a text or Markdown document (add_lines)
        "columns": None,  # the column of the first character on the first line, of the last on the last
    }


def add_lines(report: list[Any], texts: dict[str, str]) -> None:
    """Give each located place in a page-less text document (``texts``: its text by URI)
    the lines it spans and the columns it starts and ends at, counted from 1."""
    for answer in report:
        for claim in answer["claims"]:
            for item in claim["evidence"]:
                for place in item["places"]:
                    text = texts.get(place["document"])
                    start, length = place["char_offset"], place["char_length"]
                    if text is None or start is None or length is None or place["page"]:
                        continue
                    if start + length <= len(text):
                        first, last = line_span(text, start, length)
                        place["lines"] = [first[0], last[0]]
                        place["columns"] = [first[1], last[1]]


def text_documents(report: list[Any]) -> list[str]:
    """The page-less text and Markdown documents the report's places are in."""
    return sorted(
        {
            place["document"]
            for answer in report
            for claim in answer["claims"]
            for item in claim["evidence"]
            for place in item["places"]
            if not place["page"] and (place["mime_type"] or "").startswith("text/")
        }
    )


def _edge_places(sources: list[SourceRef]) -> list[Any]:
    places = []
    for ref in sources:
        for span in ref.spans:
            offset = span.page_offset if span.located else None
            places.append(
                _place(ref, span.quote, offset, span.length if offset is not None else None)
            )
        if not ref.spans:  # extracted before spans were recorded: the chunk is all we know
            places.append(_place(ref, None, ref.char_offset, ref.char_length))
    return places


def _said(ref: SourceRef, text: str | None, claim: str) -> Any | None:
    """The claim's own sentence where the chunk ``ref`` holds it verbatim, else None."""
    found = locate(claim, text) if text and claim.strip() else None
    if found is None or text is None or ref.char_offset is None:
        return None
    start, length = found
    return _place(ref, text[start : start + length], ref.char_offset + start, length)


def _chunk_places(chunk: ChunkView, text: str | None, claim: str) -> list[Any]:
    """Where a claim's chunk is: the claim's own sentence when the chunk holds it verbatim
    (a DocumentRAG answer quotes its chunks), else the whole chunk."""
    return [
        _said(ref, text, claim) or _place(ref, text, ref.char_offset, ref.char_length)
        for ref in chunk.sources
    ]


def _claim_places(sources: list[SourceRef], texts: dict[str, str], claim: str) -> list[Any]:
    """The claim's own sentence in the chunks an edge was read from, when it is not the
    edge's sentence (GraphRAG's offline answer may be a sentence no edge was read from)."""
    out = []
    for ref in sources:
        place = _said(ref, texts.get(ref.chunk or ""), claim)
        stated = {(s.page_offset, s.length) for s in ref.spans if s.located}
        if place is not None and (place["char_offset"], place["char_length"]) not in stated:
            out.append(place)
    return out


def _item(rag: TraceView, uri: str, claim: str, texts: dict[str, str], style: Style) -> Any:
    """One cited evidence item of a claim: its name in the trace, what it is, its places."""
    for n, edge in enumerate(rag.edges, start=1):
        if edge.uri == uri:
            text = edge_text(edge, style)
            places = _claim_places(edge.sources, texts, claim) + _edge_places(edge.sources)
            return {
                "name": f"Edge {n}",
                "uri": uri,
                "kind": "edge",
                "text": text,
                "places": places,
                "removed": _removals(edge.removed),
            }
    for n, chunk in enumerate(rag.chunks, start=1):
        if chunk.uri == uri:
            places = _chunk_places(chunk, texts.get(uri), claim)
            return {
                "name": f"Chunk {n}",
                "uri": uri,
                "kind": "chunk",
                "text": uri,
                "places": places,
                "removed": _removals(chunk.removed),
            }
    return {"name": uri, "uri": uri, "kind": "unknown", "text": uri, "places": [], "removed": []}


def _removals(removed: list[Removal]) -> list[Any]:
    """The removals of the documents a piece of evidence came from (its places went)."""
    return [r.model_dump(mode="json") for r in removed]


def evidence_report(view: TraceView, chunk_texts: dict[str, str], style: Style) -> list[Any]:
    """One entry per RAG answer: its claims, each with its cited evidence and their places."""
    return [
        {
            "trace": rag.id,
            "type": rag.type,
            "question": rag.question,
            "answer": rag.answer,
            "verification": rag.verification.model_dump(mode="json") if rag.verification else None,
            "claims": [
                {
                    "uri": claim.uri,
                    "text": claim.text,
                    "char_offset": claim.offset,
                    "char_length": claim.length,
                    "verdict": claim.verdict,
                    "score": claim.score,
                    "reason": claim.reason,
                    "evidence": [
                        _item(rag, uri, claim.text, chunk_texts, style) for uri in claim.cited
                    ],
                }
                for claim in rag.claims
            ],
        }
        for rag in rag_views(view)
    ]


def evidence_lines(report: list[Any], max_quote: int) -> list[str]:
    """The report as text: each answer, its claims, their evidence and where it is."""
    from trustgraph_base.schema.trace import Removal
    from trustgraph_cli.render.text import one_line, truncate

    def cut(text: str) -> str:  # stored text: on one line, a colour code in it shown as text
        return truncate(one_line(text), max_quote, "…")

    lines: list[str] = []
    for answer in report:
        lines += [f"Answer: {answer['trace']}", f"  Question: {one_line(answer['question'])}"]
        lines.append(f"  Answer: {cut(answer['answer'] or '')}")
        lines += verification_lines(answer.get("verification"), cut)
        if not answer["claims"]:
            lines.append("  (no claims recorded: the trace predates claim-level citations)")
        for n, claim in enumerate(answer["claims"], start=1):
            mark = verdict_mark(claim.get("verdict"), claim.get("reason"))
            lines.append(f'  Claim {n}: "{cut(claim["text"])}"{mark}')
            if not claim["evidence"]:
                lines.append("    cites nothing")
            for item in claim["evidence"]:
                lines.append(f"    {item['name']}: {item['text']}")
                for place in item["places"]:
                    lines.append(f"      {_place_line(place, cut)}")
                for removal in item["removed"]:
                    lines.append(f"      {removal_text(Removal(**removal))}")
                if not item["places"] and not item["removed"]:
                    lines.append("      (no source recorded)")
        lines.append("")
    return lines[:-1] if lines else lines


def _place_line(place: Any, cut: Any) -> str:
    title = f'"{place["title"]}"' if place["title"] else place["document"]
    if place["char_offset"] is None:
        where = "unlocated: not found in its chunk" if place["quote"] else "place unknown"
    else:
        where = place_text(place["page_number"], place["char_offset"], place["char_length"])
        if place.get("lines") and place.get("columns"):
            (first, last), (col, end) = place["lines"], place["columns"]
            where = f"{line_place((first, col), (last, end))}, {where}"
    quote = f'"{cut(place["quote"])}" — ' if place["quote"] else ""
    return f"{quote}{title}, {where}"
