"""The librarian: stores documents durably, serves their content by URI, tracks progress."""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import (
    COLLECTION_DELETED,
    DOCUMENT_LOADED,
    EXPLAIN,
    INGEST_EVENTS,
    LIBRARIAN,
    VECTORS,
    Context,
    Processor,
)
from trustgraph_base.provenance import now_iso
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.rdf.terms import check_iri
from trustgraph_base.schema import (
    CollectionDeleted,
    DocumentInfo,
    DocumentLoaded,
    DocumentMetadata,
    ExplainRequest,
    IngestEvent,
    LibrarianRequest,
    LibrarianResponse,
    Metadata,
    VectorRequest,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.librarian.answers import trace_text
from trustgraph_flow.librarian.store import LibrarianStore, Scope, StoreError

log = logging.getLogger(__name__)


class Settings(ProcessorSettings):
    max_content_bytes: int = 3 * 1024 * 1024
    """Most bytes in one get-content reply (fits a Pulsar message)."""
    removal_timeout: float = 30.0
    """Seconds a document removal may take."""


@dataclass(frozen=True)
class State:
    """The document store, and one lock per upload in progress."""

    store: LibrarianStore
    locks: dict[tuple[Scope, str], asyncio.Lock] = field(default_factory=dict)


Ctx = Context[Settings, State]
proc: Processor[Settings, State] = Processor("librarian", Settings)


@proc.lifespan
async def open_store(ctx: Context[Settings]) -> AsyncIterator[State]:
    store = LibrarianStore(Path(ctx.settings.data_dir) / "librarian")
    try:
        yield State(store)
    finally:
        store.close()


def _store(ctx: Ctx) -> LibrarianStore:
    return ctx.state.store


@proc.service(LIBRARIAN)
async def librarian(req: LibrarianRequest, ctx: Ctx) -> LibrarianResponse:
    """Dispatch one librarian operation; store refusals become ``ServiceError``."""
    scope = Scope(req.user, req.collection)
    try:
        if req.operation == "add-document":
            return await _add(req, scope, ctx)
        if req.operation == "get-document":
            info = _store(ctx).require(scope, _named(req, "get-document"))
            return LibrarianResponse(document=info, document_metadata=metadata_of(info))
        if req.operation in PROCESSING_OPERATIONS:
            return await _processing(req, scope, ctx)
        if req.operation in UPLOAD_OPERATIONS:
            return await _chunked(req, scope, ctx)
        if req.operation in COLLECTION_OPERATIONS:
            return _collections(req, scope, ctx)
        if req.operation == "list-documents":
            docs = _store(ctx).documents(scope)
            return LibrarianResponse(
                documents=docs, document_metadatas=[metadata_of(d) for d in docs]
            )
        if req.operation == "remove-document":
            return await _remove(req, scope, ctx)
        if req.operation == "get-content":
            return await _get_content(req, scope, ctx)
        if req.operation == "get-document-content":
            return await _document_content(req, scope, ctx)
        return _put_content(req, scope, ctx)
    except StoreError as exc:
        raise ServiceError(exc.type, exc.message) from None


def metadata_of(doc: DocumentInfo) -> DocumentMetadata:
    """TrustGraph's view of a stored document (``document-metadata``)."""
    when = int(datetime.fromisoformat(doc.time.replace("Z", "+00:00")).timestamp())
    return DocumentMetadata(
        id=doc.id,
        time=when,
        kind=doc.mime_type,
        title=doc.title,
        comments=doc.comments,
        metadata=doc.metadata,
        user=doc.user,
        tags=doc.tags,
    )


def _named(req: LibrarianRequest, what: str) -> str:
    """The document a request names (``document-id``; ``id`` is still read), as a checked URI."""
    name = req.document_id or req.id
    if not name:
        raise ServiceError(ErrorType.BAD_REQUEST, f"{what} needs a document-id")
    return _document(name)


def _document(name: str) -> str:
    doc = document_uri(name)
    try:
        check_iri(doc)  # it names the document in every provenance triple
    except ValueError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"bad document id {name!r}: {exc}") from None
    return doc


