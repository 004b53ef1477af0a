"""Following a document through decode, chunk and extract: stages and their counters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from trustgraph_base.schema.documents import DocumentInfo
    from trustgraph_cli.client import GatewayClient

POLL_SECONDS = 0.25
# The store's answer to the librarian (a down shard: at once), which waits 5 s for it at
# most and then says so (``held``): waited for a little longer than that.
SEAL_SECONDS = 6.0


async def follow(
    client: GatewayClient, info: DocumentInfo, progress: Any, *, stall: float
) -> DocumentInfo:
    """Poll get-document until the document is complete or failed, reporting each stage."""
    import asyncio

    clock = asyncio.get_running_loop().time
    seen, since = None, clock()
    while info.status not in ("complete", "failed"):
        counters = (
            info.status,
            info.pages_decoded,
            info.pages,
            info.pages_chunked,
            info.chunks,
            info.chunks_done,
            info.chunks_made,
            info.chunks_split,
            info.edges,
        )
        if counters != seen:
            seen, since = counters, clock()
        elif clock() - since > stall:
            raise click.ClickException(
                f"{info.id} made no progress for {stall:g} s ({describe(info)}). Check that "
                "the processors run (tg-start), then follow it with tg-list-documents."
            )
        stage, done, total = stage_of(info)
        progress.update(stage, done, total, unit_of(stage, info))
        await asyncio.sleep(POLL_SECONDS)
        info = await document(client, info.id)
    # Complete: the librarian asks the store to sign it at once, and learns then whether the
    # store has its graph (``held`` says why not, or that the store did not answer in time);
    # polled while that request is out (none when answered before the first look, as usual).
    asked = clock()
    while info.status == "complete" and info.sealing:
        if clock() - asked > SEAL_SECONDS:
            break  # the librarian did not say either: a stuck request, no news
        await asyncio.sleep(POLL_SECONDS)
        info = await document(client, info.id)
    progress.finish(info)
    return info


async def document(client: GatewayClient, doc: str) -> DocumentInfo:
    """The document as the librarian has it now (get-document)."""
    return document_of(await client.librarian({"operation": "get-document", "document-id": doc}))


def held_note(info: DocumentInfo) -> str:
    """What a complete document the store has not confirmed (its writes held for a server
    that is down, or no answer in time) means to its user."""
    return (
        f"{info.id} is complete, but the store has not confirmed its graph yet: {info.held}. "
        "Nothing is lost: the store writes it when it can, and questions may not find it "
        "until then. tg-list-documents says complete (not held) once it is signed."
    )


UNITS = {
    "uploading": "bytes",
    "decoding": "pages",
    "recording": "chunk spans",
    "chunking": "pages",
    "extracting": "chunks",
}


def unit_of(stage: str, info: DocumentInfo) -> str:
    """What a stage counts: a page-less text is chunked in chunks, not pages."""
    return "chunks" if stage == "chunking" and info.pages == 0 else UNITS[stage]


def stage_of(info: DocumentInfo) -> tuple[str, int, int]:
    """The stage a processing document is in, with done/total counters that never grow.

    A total of 0 means not known yet (shown as a count alone): pages read while a PDF
    decodes, then pages chunked out of the page count (a page-less text: the spans of the
    chunks it was split into recorded, then chunks made out of them), then chunks extracted
    out of a chunk count that is final (every page chunked).
    """
    if info.status == "uploading":
        return "uploading", 0, 0
    if info.pages == 0 and info.pages_chunked == 0:
        if info.chunks_made:
            return "chunking", info.chunks_made, info.chunks_split
        if info.chunks_split:
            return "recording", info.chunks_split, 0
        return "decoding", info.pages_decoded, 0
    if info.pages_chunked < max(info.pages, 1):
        return "chunking", info.pages_chunked, info.pages
    return "extracting", info.chunks_done, info.chunks


def describe(info: DocumentInfo) -> str:
    """Where a document got to, in words."""
    return (
        f"status {info.status}, {info.pages} pages, "
        f"{info.chunks_done}/{info.chunks} chunks extracted"
    )


def document_of(data: dict[str, Any]) -> DocumentInfo:
    """The document a librarian reply carries (a clear error if it carries none)."""
    from trustgraph_base.schema.documents import LibrarianResponse
    from trustgraph_cli.responses import required, validated

    return required(validated(LibrarianResponse, data, "a librarian reply").document, "document")
