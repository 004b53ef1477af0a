"""The vector index service: upsert, query, list, delete-document and delete-collection.

The vectors live in Milvus (``trustgraph_flow.vectors.milvus``): by default Milvus Lite
under ``<data_dir>/vectors/milvus.db``, or the Milvus server named by ``vectors_uri``.
Each (user, collection, kind) is its own Milvus collection, so a query only ever sees its
own user, collection and kind. Every change is written before the reply (and the ack).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import COLLECTION_DELETED, VECTORS, Context, Processor
from trustgraph_base.schema import CollectionDeleted, VectorRequest, VectorResponse
from trustgraph_base.schema.llm import VectorKind
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.vectors.listing import page
from trustgraph_flow.vectors.milvus import MilvusVectors

log = logging.getLogger(__name__)


class Settings(ProcessorSettings):
    """Where the vectors are kept."""

    vectors_uri: str = ""
    """A Milvus server, e.g. http://milvus:19530 (empty: Milvus Lite under <data-dir>/vectors)."""


class VectorStore:
    """The Milvus indexes, one lock per (user, collection) so its changes never interleave,
    and the loads removed: a removal records them under the lock before it deletes, and an
    upsert of one of them finds the record under the lock, so none is written after it."""

    def __init__(self, milvus: MilvusVectors, removed: RemovedLoads | None = None) -> None:
        self.milvus = milvus
        self.removed = removed or RemovedLoads()
        self._locks: defaultdict[tuple[str, str], asyncio.Lock] = defaultdict(asyncio.Lock)

    async def handle(self, req: VectorRequest) -> VectorResponse:
        """Carry out one request under its collection's lock (blocking calls in a thread)."""
        m, scope = self.milvus, (req.user, req.collection)
        async with self._locks[scope]:
            if req.operation == "delete-collection":
                upto = time.time_ns() if req.upto is None else req.upto
                await asyncio.to_thread(self.removed.add, *scope, "", upto)
                return VectorResponse(count=await asyncio.to_thread(m.drop, *scope))
            if req.operation == "query":
                wanted: list[tuple[VectorKind, int, bool, str | None]]
                wanted = [(req.kind, req.limit, req.texts, None)]
                wanted += [
                    (q.kind, q.limit, req.texts if q.texts is None else q.texts,
                     req.words if q.by_words else None)
                    for q in req.also
                ]  # fmt: skip
                (matches, size), *also = await asyncio.to_thread(
                    lambda: [m.query(*scope, k, req.vector, n, t, w) for k, n, t, w in wanted]
                )
                return VectorResponse(matches=matches, count=size, also=[a for a, _ in also])
            if req.operation == "list":
                items, after = await asyncio.to_thread(
                    page, m, *scope, req.kind, req.after, req.limit
                )
                return VectorResponse(items=items, count=len(items), after=after)
            if req.operation == "upsert":
                if any(
                    self.removed.gone(*scope, d, req.load) for d in {i.document for i in req.items}
                ):
                    return VectorResponse(count=0)  # a removed load's, still in flight: dropped
                return VectorResponse(
                    count=await asyncio.to_thread(m.upsert, *scope, req.kind, req.items)
                )
            if not req.document:
                raise ServiceError(ErrorType.BAD_REQUEST, "delete-document needs 'document'")
            if req.upto is not None:
                await asyncio.to_thread(self.removed.add, *scope, req.document, req.upto)
            return VectorResponse(
                count=await asyncio.to_thread(m.delete_document, *scope, req.kind, req.document)
            )


proc: Processor[Settings, VectorStore] = Processor("vectors", Settings)


@proc.lifespan
async def open_store(ctx: Context[Settings]) -> AsyncIterator[VectorStore]:
    uri = ctx.settings.vectors_uri
    milvus = await asyncio.to_thread(MilvusVectors.open, uri, Path(ctx.settings.data_dir))
    log.info("vectors in %s", uri or f"Milvus Lite at {milvus.uri}")
    removed = RemovedLoads(Path(ctx.settings.data_dir) / "vectors" / "removed_loads.db")
    try:
        yield VectorStore(milvus, removed)
    finally:
        removed.close()
        await asyncio.to_thread(milvus.close)


@proc.service(VECTORS)
async def vectors(req: VectorRequest, ctx: Context[Settings, VectorStore]) -> VectorResponse:
    """Upsert, query (cosine top-k) or delete within one user's collection and kind."""
    return await ctx.state.handle(req)


@proc.consumer(COLLECTION_DELETED)
async def on_collection_deleted(
    event: CollectionDeleted, ctx: Context[Settings, VectorStore]
) -> None:
    """The collection's store is gone (explain delete-collection): its vectors go too."""
    gone = VectorRequest(
        operation="delete-collection",
        user=event.user,
        collection=event.collection,
        upto=event.upto,
    )
    await ctx.state.handle(gone)


def main() -> None:
    """Console-script entry point (``tg-proc-vectors``)."""
    proc.main()


if __name__ == "__main__":
    main()
