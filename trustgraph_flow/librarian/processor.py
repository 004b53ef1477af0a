"""The librarian: stores documents durably, serves their content by URI, tracks progress,
and keeps each user's knowledge cores (the ``knowledge`` service, ``knowledge.py``).

Its operations live in rooms: ``storing`` (add-document, chunked upload), ``processing``
(processing records, collections), ``content`` (get-content, put-content) and ``removal``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import (
    COLLECTION_DELETED,
    HELD_WRITTEN,
    INGEST_EVENTS,
    KNOWLEDGE,
    LIBRARIAN,
    Context,
    Processor,
)
from trustgraph_base.schema import (
    CollectionDeleted,
    HeldWritten,
    IngestEvent,
    KnowledgeRequest,
    KnowledgeResponse,
    LibrarianRequest,
    LibrarianResponse,
)
from trustgraph_flow.librarian import knowledge, sealing
from trustgraph_flow.librarian.content import document_content, get_content, put_content
from trustgraph_flow.librarian.processing import (
    COLLECTION_OPERATIONS,
    PROCESSING_OPERATIONS,
    collections,
    processing,
)
from trustgraph_flow.librarian.removal import remove
from trustgraph_flow.librarian.state import Ctx, Settings, State, metadata_of, named
from trustgraph_flow.librarian.store import LibrarianStore, Scope, StoreError
from trustgraph_flow.librarian.storing import UPLOAD_OPERATIONS, add, chunked
from trustgraph_flow.removed_loads import LoadClock, RemovedLoads

log = logging.getLogger(__name__)

__all__ = ["Settings", "main", "metadata_of", "proc"]

proc: Processor[Settings, State] = Processor("librarian", Settings)


@proc.lifespan
async def open_store(ctx: Context[Settings]) -> AsyncIterator[State]:
    root = Path(ctx.settings.data_dir) / "librarian"
    store = LibrarianStore(root)
    removed = RemovedLoads(root / "removed_loads.db")
    every = ctx.settings.seal_retry_seconds
    retry = asyncio.create_task(sealing.retry_unsealed(ctx, store.documents.db, every))
    try:
        yield State(store, removed, LoadClock(removed.latest))
    finally:
        retry.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await retry
        removed.close()
        store.close()


@proc.service(LIBRARIAN)
async def librarian(req: LibrarianRequest, ctx: Ctx) -> LibrarianResponse:
    """Dispatch one librarian operation; store refusals become ``ServiceError``."""
    scope = Scope(req.user, req.collection)
    documents = ctx.state.store.documents
    if req.operation in ("get-document", "list-documents"):
        ctx.state.store.uploads.drop_idle(scope, ctx.settings.upload_idle_seconds)
    try:
        if req.operation == "add-document":
            return await add(req, scope, ctx)
        if req.operation in ("get-document", "get-document-metadata"):
            info = documents.require(scope, named(req, req.operation))
            return LibrarianResponse(document=info, document_metadata=metadata_of(info))
        if req.operation in PROCESSING_OPERATIONS:
            return await processing(req, scope, ctx)
        if req.operation in UPLOAD_OPERATIONS:
            return await chunked(req, scope, ctx)
        if req.operation in COLLECTION_OPERATIONS:
            return collections(req, scope, ctx)
        if req.operation == "list-documents":
            docs = documents.listed(scope)
            return LibrarianResponse(
                documents=docs, document_metadatas=[metadata_of(d) for d in docs]
            )
        if req.operation == "remove-document":
            return await remove(req, scope, ctx)
        if req.operation == "get-content":
            return await get_content(req, scope, ctx)
        if req.operation == "get-document-content":
            return await document_content(req, scope, ctx)
        return put_content(req, scope, ctx)
    except StoreError as exc:
        raise ServiceError(exc.type, exc.message) from None


@proc.service(KNOWLEDGE)
async def knowledge_cores(req: KnowledgeRequest, ctx: Ctx) -> AsyncIterator[KnowledgeResponse]:
    """One knowledge-core operation of ``req.user`` (several replies for a core's get)."""
    async for reply in knowledge.answer(ctx.state.store.cores, req, ctx):
        yield reply


@proc.consumer(COLLECTION_DELETED)
async def on_collection_deleted(event: CollectionDeleted, ctx: Ctx) -> None:
    """The collection's store is gone (explain delete-collection): its documents go too."""
    scope = Scope(event.user, event.collection)
    upto = ctx.state.clock.next() if event.upto is None else event.upto
    ctx.state.removed.add(event.user, event.collection, "", upto)  # its late events: ignored
    ctx.state.clock.passed(upto)  # a load started from now on is not one of those
    removed = await asyncio.to_thread(ctx.state.store.remove_collection, scope)
    log.info(
        "collection %s/%s deleted: removed %d documents", scope.user, scope.collection, removed
    )


@proc.consumer(HELD_WRITTEN)
async def on_held_written(event: HeldWritten, ctx: Ctx) -> None:
    """The store wrote the writes it held for a shard that was down, this collection's among
    them (or the shard it refused this collection's seal for answers again): its complete
    documents not signed yet are offered now (``held`` cleared once signed)."""
    await sealing.offer(ctx, ctx.state.store.documents.db, Scope(event.user, event.collection))


@proc.consumer(INGEST_EVENTS)
async def on_event(event: IngestEvent, ctx: Ctx) -> None:
    """Update a document's status and progress counters from a pipeline event (not one of
    a removed load: a document loaded again under its id counts only its own)."""
    if ctx.state.removed.removed(event.metadata, event.document):
        return
    info = ctx.state.store.progress.record(event)
    if info is None:
        log.info("event for unknown document %s ignored (removed?)", event.document)
    elif info.status in ("complete", "failed"):
        log.info(
            "%s %s: %d pages, %d chunks, %d edges%s",
            info.id,
            info.status,
            info.pages,
            info.chunks,
            info.edges,
            f" ({info.error})" if info.error else "",
        )
        if info.status == "complete":
            scope = Scope(event.metadata.user, event.metadata.collection)
            await sealing.seal(ctx, ctx.state.store.documents.db, scope, info.id)


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