async def _add(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """``add-document``: a whole document (``document-metadata``, ``content``), ``stored``."""
    meta = _metadata(req)
    doc = _document(meta.id)
    await _part(scope, ctx, doc, 0, _b64(req.content, "content"), begin=_new_info(req, meta, doc))
    return await _part(scope, ctx, doc, 1, b"", final=True)


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
    store = _store(ctx)
    lock = ctx.state.locks.setdefault((scope, doc), asyncio.Lock())
    async with lock:
        if begin is not None:
            store.begin_upload(begin)
        await asyncio.to_thread(store.append_part, scope, doc, part, data)
        if not final:
            return LibrarianResponse(document=store.require(scope, doc))
        info = await asyncio.to_thread(store.finish_upload, scope, doc)
    ctx.state.locks.pop((scope, doc), None)
    log.info("stored %s (%d bytes) for %s/%s", doc, info.size, scope.user, scope.collection)
    return LibrarianResponse(document=info, document_metadata=metadata_of(info))


UPLOAD_OPERATIONS = frozenset({"begin-upload", "upload-chunk", "complete-upload", "abort-upload"})
# Part size answered to begin-upload: its base64 must fit the gateway's 4 MiB request limit.
UPLOAD_PART = 2 * 1024 * 1024


async def _chunked(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """TrustGraph's chunked upload: begin, chunks in order (``chunk-index`` n is store part
    n + 1, part 0 holding no bytes), complete; or abort."""
    store = _store(ctx)
    if req.operation == "begin-upload":
        meta = _metadata(req)
        doc = _document(meta.id)
        started = await _part(scope, ctx, doc, 0, b"", begin=_new_info(req, meta, doc))
        upload_id = str(uuid.uuid4())
        store.name_upload(scope, doc, upload_id)
        return LibrarianResponse(
            document=started.document,
            upload_id=upload_id,
            upload_chunk_size=UPLOAD_PART,
            total_chunks=max(1, -(-req.total_size // UPLOAD_PART)),
        )
    if not req.upload_id:
        raise ServiceError(ErrorType.BAD_REQUEST, f"{req.operation} needs an upload-id")
    info = store.upload(scope, req.upload_id)
    if req.operation == "abort-upload":
        store.remove(scope, info.id)
        return LibrarianResponse(document=info)
    expected = store.next_part(scope, info.id) - 1  # the chunk-index it waits for
    if req.operation == "upload-chunk":
        if req.chunk_index != expected:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"upload {req.upload_id!r}: expected chunk-index {expected}, "
                f"got {req.chunk_index} (chunks go in order)",
            )
        data = _b64(req.content, "content")
        return await _part(scope, ctx, info.id, req.chunk_index + 1, data)
    return await _part(scope, ctx, info.id, expected + 1, b"", final=True)


PROCESSING_OPERATIONS = frozenset({"add-processing", "list-processing", "remove-processing"})
COLLECTION_OPERATIONS = frozenset({"list-collections", "update-collection"})


async def _processing(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """TrustGraph's processing records: ``add-processing`` runs the ingestion of a stored
    document into the record's collection (a copy of it when that is another collection)."""
    store = _store(ctx)
    if req.operation == "list-processing":
        return LibrarianResponse(processing_metadatas=store.processing(scope))
    if req.operation == "remove-processing":
        if not req.processing_id:
            raise ServiceError(ErrorType.BAD_REQUEST, "remove-processing needs a processing-id")
        store.remove_processing(scope, req.processing_id)
        return LibrarianResponse()
    record = req.processing_metadata
    if record is None:
        raise ServiceError(ErrorType.BAD_REQUEST, "add-processing needs processing-metadata")
    doc = _document(record.document_id)
    target = Scope(scope.user, record.collection)
    store.require(scope, doc)
    record = record.model_copy(
        update={"document_id": doc, "user": scope.user, "time": record.time or int(time.time())}
    )
    store.add_processing(scope, record)
    try:
        if target == scope:
            info = store.start_processing(scope, doc)
        else:
            copied = await asyncio.to_thread(store.copy, scope, target, doc, now_iso())
            info = store.start_processing(target, copied.id)
    except StoreError:
        store.remove_processing(scope, record.id)
        raise
    meta = Metadata(id=doc, user=target.user, collection=target.collection)
    await ctx.publish(DOCUMENT_LOADED, DocumentLoaded(metadata=meta, document=info))
    log.info("processing %s into %s/%s (%s)", doc, target.user, target.collection, record.id)
    return LibrarianResponse(document=info, processing_metadatas=[record])


def _collections(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    store = _store(ctx)
    if req.operation == "list-collections":
        return LibrarianResponse(collections=store.collections(scope.user))
    described = store.describe_collection(
        scope, name=req.name, description=req.description, tags=req.tags
    )
    return LibrarianResponse(collections=[described])


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


def _b64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ServiceError(ErrorType.BAD_REQUEST, f"{what} is not valid base64") from None


async def _remove(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """Ask the vector index and the store to forget the document, then drop our own data.

    Downstream removals go first so that an unreachable service leaves the document
    listed (and the removal can be retried) rather than orphaning its vectors.
    """
    store = _store(ctx)
    doc = _named(req, "remove-document")
    info = store.require(scope, doc)
    timeout = ctx.settings.removal_timeout
    where = {"user": scope.user, "collection": scope.collection}
    try:
        for kind in ("chunk", "entity"):
            await ctx.client(VECTORS).request(
                VectorRequest(operation="delete-document", document=doc, kind=kind, **where),
                timeout=timeout,
            )
    except (RequestTimeout, ServiceError) as exc:
        raise ServiceError(
            ErrorType.UNAVAILABLE,
            f"could not remove {doc!r} from the vector index ({exc}); retry later",
        ) from None
    removal = None
    try:
        answer = await ctx.client(EXPLAIN).request(
            ExplainRequest(
                operation="delete-document",
                id=doc,
                purge_traces=req.purge_traces,
                reason=req.reason,
                **where,
            ),
            timeout=timeout,
        )
        removal = answer.removal
    except RequestTimeout as exc:
        raise ServiceError(
            ErrorType.UNAVAILABLE,
            f"could not remove {doc!r} from the graph store ({exc}); retry later",
        ) from None
    except ServiceError as exc:
        # The store may not know the document (nothing was extracted): nothing to remove.
        log.warning("store did not remove %s: %s", doc, exc)
    await asyncio.to_thread(store.remove, scope, doc)
    return LibrarianResponse(document=info, removal=removal)


async def _get_content(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """Content of one URI (a range of it), or of every URI in ``ids``.

    A batch leaves out unknown URIs, and stops once the reply would exceed
    ``max_content_bytes`` (so it always fits one message); ``total`` counts what it holds.
    """
    if not req.ids:
        return await _content_of(req.id, req.offset, req.length, scope, ctx)
    contents: dict[str, str] = {}
    budget = ctx.settings.max_content_bytes * 4 // 3  # base64 characters
    for uri in dict.fromkeys(req.ids):
        try:
            resp = await _content_of(uri, 0, None, scope, ctx)
        except StoreError:
            continue
        budget -= len(resp.content)
        if budget < 0:
            break
        contents[uri] = resp.content
    return LibrarianResponse(contents=contents, total=len(contents))


async def _document_content(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """TrustGraph's ``get-document-content``: the whole content of a document, page or chunk,
    or the text of an answer or observation that a trace names with ``tg:document``."""
    doc = req.document_id or req.id
    if not doc:
        raise ServiceError(ErrorType.BAD_REQUEST, "get-document-content needs a document-id")
    try:
        return await _content_of(doc, 0, None, scope, ctx)
    except StoreError as exc:
        if exc.type != ErrorType.NOT_FOUND:
            raise
        missing = exc
    found = await trace_text(ctx, scope, doc)
    if found is None:
        raise missing
    data = found.encode()
    return LibrarianResponse(content=base64.b64encode(data).decode(), total=len(data))


async def _content_of(
    uri: str, offset: int, length: int | None, scope: Scope, ctx: Ctx
) -> LibrarianResponse:
    store = _store(ctx)
    info = store.get(scope, document_uri(uri)) if uri else None
    if info is not None:
        if info.status == "uploading":
            raise StoreError(ErrorType.NOT_READY, f"document {info.id!r} is still uploading")
        if offset > info.size:
            raise StoreError(
                ErrorType.BAD_REQUEST,
                f"offset {offset} is past the end of {info.id!r} ({info.size} bytes)",
            )
        cap = ctx.settings.max_content_bytes
        want = min(cap, length if length is not None else cap)
        data = await asyncio.to_thread(store.read_range, scope, info.id, offset, want)
        return LibrarianResponse(content=base64.b64encode(data).decode(), total=info.size)
    text = store.text(scope, uri)
    if text is None:
        raise StoreError(
            ErrorType.NOT_FOUND, f"no content for {uri!r} in collection {scope.collection!r}"
        )
    if offset > len(text):
        raise StoreError(
            ErrorType.BAD_REQUEST,
            f"offset {offset} is past the end of {uri!r} ({len(text)} characters)",
        )
    end = len(text) if length is None else offset + length
    piece = text[offset:end]
    return LibrarianResponse(content=base64.b64encode(piece.encode()).decode(), total=len(text))


def _put_content(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    store = _store(ctx)
    if req.spans:
        store.put_spans(scope, req.spans)
        return LibrarianResponse(total=len(req.spans))
    if not req.id:
        raise ServiceError(ErrorType.BAD_REQUEST, "put-content needs an id or spans")
    try:
        text = _b64(req.content, "content").decode()
    except UnicodeDecodeError:
        raise ServiceError(ErrorType.BAD_REQUEST, "put-content text is not UTF-8") from None
    store.put_text(scope, req.id, text)
    return LibrarianResponse(total=len(text))


@proc.consumer(COLLECTION_DELETED)
async def on_collection_deleted(event: CollectionDeleted, ctx: Ctx) -> None:
    """The collection's store is gone (explain delete-collection): its documents go too."""
    scope = Scope(event.user, event.collection)
    removed = await asyncio.to_thread(_store(ctx).remove_collection, scope)
    log.info(
        "collection %s/%s deleted: removed %d documents", scope.user, scope.collection, removed
    )


@proc.consumer(INGEST_EVENTS)
async def on_event(event: IngestEvent, ctx: Ctx) -> None:
    """Update a document's status and progress counters from a pipeline event."""
    info = _store(ctx).record_event(event)
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


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
