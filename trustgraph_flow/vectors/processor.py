"""The vector index service: upsert, query, delete-document and delete-collection.

Each (user, collection) has a folder under ``<data_dir>/vectors/`` with one index file
per kind (``chunk``, ``entity``); a query only ever sees its own user, collection and
kind. Indexes load lazily and stay in memory; every change is persisted before the reply.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from pathlib import Path

from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import COLLECTION_DELETED, VECTORS, Context, Processor
from trustgraph_base.schema import CollectionDeleted, VectorRequest, VectorResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.vectors.index import VectorIndex, remove_dir, scope_dir

log = logging.getLogger(__name__)

KINDS = ("chunk", "entity")


class VectorStore:
    """The open indexes, one lock per (user, collection) so changes never interleave."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._open: dict[tuple[str, str, str], VectorIndex] = {}
        self._locks: defaultdict[tuple[str, str], asyncio.Lock] = defaultdict(asyncio.Lock)

    async def _index(self, user: str, collection: str, kind: str) -> VectorIndex:
        key = (user, collection, kind)
        found = self._open.get(key)
        if found is None:
            path = scope_dir(self.root, user, collection) / f"{kind}.vec"
            found = await asyncio.to_thread(VectorIndex, path)
            self._open[key] = found
        return found

    async def _persist(self, key: tuple[str, str, str], index: VectorIndex) -> None:
        try:
            await asyncio.to_thread(index.save)
        except BaseException:
            # memory may now differ from disk: reload from disk on next use
            self._open.pop(key, None)
            raise

    async def handle(self, req: VectorRequest) -> VectorResponse:
        """Carry out one request under its collection's lock."""
        async with self._locks[(req.user, req.collection)]:
            if req.operation == "delete-collection":
                return VectorResponse(count=await self._drop(req.user, req.collection))
            key = (req.user, req.collection, req.kind)
            index = await self._index(*key)
            if req.operation == "query":
                return VectorResponse(matches=index.query(req.vector, req.limit), count=len(index))
            if req.operation == "upsert":
                count = index.upsert(req.items)
            else:
                if not req.document:
                    raise ServiceError("bad-request", "delete-document needs 'document'")
                count = index.delete_document(req.document)
            if count:
                await self._persist(key, index)
            return VectorResponse(count=count)

    async def _drop(self, user: str, collection: str) -> int:
        removed = 0
        for kind in KINDS:
            removed += len(await self._index(user, collection, kind))
            self._open.pop((user, collection, kind), None)
        await asyncio.to_thread(remove_dir, scope_dir(self.root, user, collection))
        return removed


proc: Processor[ProcessorSettings] = Processor("vectors", ProcessorSettings)


@proc.on_start
async def open_store(ctx: Context[ProcessorSettings]) -> None:
    root = Path(ctx.settings.data_dir) / "vectors"
    root.mkdir(parents=True, exist_ok=True)
    ctx.state["store"] = VectorStore(root)
    log.info("vector indexes under %s", root)


@proc.service(VECTORS)
async def vectors(req: VectorRequest, ctx: Context[ProcessorSettings]) -> VectorResponse:
    """Upsert, query (cosine top-k) or delete within one user's collection and kind."""
    store: VectorStore = ctx.state["store"]
    return await store.handle(req)


@proc.consumer(COLLECTION_DELETED, CollectionDeleted)
async def on_collection_deleted(event: CollectionDeleted, ctx: Context[ProcessorSettings]) -> None:
    """The collection's store is gone (explain delete-collection): its vectors go too."""
    store: VectorStore = ctx.state["store"]
    gone = VectorRequest(operation="delete-collection", user=event.user, collection=event.collection)
    await store.handle(gone)


def main() -> None:
    """Console-script entry point (``tg-proc-vectors``)."""
    proc.main()


if __name__ == "__main__":
    main()
