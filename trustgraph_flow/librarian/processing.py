"""Processing records and collections: ``add-processing`` starts a stored document's ingestion."""

from __future__ import annotations

import asyncio
import logging
import time

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import DOCUMENT_LOADED
from trustgraph_base.provenance import now_iso
from trustgraph_base.schema import (
    DocumentLoaded,
    LibrarianRequest,
    LibrarianResponse,
    Metadata,
    ProcessingMetadata,
)
from trustgraph_flow.librarian.state import Ctx, document
from trustgraph_flow.librarian.store import Scope, StoreError

log = logging.getLogger(__name__)

PROCESSING_OPERATIONS = frozenset({"add-processing", "list-processing", "remove-processing"})
COLLECTION_OPERATIONS = frozenset({"list-collections", "update-collection"})


async def processing(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """TrustGraph's processing records: ``add-processing`` runs the ingestion of a stored
    document into the record's collection (a copy of it when that is another collection)."""
    store = ctx.state.store
    if req.operation == "list-processing":
        return LibrarianResponse(processing_metadatas=store.records.listed(scope))
    if req.operation == "remove-processing":
        if not req.processing_id:
            raise ServiceError(ErrorType.BAD_REQUEST, "remove-processing needs a processing-id")
        store.records.remove(scope, req.processing_id)
        return LibrarianResponse()
    record = req.processing_metadata
    if record is None:
        raise ServiceError(ErrorType.BAD_REQUEST, "add-processing needs processing-metadata")
    return await start(record, scope, ctx)


async def start(record: ProcessingMetadata, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """Keep a processing record and start the ingestion it asks for: the document goes
    ``processing`` and ``DocumentLoaded`` is published."""
    store = ctx.state.store
    doc = document(record.document_id)
    target = Scope(scope.user, record.collection)
    store.documents.require(scope, doc)
    record = record.model_copy(
        update={"document_id": doc, "user": scope.user, "time": record.time or int(time.time())}
    )
    store.records.add(scope, record)
    try:
        if target == scope:
            info = store.uploads.start_processing(scope, doc)
        else:
            copied = await asyncio.to_thread(store.uploads.copy, scope, target, doc, now_iso())
            info = store.uploads.start_processing(target, copied.id)
    except StoreError:
        store.records.remove(scope, record.id)
        raise
    load = ctx.state.clock.next()  # its messages carry it: a removal drops them by it
    meta = Metadata(id=doc, user=target.user, collection=target.collection, load=load)
    await ctx.publish(DOCUMENT_LOADED, DocumentLoaded(metadata=meta, document=info))
    log.info("processing %s into %s/%s (%s)", doc, target.user, target.collection, record.id)
    return LibrarianResponse(document=info, processing_metadatas=[record])


def collections(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """``list-collections``, ``update-collection``."""
    records = ctx.state.store.records
    if req.operation == "list-collections":
        return LibrarianResponse(collections=records.collections(scope.user))
    described = records.describe_collection(
        scope, name=req.name, description=req.description, tags=req.tags
    )
    return LibrarianResponse(collections=[described])
