"""The chunker: splits each page (or page-less document) into overlapping chunks.

Chunks end at a sentence or whitespace boundary when one is near, and start after
whitespace, so a chunk rarely cuts a word; each records its exact character span.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import (
    CHUNKS,
    INGEST_EVENTS,
    LOADS_REMOVED,
    PAGES,
    Context,
    Processor,
)
from trustgraph_base.provenance import TG, activity_triples, chunk_triples, now_iso
from trustgraph_base.provenance.uris import activity_uri, chunk_uri, component_uri
from trustgraph_base.schema import (
    ChunkSpan,
    ChunkText,
    IngestEvent,
    LoadsRemoved,
    PageText,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.ingest_parts import (
    publish_triples,
    put_spans,
    read_document_text,
    read_text,
)
from trustgraph_flow.removed_loads import RemovedLoads

log = logging.getLogger(__name__)

_SENTENCE_END = re.compile(r"[.!?;:][\"')\]]*\s+|\n\s*\n")
_SPACE = re.compile(r"\s+")
PROGRESS_SECONDS = 0.5  # how often a page-less text being chunked reports its chunks so far


class Settings(ProcessorSettings):
    chunk_size: int = 1000
    """Characters per chunk."""
    chunk_overlap: int = 100
    """Characters shared by consecutive chunks."""


@dataclass(frozen=True)
class Span:
    offset: int
    length: int


def _end_of(text: str, start: int, size: int) -> int:
    """Where a chunk starting at ``start`` should end: the last sentence end, else space."""
    hard = start + size
    if hard >= len(text):
        return len(text)
    floor = start + size // 2  # never give up more than half a chunk to find a boundary
    window = text[floor:hard]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if ends:
        return floor + ends[-1]
    spaces = [m.start() for m in _SPACE.finditer(window)]
    return floor + spaces[-1] if spaces else hard


def _start_after(text: str, pos: int, limit: int) -> int:
    """The first word start at or after ``pos`` (but before ``limit``), for the overlap."""
    if pos == 0 or text[pos - 1].isspace():
        return pos
    found = _SPACE.search(text, pos, limit)
    return found.end() if found else pos


def split(text: str, size: int, overlap: int) -> list[Span]:
    """Chunk spans of ``text``: at most ``size`` characters, neighbours sharing ~``overlap``."""
    overlap = max(0, min(overlap, size // 2))
    spans: list[Span] = []
    start = 0
    while start < len(text):
        end = _end_of(text, start, size)
        lo, hi = start, end
        while lo < hi and text[lo].isspace():
            lo += 1
        while hi > lo and text[hi - 1].isspace():
            hi -= 1
        if hi > lo:
            spans.append(Span(lo, hi - lo))
        if end >= len(text):
            break
        start = max(_start_after(text, end - overlap, end), start + 1)
    return spans


proc: Processor[Settings, RemovedLoads] = Processor("chunker", Settings)
Ctx = Context[Settings, RemovedLoads]


@proc.lifespan
async def removed_loads(ctx: Context[Settings]) -> AsyncIterator[RemovedLoads]:
    """The loads removed, heard on ``LOADS_REMOVED`` (in memory: the store, the vector
    index and the librarian refuse their writes whatever this missed)."""
    yield RemovedLoads()


async def _record_spans(uris: list[str], spans: list[Span], page: PageText, ctx: Ctx) -> bool:
    """Tell the librarian where each chunk lies; False if the document is gone."""
    try:
        await put_spans(
            [
                ChunkSpan(id=u, offset=s.offset, length=s.length)
                for u, s in zip(uris, spans, strict=True)
            ],
            page.metadata,
            ctx,
        )
    except ServiceError as exc:
        if exc.type != ErrorType.NOT_FOUND:
            raise
        return False
    return True


async def _gave_up(page: PageText, exc: Exception, ctx: Ctx) -> None:
    """The page failed on every try: its document ends ``failed`` with the reason."""
    failed = IngestEvent(
        metadata=page.metadata,
        document=page.document,
        stage="failed",
        error=f"chunking {page.page or page.document} failed on every try: {exc}",
    )
    await ctx.publish(INGEST_EVENTS, failed)


@proc.consumer(PAGES, give_up=_gave_up)
async def on_page(page: PageText, ctx: Ctx) -> None:
    """Split a page; record spans, publish provenance, the chunks and a ``chunked`` event
    (nothing more once its load is removed, even half way through its chunks)."""
    size = page.chunk_size or ctx.settings.chunk_size
    overlap = page.chunk_overlap if page.chunk_overlap is not None else ctx.settings.chunk_overlap
    overlap = max(0, min(overlap, size // 2))  # what split() uses, so provenance tells the truth
    parent = page.page or page.document
    try:
        if not page.by_reference:
            text = page.text
        elif page.page:
            text = await read_text(page.page, page.metadata, ctx)
        else:  # page-less: the document's own bytes, as the decoder read them
            text = await read_document_text(page.document, page.metadata, ctx)
    except ServiceError as exc:
        if exc.type != ErrorType.NOT_FOUND:
            raise
        log.info("%s was removed before it was chunked: skipped", page.document)
        return
    spans = split(text, size, overlap)
    uris = [chunk_uri(parent, m) for m in range(len(spans))]
    meta = page.metadata
    gone = ctx.state.removed
    if page.page is None and spans:  # a page-less text: recording its spans takes a while
        said = IngestEvent(
            metadata=meta,
            document=page.document,
            stage="split",
            chunks=len(spans),
            source=f"{parent}#split",
        )
        await ctx.publish(INGEST_EVENTS, said)
    if gone(meta) or (spans and not await _record_spans(uris, spans, page, ctx)):
        log.info("%s was removed before it was chunked: skipped", page.document)
        return
    if spans:
        activity = activity_uri(parent, "chunk")
        triples = activity_triples(
            activity,
            component_uri("chunker"),
            "chunker",
            now_iso(),
            {TG.chunkSize: size, TG.chunkOverlap: overlap},
            used=parent,
        )
        for m, (uri, span) in enumerate(zip(uris, spans, strict=True)):
            triples += chunk_triples(uri, parent, m, span.offset, span.length, activity)
        await publish_triples(meta, triples, ctx)
    clock = asyncio.get_running_loop().time
    report = clock() + PROGRESS_SECONDS
    for m, (uri, span) in enumerate(zip(uris, spans, strict=True)):
        if page.page is None and clock() >= report:  # a PDF's pages report as they finish
            report = clock() + PROGRESS_SECONDS
            await ctx.publish(
                INGEST_EVENTS,
                IngestEvent(
                    metadata=meta,
                    document=page.document,
                    stage="chunking",
                    chunks=m,
                    source=f"{parent}#chunking-{m}",
                ),
            )
        if gone(meta):
            log.info("%s was removed while it was chunked: stopped at chunk %d", page.document, m)
            return
        await ctx.publish(
            CHUNKS,
            ChunkText(
                metadata=meta,
                document=page.document,
                page=page.page,
                chunk=uri,
                index=m,
                char_offset=span.offset,
                char_length=span.length,
                text=text[span.offset : span.offset + span.length],
            ),
        )
    await ctx.publish(
        INGEST_EVENTS,
        IngestEvent(
            metadata=meta, document=page.document, stage="chunked", chunks=len(spans), source=parent
        ),
    )
    log.info("chunked %s: %d chunks (size %d, overlap %d)", parent, len(spans), size, overlap)


@proc.consumer(LOADS_REMOVED)
async def on_removed(event: LoadsRemoved, ctx: Ctx) -> None:
    """A document (or collection) was removed: its pages still queued, or being split, stop."""
    ctx.state.heard(event)


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
