"""TrustGraph's ``/api/v1/flow/{flow}/import/document-embeddings`` socket (``tg-load-doc-embeds``)
and its ``export/document-embeddings`` socket (``tg-save-doc-embeds``, at the end).

Each text frame is ``{"metadata": {"id", "metadata", "collection", …}, "chunks": [{"chunk_id":
IRI, "vectors": [...]}, …]}``: the vectors the reference's document-embeddings store keeps for
a document's chunks. Each chunk's vector is upserted as that chunk's ``chunk`` vector in the
caller's collection (the key's user; ``document`` = the frame's metadata id, so it goes with
that document), through the vectors service: the gateway's own request, since clients may not
write vectors. ``vectors`` is one vector, or (as older references sent it) a list of vectors of
which the first is kept: our index holds one vector per chunk id. The reference's frame carries
no chunk text, so an imported chunk is found by ``document-embeddings`` (its id and score) but
brings no text of its own. A bad frame is answered with an error frame and writes nothing; the
socket stays open.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import VECTORS
from trustgraph_base.rdf.terms import check_iri
from trustgraph_base.schema import (
    DEFAULT_COLLECTION,
    DEFAULT_USER,
    VectorItem,
    VectorRequest,
    VectorResponse,
)
from trustgraph_base.schema.llm import vector_of
from trustgraph_flow.gateway.auth import Principal, authenticate
from trustgraph_flow.gateway.bulk import serve_import
from trustgraph_flow.gateway.dispatch import DISPATCHER
from trustgraph_flow.gateway.failure import as_failure
from trustgraph_flow.gateway.revocation import OPEN_SOCKETS

log = logging.getLogger(__name__)

MAX_CHUNKS = 1000  # chunks in one frame (one upsert); a larger frame is refused, not split
SHAPE = "a document-embeddings frame is {'metadata': {...}, 'chunks': [{'chunk_id', 'vectors'}]}"


def _vector(chunk: dict[str, Any]) -> list[float]:
    """The chunk's vector: ``vectors`` as one list of numbers, or the first of a list of them."""
    found = vector_of(chunk.get("vectors"))
    if found is None:
        raise ServiceError(
            ErrorType.BAD_FRAME,
            "import/document-embeddings: each chunk's 'vectors' is a non-empty list of numbers",
        )
    return found


def read_frame(frame: Any) -> tuple[dict[str, str], str, list[tuple[str, list[float]]]]:
    """The frame's scope, document id and (chunk id, vector) pairs; ``ServiceError`` if malformed."""
    if not isinstance(frame, dict) or not isinstance(frame.get("chunks"), list):
        raise ServiceError(ErrorType.BAD_FRAME, SHAPE)
    if len(frame["chunks"]) > MAX_CHUNKS:
        raise ServiceError(
            ErrorType.BAD_FRAME,
            f"import/document-embeddings: at most {MAX_CHUNKS} chunks in one frame, "
            f"not {len(frame['chunks'])}",
        )
    given = frame.get("metadata")
    meta: dict[str, Any] = given if isinstance(given, dict) else {}
    scope = {k: meta[k] for k in ("user", "collection") if isinstance(meta.get(k), str) and meta[k]}
    chunks: list[tuple[str, list[float]]] = []
    for chunk in frame["chunks"]:
        if not isinstance(chunk, dict) or not isinstance(chunk.get("chunk_id"), str):
            raise ServiceError(ErrorType.BAD_FRAME, SHAPE)
        try:
            check_iri(chunk["chunk_id"])
        except ValueError as exc:
            raise ServiceError(ErrorType.BAD_FRAME, f"import/document-embeddings: {exc}") from None
        chunks.append((chunk["chunk_id"], _vector(chunk)))
    document = meta.get("id")
    return scope, document if isinstance(document, str) else "", chunks


class ChunkVectorWriter:
    """Upserts imported chunk vectors (through the dispatcher's client of the vectors service)."""

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher

    async def write(self, principal: Principal, frame: Any) -> int:
        """Store one frame's chunk vectors; how many chunks it held. ``ServiceError`` when refused."""
        scope, document, chunks = read_frame(frame)
        scoped = principal.scope(scope)
        if not chunks:
            return 0
        items = [VectorItem(id=cid, vector=vec, document=document) for cid, vec in chunks]
        await self.dispatcher.call(
            VECTORS,
            VectorRequest(
                operation="upsert",
                kind="chunk",
                items=items,
                user=scoped.get("user", DEFAULT_USER),
                collection=scoped.get("collection", DEFAULT_COLLECTION),
            ),
        )
        return len(chunks)


async def import_document_embeddings_handler(request: web.Request) -> web.StreamResponse:
    writer = ChunkVectorWriter(request.app[DISPATCHER])
    return await serve_import(request, writer.write, "chunk vectors")


EXPORT_PAGE = 1000  # chunk vectors asked of the vectors service per page
EXPORT_LIMIT = 1_000_000  # the most chunk vectors one export sends


def frames(collection: str, items: list[VectorItem]) -> list[dict[str, Any]]:
    """One page's chunk vectors as the reference's frames: one per document, in page order."""
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_doc.setdefault(item.document, []).append({"chunk_id": item.id, "vectors": item.vector})
    return [
        {"metadata": {"id": doc, "metadata": [], "collection": collection}, "chunks": chunks}
        for doc, chunks in by_doc.items()
    ]


async def export_document_embeddings_handler(request: web.Request) -> web.StreamResponse:
    """``/api/v1/flow/{flow}/export/document-embeddings`` (``tg-save-doc-embeds``): the chunk
    vectors of the caller's collection (``?collection=``, default ``default``) that exist, one
    frame per document and page, read a page at a time; then the socket stays open, sending
    nothing more, until the client closes it (the reference's socket is a live tap of vectors
    being written, which the official command reads until interrupted; chunks written after the
    socket opened are not sent)."""
    dispatcher: Any = request.app[DISPATCHER]  # its ``call`` is typed for any service's spec
    try:
        principal = authenticate(request)
        ask = {k: request.query[k] for k in ("user", "collection") if request.query.get(k)}
        scoped = principal.scope(ask)
    except Exception as exc:
        failure = as_failure(exc)
        return web.json_response(failure.body(), status=failure.status)
    user = scoped.get("user", DEFAULT_USER)
    collection = scoped.get("collection", DEFAULT_COLLECTION)
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    sent, after = 0, ""
    with request.app[OPEN_SOCKETS].held(ws, principal), contextlib.suppress(ConnectionError):
        try:
            while sent < EXPORT_LIMIT:
                reply = await dispatcher.call(
                    VECTORS,
                    VectorRequest(
                        operation="list", kind="chunk", user=user, collection=collection,
                        after=after, limit=min(EXPORT_PAGE, EXPORT_LIMIT - sent),
                    ),
                )  # fmt: skip
                assert isinstance(reply, VectorResponse)
                for frame in frames(collection, reply.items):
                    await ws.send_str(json.dumps(frame))  # closed (key revoked): raises
                sent += len(reply.items)
                after = reply.after
                if not after:
                    break
        except ConnectionError:
            raise
        except Exception as exc:
            await ws.send_str(json.dumps(as_failure(exc).body()))
        log.info("exported %d chunk vectors", sent)
        async for _msg in ws:  # what the client sends is ignored; it ends the socket by closing
            pass
    return ws
