"""The decoder: turns a stored document into page texts (PDF) or one page-less text.

The whole document is decoded before anything is published, so a corrupt, encrypted,
empty or unsupported document yields one ``failed`` event and nothing half-written.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import tempfile
from typing import IO

from trustgraph_base.errors import ErrorType, MessageTooLarge, ServiceError
from trustgraph_base.layout import layout_uri
from trustgraph_base.messaging import (
    DOCUMENT_LOADED,
    INGEST_EVENTS,
    LIBRARIAN,
    PAGES,
    Context,
    Processor,
)
from trustgraph_base.provenance import (
    activity_triples,
    document_triples,
    now_iso,
    page_triples,
)
from trustgraph_base.provenance.evidence import text_layer_triples
from trustgraph_base.provenance.uris import activity_uri, component_uri, page_uri
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import (
    DocumentInfo,
    DocumentLoaded,
    IngestEvent,
    LibrarianRequest,
    Metadata,
    PageText,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.decoding import PDF, TEXT_TYPES, DecodeError, decode_pdf, decode_text
from trustgraph_flow.ingest_parts import INLINE_TEXT_BYTES, publish_triples, put_text
from trustgraph_flow.pdf_text import PdfPage

log = logging.getLogger(__name__)

PROGRESS_SECONDS = 0.5  # how often a decoding PDF reports the pages read so far


class Settings(ProcessorSettings):
    fetch_bytes: int = 1024 * 1024
    """Bytes per get-content request to the librarian."""


proc: Processor[Settings] = Processor("decoder", Settings)


async def _fetch(doc: DocumentInfo, meta: Metadata, ctx: Context[Settings]) -> IO[bytes]:
    """Fetch the document from the librarian in ranges into a spooled temporary file."""
    spool = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)
    try:
        librarian = ctx.client(LIBRARIAN)
        offset = 0
        while offset < doc.size:
            resp = await librarian.request(
                LibrarianRequest(
                    operation="get-content",
                    id=doc.id,
                    offset=offset,
                    length=ctx.settings.fetch_bytes,
                    user=meta.user,
                    collection=meta.collection,
                ),
                timeout=ctx.settings.request_timeout,
            )
            part = base64.b64decode(resp.content)
            if not part:
                break
            spool.write(part)
            offset += len(part)
        spool.seek(0)
    except BaseException:  # a failed or cancelled fetch (a stop mid-document) leaves no file open
        spool.close()
        raise
    return spool


async def _decode(doc: DocumentInfo, meta: Metadata, ctx: Context[Settings]) -> list[PdfPage] | str:
    if doc.size == 0:
        raise DecodeError("the document is empty (0 bytes)")
    if doc.mime_type != PDF and doc.mime_type not in TEXT_TYPES:
        supported = ", ".join(sorted({PDF, *TEXT_TYPES}))
        raise DecodeError(f"unsupported MIME type {doc.mime_type!r} (supported: {supported})")
    fh = await _fetch(doc, meta, ctx)
    with fh:
        if doc.mime_type == PDF:
            return await _decode_reporting(fh, doc, meta, ctx)
        return decode_text(fh.read())


async def _decode_reporting(
    fh: IO[bytes], doc: DocumentInfo, meta: Metadata, ctx: Context[Settings]
) -> list[PdfPage]:
    """Decode a PDF in a thread, telling the librarian how many pages are read as it goes."""
    done = [0]
    task = asyncio.create_task(asyncio.to_thread(decode_pdf, fh, done))
    reported = 0
    while not task.done():
        await asyncio.wait({task}, timeout=PROGRESS_SECONDS)
        if done[0] > reported and not task.done():
            reported = done[0]
            await ctx.publish(
                INGEST_EVENTS,
                IngestEvent(
                    metadata=meta,
                    document=doc.id,
                    stage="decoding",
                    pages=reported,
                    source=f"{doc.id}#decoding-{reported}",
                ),
            )
    return await task


async def _gave_up(msg: DocumentLoaded, exc: Exception, ctx: Context[Settings]) -> None:
    """Decoding failed on every try (the librarian gone): the document ends ``failed``."""
    await _failed(msg.document, msg.metadata, f"decode failed on every try: {exc}", ctx)


@proc.consumer(DOCUMENT_LOADED, give_up=_gave_up)
async def on_document(msg: DocumentLoaded, ctx: Context[Settings]) -> None:
    """Decode a document, then store page texts, publish provenance, pages and an event."""
    doc, meta = msg.document, msg.metadata
    try:
        decoded = await _decode(doc, meta, ctx)
    except ServiceError as exc:
        if exc.type != ErrorType.NOT_FOUND:
            raise  # the librarian is struggling: let the message be redelivered
        log.info("%s was removed before it was decoded: skipped", doc.id)
        return
    except DecodeError as exc:
        log.warning("cannot decode %s: %s", doc.id, exc)
        await _failed(doc, meta, f"decode failed: {exc}", ctx)
        return
    try:
        await _publish(doc, meta, decoded, ctx)
    except MessageTooLarge as exc:  # a safety net: every message is split to fit
        log.error("cannot pass on %s: %s", doc.id, exc)
        await _failed(doc, meta, f"decode failed: {exc.message}", ctx)
    except ServiceError as exc:
        if exc.type != ErrorType.NOT_FOUND:
            raise
        log.info("%s was removed while it was decoded: skipped", doc.id)  # its texts refused


async def _failed(doc: DocumentInfo, meta: Metadata, reason: str, ctx: Context[Settings]) -> None:
    await ctx.publish(
        INGEST_EVENTS, IngestEvent(metadata=meta, document=doc.id, stage="failed", error=reason)
    )


async def _publish(
    doc: DocumentInfo, meta: Metadata, decoded: list[PdfPage] | str, ctx: Context[Settings]
) -> None:
    """Store page texts, publish provenance, the ``decoded`` event and the pages (each
    inline when small, else by reference to the text the librarian now keeps)."""
    common = {
        "metadata": meta,
        "document": doc.id,
        "chunk_size": doc.chunk_size,
        "chunk_overlap": doc.chunk_overlap,
    }
    if isinstance(decoded, str):  # page-less: the document's own text, chunks under it
        texts: list[tuple[str, int | None, str]] = [(doc.id, None, decoded)]
    else:
        texts = [(page_uri(doc.id, n), n, p.text) for n, p in enumerate(decoded, start=1)]
    for uri, _, text in texts:
        await put_text(uri, text, meta, ctx)
    layouts = [] if isinstance(decoded, str) else [p.layout for p in decoded]
    for (uri, _, _), layout in zip(texts, layouts, strict=False):
        await put_text(layout_uri(uri), layout.to_json(), meta, ctx)
    pages = [uri for uri, n, _ in texts if n is not None]
    triples = _provenance(doc, pages)
    for uri, layout in zip(pages, layouts, strict=False):
        if not layout.text_layer:
            triples += text_layer_triples(uri)
    await publish_triples(meta, triples, ctx)
    await ctx.publish(
        INGEST_EVENTS,
        IngestEvent(metadata=meta, document=doc.id, stage="decoded", pages=len(pages)),
    )
    for uri, n, text in texts:
        inline = len(text.encode()) <= INLINE_TEXT_BYTES
        page = PageText(
            page=uri if n is not None else None,
            page_number=n,
            text=text if inline else "",
            by_reference=not inline,
            **common,
        )
        await ctx.publish(PAGES, page)
    log.info("decoded %s: %d pages", doc.id, len(pages))


def _provenance(doc: DocumentInfo, pages: list[str]) -> list[Triple]:
    """The document entity, its pages and the decode activity that generated them."""
    triples = document_triples(doc.id, doc.title, doc.mime_type)
    if pages:
        activity = activity_uri(doc.id, "decode")
        triples += activity_triples(
            activity, component_uri("decoder"), "decoder", now_iso(), used=doc.id
        )
        for n, uri in enumerate(pages, start=1):
            triples += page_triples(uri, doc.id, n, activity)
    return triples


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
