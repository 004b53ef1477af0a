"""The store processor: writes the triples-store topic and serves triples, SPARQL and explain.

Every store operation runs on one worker thread: pyoxigraph and sqlite calls never
block the event loop, and the LRU of open stores is touched by one thread only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pyoxigraph as ox
from pydantic import BaseModel

from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import (
    EXPLAIN,
    SPARQL,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Context,
    Processor,
)
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.schema.core import Triples
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_base.schema.store import (
    SparqlQueryRequest,
    SparqlQueryResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import encode
from trustgraph_flow.store import deletion, explain, hierarchy, query
from trustgraph_flow.store.stores import Stores
from trustgraph_flow.store.writer import write_batch

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)


class StoreSettings(ProcessorSettings):
    """Settings of the store processor."""

    open_stores: int = 32  # (user, collection) stores kept open at once


proc: Processor[StoreSettings] = Processor("store", StoreSettings)


MAX_REPLY_BYTES = 4 * 1024 * 1024  # Pulsar refuses messages over 5 MB


def checked(resp: R) -> R:
    """Refuse a reply too large to publish, naming the fix, instead of failing at the broker."""
    size = len(encode(resp))
    if size > MAX_REPLY_BYTES:
        raise ServiceError(
            "result-too-large",
            f"the result is {size / 1e6:.1f} MB, over the {MAX_REPLY_BYTES / 1e6:.1f} MB a reply may carry: lower the limit or narrow the query",
        )
    return resp


async def run(ctx: Context[StoreSettings], fn: Callable[[Stores], T]) -> T:
    """Run ``fn`` on the store thread."""
    pool: ThreadPoolExecutor = ctx.state["pool"]
    stores: Stores = ctx.state["stores"]
    return await asyncio.get_running_loop().run_in_executor(pool, fn, stores)


@proc.on_start
async def open_stores(ctx: Context[StoreSettings]) -> None:
    root = Path(ctx.settings.data_dir) / "store"
    root.mkdir(parents=True, exist_ok=True)
    ctx.state["stores"] = Stores(root, ctx.settings.open_stores)
    ctx.state["pool"] = ThreadPoolExecutor(1, thread_name_prefix="store")
    log.info("store data under %s", root)


@proc.on_stop
async def close_stores(ctx: Context[StoreSettings]) -> None:
    if "stores" in ctx.state:
        await run(ctx, lambda stores: stores.close())
        ctx.state["pool"].shutdown(wait=True)


@proc.batch_consumer(TRIPLES_STORE, Triples, max_batch=1024, max_wait=0.02)
async def store_triples(batch: list[Triples], ctx: Context[StoreSettings]) -> None:
    """Commit the batch before returning: the runtime acks it only afterwards."""
    started = time.perf_counter()
    report = await run(ctx, lambda stores: write_batch(stores, batch))
    log.debug("wrote %d triples from %d messages in %.1f ms", report.written, len(batch), (time.perf_counter() - started) * 1000)


@proc.service(TRIPLES_QUERY)
async def triples(req: TriplesQueryRequest, ctx: Context[StoreSettings]) -> TriplesQueryResponse:
    def go(stores: Stores) -> TriplesQueryResponse:
        handle = stores.get(req.user, req.collection)
        return checked(query.triples_query(handle.store if handle else None, req))

    return await run(ctx, go)


@proc.service(SPARQL)
async def sparql(req: SparqlQueryRequest, ctx: Context[StoreSettings]) -> SparqlQueryResponse:
    def go(stores: Stores) -> SparqlQueryResponse:
        handle = stores.get(req.user, req.collection)
        return checked(query.sparql(handle.store if handle else None, req))

    return await run(ctx, go)


def explain_op(stores: Stores, req: ExplainRequest) -> ExplainResponse:
    """One explain operation against the caller's collection."""
    if req.operation == "delete-collection":
        stores.drop(req.user, req.collection)
        return ExplainResponse()
    handle = stores.get(req.user, req.collection)
    if req.operation == "list-traces":
        return ExplainResponse(traces=explain.list_traces(handle, req.limit))
    if not req.id:
        raise ServiceError("bad-request", f"operation {req.operation!r} needs an id")
    if req.operation == "get-trace":
        return ExplainResponse(trace=explain.get_trace(handle, req.id, req.include_provenance))
    if req.operation == "delete-trace":
        explain.delete_trace(handle, req.id)
        return ExplainResponse()
    if req.operation == "delete-document":
        if handle is None or not deletion.delete_document(handle.store, doc_iri(req.id)):
            raise ServiceError("not-found", f"no document {req.id!r} in this collection")
        return ExplainResponse()
    if req.operation != "document-hierarchy":
        raise ServiceError("bad-request", f"unknown operation {req.operation!r}")
    doc = hierarchy.document_view(handle.store if handle else None, doc_iri(req.id))
    if doc is None:
        raise ServiceError("not-found", f"no document {req.id!r} in this collection")
    return ExplainResponse(document=doc)


def doc_iri(doc_id: str) -> str:
    """The document URI of an id or URI, checked as pyoxigraph would; bad-request otherwise."""
    try:
        uri = document_uri(doc_id)
        ox.NamedNode(uri)
    except ValueError as exc:
        raise ServiceError("bad-request", f"malformed document id {doc_id!r}: {exc}") from None
    return uri


@proc.service(EXPLAIN)
async def explain_service(req: ExplainRequest, ctx: Context[StoreSettings]) -> ExplainResponse:
    return await run(ctx, lambda stores: checked(explain_op(stores, req)))


def main() -> None:
    """Console-script entry point (tg-proc-store)."""
    proc.main()


if __name__ == "__main__":
    main()
