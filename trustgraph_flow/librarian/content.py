"""Content by URI: a document's bytes, a page's or chunk's text, and the texts the decoder
and chunker put."""

from __future__ import annotations

import asyncio
import base64

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.schema import LibrarianRequest, LibrarianResponse
from trustgraph_flow.librarian.answers import trace_text
from trustgraph_flow.librarian.state import Ctx, b64
from trustgraph_flow.librarian.store import LibrarianStore, Scope, StoreError


async def get_content(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """Content of one URI (a range of it), or of every URI in ``ids``.

    A batch leaves out unknown URIs, and stops once the reply would exceed
    ``max_content_bytes`` (so it always fits one message); ``total`` counts what it holds.
    A batch is read in one trip to a worker thread, not one per URI (GraphRAG's chunks).
    """
    store, cap = ctx.state.store, ctx.settings.max_content_bytes
    if not req.ids:
        return await asyncio.to_thread(
            content_of, store, cap, req.id, req.offset, req.length, scope
        )
    return await asyncio.to_thread(_contents, store, cap, req.ids, scope)


def _contents(store: LibrarianStore, cap: int, ids: list[str], scope: Scope) -> LibrarianResponse:
    contents: dict[str, str] = {}
    budget = cap * 4 // 3  # base64 characters
    for uri in dict.fromkeys(ids):
        try:
            resp = content_of(store, cap, uri, 0, None, scope)
        except StoreError:
            continue
        budget -= len(resp.content)
        if budget < 0:
            break
        contents[uri] = resp.content
    return LibrarianResponse(contents=contents, total=len(contents))


async def document_content(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """TrustGraph's ``get-document-content``: the whole content of a document, page or chunk,
    or the text of an answer or observation that a trace names with ``tg:document``."""
    doc = req.document_id or req.id
    if not doc:
        raise ServiceError(ErrorType.BAD_REQUEST, "get-document-content needs a document-id")
    try:
        store, cap = ctx.state.store, ctx.settings.max_content_bytes
        return await asyncio.to_thread(content_of, store, cap, doc, 0, None, scope)
    except StoreError as exc:
        if exc.type != ErrorType.NOT_FOUND:
            raise
        missing = exc
    found = await trace_text(ctx, scope, doc)
    if found is None:
        raise missing
    data = found.encode()
    return LibrarianResponse(content=base64.b64encode(data).decode(), total=len(data))


def content_of(
    store: LibrarianStore, cap: int, uri: str, offset: int, length: int | None, scope: Scope
) -> LibrarianResponse:
    """The content ``uri`` names, from ``offset`` (bytes of a document, characters of a
    text), at most ``length`` of it (and of ``cap`` bytes); it reads the database (a worker
    thread's call)."""
    info = store.documents.get(scope, document_uri(uri)) if uri else None
    if info is not None:
        if info.status == "uploading":
            raise StoreError(ErrorType.NOT_READY, f"document {info.id!r} is still uploading")
        if offset > info.size:
            raise StoreError(
                ErrorType.BAD_REQUEST,
                f"offset {offset} is past the end of {info.id!r} ({info.size} bytes)",
            )
        want = min(cap, length if length is not None else cap)
        data = store.documents.read_range(scope, info.id, offset, want)
        return LibrarianResponse(content=base64.b64encode(data).decode(), total=info.size)
    want = cap if length is None else min(cap, length)  # characters: at least a byte each
    found = store.texts.read(scope, uri, offset, want)
    if found is None:
        raise StoreError(
            ErrorType.NOT_FOUND, f"no content for {uri!r} in collection {scope.collection!r}"
        )
    piece, total = found
    if offset > total:
        raise StoreError(
            ErrorType.BAD_REQUEST,
            f"offset {offset} is past the end of {uri!r} ({total} characters)",
        )
    data = piece.encode()
    if len(data) > cap:  # whole characters only: a reader goes on from its length
        data = data[:cap].decode(errors="ignore").encode()
    return LibrarianResponse(content=base64.b64encode(data).decode(), total=total)


def put_content(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """``put-content``: a page's text (``id``, ``content``; a part of it from ``offset``, which
    is the length stored so far) or a page's chunk ``spans``; ``total``: the text's length,
    or how many spans."""
    texts = ctx.state.store.texts
    if req.spans:
        texts.put_spans(scope, req.spans)
        return LibrarianResponse(total=len(req.spans))
    if not req.id:
        raise ServiceError(ErrorType.BAD_REQUEST, "put-content needs an id or spans")
    try:
        text = b64(req.content, "content").decode()
    except UnicodeDecodeError:
        raise ServiceError(ErrorType.BAD_REQUEST, "put-content text is not UTF-8") from None
    return LibrarianResponse(total=texts.put_text(scope, req.id, text, req.offset))
