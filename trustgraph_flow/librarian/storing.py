"""Storing documents: ``add-document`` whole, or TrustGraph's chunked upload in parts."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import NoReturn

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance import now_iso
from trustgraph_base.schema import (
    DocumentInfo,
    DocumentMetadata,
    LibrarianRequest,
    LibrarianResponse,
    ProcessingMetadata,
)
from trustgraph_base.wire import decode, encode
from trustgraph_flow.librarian.processing import start
from trustgraph_flow.librarian.state import Ctx, b64, document, metadata_of
from trustgraph_flow.librarian.store import LibrarianStore, Scope

log = logging.getLogger(__name__)

UPLOAD_OPERATIONS = frozenset({"begin-upload", "upload-chunk", "complete-upload", "abort-upload"})
# Part size answered to begin-upload: its base64 must fit the gateway's 4 MiB request limit.
UPLOAD_PART = 2 * 1024 * 1024


async def add(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """``add-document``: a whole document (``document-metadata``, ``content``), ``stored``;
    with ``processing-metadata`` its processing starts at once (our extension)."""
    meta = _metadata(req)
    doc = document(meta.id)
    data = b64(req.content, "content")
    _within_limit(len(data), doc, ctx)
    await _part(scope, ctx, doc, 0, data, begin=_new_info(req, meta, doc))
    stored = await _part(scope, ctx, doc, 1, b"", final=True)
    return await _then_process(req.processing_metadata, stored, scope, ctx)


def _within_limit(size: int, doc: str, ctx: Ctx) -> None:
    limit = ctx.settings.max_document_bytes
    if size > limit:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"document {doc!r} of {size:,} bytes is larger than the librarian takes "
            f"({limit:,} bytes, {limit / 2**20:g} MiB)",
        )


async def _then_process(
    record: ProcessingMetadata | None, stored: LibrarianResponse, scope: Scope, ctx: Ctx
) -> LibrarianResponse:
    """Start the processing the client asked for with its upload, server-side: it runs
    even when the client is gone by then."""
    if record is None or stored.document is None:
        return stored
    # into the collection it was stored in (the record's own collection is not read: the
    # gateway's codec fills in its default)
    update = {"document_id": stored.document.id, "collection": scope.collection}
    return await start(record.model_copy(update=update), scope, ctx)


def _metadata(req: LibrarianRequest) -> DocumentMetadata:
    if req.document_metadata is None:
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"{req.operation} needs document-metadata (id, kind, title, …)"
        )
    return req.document_metadata


async def _part(
    scope: Scope,
    ctx: Ctx,
    doc: str,
    part: int,
    data: bytes,
    *,
    begin: DocumentInfo | None = None,
    final: bool = False,
) -> LibrarianResponse:
    """Append one part of an upload (``begin``: start it); ``final`` leaves it ``stored``."""
    uploads = ctx.state.store.uploads
    lock = ctx.state.locks.setdefault((scope, doc), asyncio.Lock())
    async with lock:
        if begin is not None:
            uploads.begin(begin)
        await asyncio.to_thread(uploads.append, scope, doc, part, data)
        if not final:
            return LibrarianResponse(document=ctx.state.store.documents.require(scope, doc))
        info = await asyncio.to_thread(uploads.finish, scope, doc)
    ctx.state.locks.pop((scope, doc), None)
    log.info("stored %s (%d bytes) for %s/%s", doc, info.size, scope.user, scope.collection)
    return LibrarianResponse(document=info, document_metadata=metadata_of(info))


async def chunked(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """TrustGraph's chunked upload: begin, chunks in order (``chunk-index`` n is store part
    n + 1, part 0 holding no bytes), complete; or abort."""
    store = ctx.state.store
    if req.operation == "begin-upload":
        meta = _metadata(req)
        doc = document(meta.id)
        _within_limit(req.total_size, doc, ctx)
        started = await _part(scope, ctx, doc, 0, b"", begin=_new_info(req, meta, doc))
        upload_id = str(uuid.uuid4())
        store.uploads.name(scope, doc, upload_id)
        record = req.processing_metadata
        on_complete = None if record is None else encode(record).decode()
        store.uploads.declare(scope, doc, req.total_size or None, on_complete)
        return LibrarianResponse(
            document=started.document,
            upload_id=upload_id,
            upload_chunk_size=UPLOAD_PART,
            total_chunks=max(1, -(-req.total_size // UPLOAD_PART)),
        )
    if not req.upload_id:
        raise ServiceError(ErrorType.BAD_REQUEST, f"{req.operation} needs an upload-id")
    info = store.uploads.named(scope, req.upload_id)
    if req.operation == "abort-upload":
        store.documents.remove(scope, info.id)
        return LibrarianResponse(document=info)
    expected = store.uploads.next_part(scope, info.id) - 1  # the chunk-index it waits for
    declared, on_complete = store.uploads.declared(scope, info.id)
    if req.operation == "upload-chunk":
        if req.chunk_index != expected:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"upload {req.upload_id!r}: expected chunk-index {expected}, "
                f"got {req.chunk_index} (chunks go in order)",
            )
        data = b64(req.content, "content")
        size = info.size + len(data)
        if declared is not None and size > declared:
            _drop(store, scope, info.id, f"{size:,} bytes, more than its total-size {declared:,}")
        try:
            _within_limit(size, info.id, ctx)
        except ServiceError:
            store.documents.remove(scope, info.id)  # nothing of it is kept
            raise
        return await _part(scope, ctx, info.id, req.chunk_index + 1, data)
    if declared is not None and info.size != declared:
        _drop(store, scope, info.id, f"{info.size:,} bytes, not its total-size {declared:,}")
    stored = await _part(scope, ctx, info.id, expected + 1, b"", final=True)
    record = None if on_complete is None else decode(ProcessingMetadata, on_complete)
    return await _then_process(record, stored, scope, ctx)


def _drop(store: LibrarianStore, scope: Scope, doc: str, what: str) -> NoReturn:
    """Forget an upload whose bytes do not match its declared size, and say so."""
    store.documents.remove(scope, doc)
    raise ServiceError(
        ErrorType.BAD_REQUEST,
        f"upload of {doc!r} dropped, nothing stored: it would hold {what}; begin the upload again",
    )


def _new_info(req: LibrarianRequest, meta: DocumentMetadata, doc: str) -> DocumentInfo:
    size = req.chunk_size
    if size is not None and req.chunk_overlap is not None and req.chunk_overlap >= size:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"chunk_overlap {req.chunk_overlap} must be smaller than chunk_size {size}",
        )
    return DocumentInfo(
        id=doc,
        title=meta.title,
        mime_type=meta.kind,
        user=req.user,
        collection=req.collection,
        time=now_iso(),
        status="uploading",
        chunk_size=req.chunk_size,
        chunk_overlap=req.chunk_overlap,
        comments=meta.comments,
        tags=meta.tags,
        metadata=meta.metadata,
    )
