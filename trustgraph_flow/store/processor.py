"""The store processor: writes the triples-store topic and serves triples, SPARQL and explain.

Writes (batches, deletions) run on one writer thread; reads (pattern queries, SPARQL,
trace and hierarchy views) on a small pool of reader threads, so a slow query never
delays a write. pyoxigraph stores take concurrent readers; each thread has its own
sqlite connection (WAL); ``Stores`` leases handles so none is closed while in use.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import pyoxigraph as ox
from pydantic import BaseModel, Field, field_validator

from trustgraph_base import gcpause
from trustgraph_base.durations import parse_duration
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import (
    COLLECTION_DELETED,
    EXPLAIN,
    SPARQL,
    TRIPLES_QUERY,
    TRIPLES_STORE_INTAKE,
    Context,
    Processor,
)
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.schema.core import StoreTriples, Triples
from trustgraph_base.schema.documents import CollectionDeleted
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse, TraceView
from trustgraph_base.schema.store import (
    SparqlQueryRequest,
    SparqlQueryResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import encode, keep_encoding
from trustgraph_flow.store.backends.embedded.snapshots import Snapshots
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.server.remote import open_server
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.governance import deletion, documents, erasure, retention, verify
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.sparql.check import fits_server
from trustgraph_flow.store.sparql.client import SparqlServer, StoreUnavailable
from trustgraph_flow.store.sparql.fair import FairGate
from trustgraph_flow.store.sparql.pool import SparqlPool
from trustgraph_flow.store.views import diff, explain, export, hierarchy, lineage, query, removals
from trustgraph_flow.store.writer import WriteReport, write_batch

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)


class StoreSettings(ProcessorSettings):
    """Settings of the store processor."""

    open_stores: int = 32
    """(user, collection) stores kept open at once."""
    read_threads: int = Field(default=2, ge=1)
    """Threads serving queries."""
    sparql_timeout: float = Field(default=30.0, gt=0)
    """Seconds after which a SPARQL query is stopped (its worker killed) and answers 'timeout'."""
    sparql_workers: int = Field(default=2, ge=1)
    """Processes running SPARQL queries (each killed at the time limit)."""
    server_max_patterns: int = Field(default=500, ge=0)
    """With store_uri: queries of more triple patterns and filters than this are refused
    before they reach the server (oxigraph serve 0.5 aborts on ~650); 0: no bound."""
    store_uri: str = ""
    """A SPARQL 1.1 server holding every collection, e.g. http://oxigraph:7878 (oxigraph serve)
    or http://fuseki:3030/tg (a Fuseki 6 dataset); empty: embedded pyoxigraph under <data-dir>/store."""
    retention: str = ""
    """Purge traces older than this by itself, e.g. 30d (empty: keep them all)."""
    retention_interval: float = Field(default=3600.0, gt=0)
    """Seconds between retention passes."""
    signing: bool = True
    """Sign each trace when it ends and keep the append-only log (docs/audit.md)."""
    signing_key: str = ""
    """The Ed25519 private key (PEM, mode 0600); empty: <data-dir>/signing/key.pem, made at first start."""
    signing_public: str = ""
    """A folder of trusted public keys (*.pem, every key ever used); empty: <data-dir>/signing/public."""
    log_chain: str = Field(default="", pattern=r"^[A-Za-z0-9_-]{0,64}$")
    """This writer's chain in each collection's log; empty: 'local' embedded, a new one per process on a server."""

    @field_validator("store_uri")
    @classmethod
    def _server(cls, value: str) -> str:
        if value.strip():
            SparqlServer(
                value.strip()
            )  # not an http(s) URL: stops the processor at start, naming it
        return value.strip()

    @field_validator("retention")
    @classmethod
    def _period(cls, value: str) -> str:
        if value.strip():
            parse_duration(value)  # a bad period stops the processor at start, naming it
        return value.strip()


@dataclass(frozen=True)
class State:
    """The open stores (embedded) or the server's (``store_uri``), and the threads and
    worker processes that work on them."""

    stores: Backend
    writer: ThreadPoolExecutor  # one thread: every write of this process, in order
    readers: ThreadPoolExecutor
    # SPARQL has threads and (embedded) worker processes of its own: a runaway query never
    # holds up a triples or explain read, and is stopped at its time limit.
    sparql: ThreadPoolExecutor
    sparql_pool: SparqlPool  # checks every query; runs it too when embedded
    gate: FairGate  # users take turns at the SPARQL threads and workers
    snapshots: Snapshots | None = None  # embedded only
    server: SparqlServer | None = None  # the store server (server backend only)
    seal: Seal | None = None  # signs ended traces (setting ``signing``)
    server_max_patterns: int = 0  # the largest query sent to it (0: any)

    async def write(self, fn: Callable[[Backend], T]) -> T:
        """Run ``fn`` on the writer thread (SPARQL snapshots are taken again after it)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.writer, fn, self.stores)
        finally:
            if self.snapshots is not None:
                self.snapshots.written()

    async def read(self, fn: Callable[[Backend], T]) -> T:
        """Run ``fn`` on a reader thread (a store server that cannot be reached answers
        ``store-unavailable``)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.readers, fn, self.stores)
        except StoreUnavailable as exc:
            raise ServiceError(ErrorType.STORE_UNAVAILABLE, str(exc)) from None


Ctx = Context[StoreSettings, State]
proc: Processor[StoreSettings, State] = Processor("store", StoreSettings)


MAX_REPLY_BYTES = 4 * 1024 * 1024  # Pulsar refuses messages over 5 MB


def checked(resp: R) -> R:
    """Refuse a reply too large to publish, naming the fix, instead of failing at the broker."""
    size = len(encode(resp))
    if size > MAX_REPLY_BYTES:
        raise ServiceError(
            ErrorType.RESULT_TOO_LARGE,
            f"the result is {size / 1e6:.1f} MB, over the {MAX_REPLY_BYTES / 1e6:.1f} MB a reply may carry: lower the limit or narrow the query",
        )
    return resp


async def write(ctx: Ctx, fn: Callable[[Backend], T]) -> T:
    """Run ``fn`` on the writer thread (SPARQL snapshots are taken again after it)."""
    return await ctx.state.write(fn)


async def read(ctx: Ctx, fn: Callable[[Backend], T]) -> T:
    """Run ``fn`` on a reader thread."""
    return await ctx.state.read(fn)


GC_INTERVAL = 30.0
"""Seconds between full garbage collections (CPython's own generation-2 trigger is off here)."""
GC_RETRY = 0.25  # seconds between looks while a full collection waits for a view to be done
GC_WAIT_MAX = 30.0  # then it runs anyway (a view held that long is not a show in progress)


def tune_gc() -> tuple[int, int, int]:
    """Keep CPython's generation-2 collections off the write path.

    A batch being decoded keeps ~6 model objects per triple alive (200,000 for a batch of
    1,024 extraction messages), and each generation-2 collection traverses every one of
    them again: with the default thresholds decoding cost ~31 µs per triple instead of ~6
    (docs/store.md). So what was loaded at start is frozen out of the collector, young
    generations are collected as usual, and full collections run every ``GC_INTERVAL``.
    Returns the thresholds before, for ``untune_gc`` (a test runs the store in its process).
    """
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(before[0], before[1], 1_000_000)
    return before


def untune_gc(before: tuple[int, int, int]) -> None:
    gc.unfreeze()
    gc.set_threshold(*before)


async def collect_garbage(
    interval: float = GC_INTERVAL, retry: float = GC_RETRY, wait_max: float = GC_WAIT_MAX
) -> None:
    """Full collections on a clock (reference cycles that reached the oldest generation).

    One waits (up to ``wait_max`` seconds) while a view is being built or streamed
    (``gc_paused``): it walks every live object, a few tenths of a second that would
    otherwise fall inside a long trace's show now and then.
    """
    while True:
        await asyncio.sleep(interval)
        waited = 0.0
        while gcpause.paused() and waited < wait_max:
            await asyncio.sleep(retry)
            waited += retry
        gc.collect()


@proc.lifespan
async def open_stores(ctx: Context[StoreSettings]) -> AsyncIterator[State]:
    settings = ctx.settings
    state = await open_server_backend(settings) if settings.store_uri else open_embedded(settings)
    if settings.signing:
        state = replace(state, seal=signing_seal(settings))
    thresholds = tune_gc()
    collecting = asyncio.create_task(collect_garbage())
    purging = asyncio.create_task(retain(state, settings)) if settings.retention else None
    try:
        yield state
    finally:
        for task in (purging, collecting):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        untune_gc(thresholds)
        state.readers.shutdown(wait=False, cancel_futures=True)
        state.sparql_pool.close()
        state.sparql.shutdown(wait=False, cancel_futures=True)
        await state.write(lambda stores: stores.close())
        state.writer.shutdown(wait=True)


def signing_seal(settings: StoreSettings) -> Seal:
    """The seal of these settings (a key file others may read stops the start, in one line)."""
    return open_seal(
        data_dir=settings.data_dir,
        key_file=settings.signing_key,
        public_dir=settings.signing_public,
        chain=settings.log_chain,
        server=bool(settings.store_uri),
    )


async def open_server_backend(settings: StoreSettings) -> State:
    """Every collection on the SPARQL server: no state here, so replicas may run side by side.

    An unreachable server is an OSError: the process says so in one line and exits 1.
    """
    stores = await asyncio.to_thread(open_server, settings.store_uri, settings.sparql_timeout)
    return State(
        stores=stores,
        server=stores.server,
        server_max_patterns=settings.server_max_patterns,
        writer=ThreadPoolExecutor(1, thread_name_prefix="store-write"),
        readers=ThreadPoolExecutor(settings.read_threads, thread_name_prefix="store-read"),
        sparql=ThreadPoolExecutor(settings.sparql_workers, thread_name_prefix="store-sparql"),
        sparql_pool=SparqlPool(settings.sparql_workers),
        gate=FairGate(settings.sparql_workers),
    )


def open_embedded(settings: StoreSettings) -> State:
    """pyoxigraph stores and sqlite indexes under the data directory."""
    root = Path(settings.data_dir) / "store"
    root.mkdir(parents=True, exist_ok=True)
    log.info("store data under %s", root)
    return State(
        stores=Stores(root, settings.open_stores),
        writer=ThreadPoolExecutor(1, thread_name_prefix="store-write"),
        readers=ThreadPoolExecutor(settings.read_threads, thread_name_prefix="store-read"),
        sparql=ThreadPoolExecutor(settings.sparql_workers, thread_name_prefix="store-sparql"),
        sparql_pool=SparqlPool(settings.sparql_workers),
        gate=FairGate(settings.sparql_workers),
        snapshots=Snapshots(Path(settings.data_dir) / "store-snapshots"),
    )


async def retain(state: State, settings: StoreSettings) -> None:
    """Purge traces older than the retention period from every collection, now and every
    interval, on the writer thread."""
    period = parse_duration(settings.retention)
    log.info(
        "retention: traces older than %s are purged every %.0f s",
        settings.retention,
        settings.retention_interval,
    )
    while True:
        try:
            await state.write(lambda stores: retention.purge_all(stores, period, state.seal))
        except Exception:  # one failed pass must not end retention
            log.exception("retention pass failed; retrying next interval")
        await asyncio.sleep(settings.retention_interval)


@proc.batch_consumer(TRIPLES_STORE_INTAKE, max_batch=4096, max_wait=0.02, max_linger=0.5)
async def store_triples(batch: list[StoreTriples], ctx: Ctx) -> list[StoreTriples]:
    """Commit the batch before returning: the runtime acks it only afterwards (all but the
    returned messages, whose collection could not be written: they are redelivered)."""
    started = time.perf_counter()
    report = await write(ctx, lambda stores: write_batch(stores, batch, ctx.state.seal))
    retry, held, written = list(report.retry), report.unavailable, report.written
    for _ in range(HELD_WRITES):
        if not held or ctx.state.server is None:
            break
        await reachable(ctx.state.server, len(held))
        report = await write(ctx, functools.partial(written_again, held, ctx.state.seal))
        retry += report.retry
        held, written = report.unavailable, written + report.written
    log.debug(
        "wrote %d triples from %d messages in %.1f ms",
        written,
        len(batch),
        (time.perf_counter() - started) * 1000,
    )
    # What still failed is redelivered (then dead-lettered) as the batch's own, as given.
    return [m for m in [*retry, *held] if isinstance(m, StoreTriples)]


def written_again(
    held: list[StoreTriples | Triples], seal: Seal | None, stores: Backend
) -> WriteReport:
    return write_batch(stores, held, seal)


HELD_WRITES = 3
"""Writes of a held batch once the server answers again; if it still refuses them (a
request that fails on its own while the server is up) they are redelivered, then
dead-lettered, so one such message cannot stop the topic."""


async def reachable(server: SparqlServer, held: int) -> None:
    """Wait until the store server answers, however long that takes: the messages that
    could not be written are held unacked meanwhile, so none is redelivered (and after a
    few redeliveries dead-lettered) while the server is down. The next batch waits too;
    the rest wait in the broker. A stop cancels the wait: they are redelivered then."""
    delay, since = 0.2, time.monotonic()
    while True:
        try:
            await asyncio.to_thread(server.ask, "ASK {}")
        except (StoreUnavailable, TimeoutError):
            if delay >= SERVER_WAIT_LOG:
                log.warning(
                    "store server %s still unavailable after %.0f s; holding %d messages",
                    server.uri,
                    time.monotonic() - since,
                    held,
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, SERVER_WAIT_MAX)
            continue
        return


SERVER_WAIT_MAX = 5.0  # seconds between probes of a store server that is down
SERVER_WAIT_LOG = 5.0  # probes this far apart are logged (not the first few, quick ones)


@proc.service(TRIPLES_QUERY)
async def triples(req: TriplesQueryRequest, ctx: Ctx) -> AsyncIterator[TriplesQueryResponse]:
    """The matches in one reply, or (``streaming``) in replies of ``batch_size`` triples."""

    def go(stores: Backend) -> TriplesQueryResponse:
        with stores.lease(req.user, req.collection) as handle:
            return checked(query.triples_query(handle.store if handle else None, req))

    answer = await read(ctx, go)
    if not req.streaming or len(answer.triples) <= req.batch_size:
        yield answer
        return
    found = answer.triples
    for start in range(0, len(found), req.batch_size):
        last = start + req.batch_size >= len(found)
        yield TriplesQueryResponse(
            triples=found[start : start + req.batch_size], end_of_stream=last
        )


@proc.service(SPARQL)
async def sparql(req: SparqlQueryRequest, ctx: Ctx) -> SparqlQueryResponse:
    """Answer within ``sparql_timeout``, its check included: past it the query is stopped
    (its worker killed, ``sparql/pool.py``). Users take turns at the workers (``FairGate``)."""
    limit = ctx.settings.sparql_timeout
    state = ctx.state
    await asyncio.to_thread(
        state.sparql_pool.warm_up
    )  # a worker's start-up is not the query's time
    deadline = time.monotonic() + limit
    try:
        await state.gate.acquire(req.user, limit)
    except TimeoutError:
        raise ServiceError(
            ErrorType.TIMEOUT, f"the query waited {limit:g} s for a free worker: try again"
        ) from None
    go = sparql_on_server if state.snapshots is None else sparql_embedded
    work = asyncio.get_running_loop().run_in_executor(
        state.sparql, functools.partial(go, state, req, deadline, limit)
    )
    work.add_done_callback(lambda _: state.gate.release(req.user))  # its thread is free again
    # The worker is stopped at the deadline; this answers a query whose thread is stuck.
    return await bounded(work, limit, grace=1.0)


def sparql_embedded(
    state: State, req: SparqlQueryRequest, deadline: float, limit: float
) -> SparqlQueryResponse:
    """Checked and answered in a worker process, over a snapshot of the collection."""
    assert state.snapshots is not None
    with state.stores.lease(req.user, req.collection) as handle:
        snap = state.snapshots.acquire((req.user, req.collection), handle)
    try:
        return checked(
            state.sparql_pool.run(snap.path if snap else None, req.query, deadline, limit)
        )
    finally:
        state.snapshots.release(snap)


def sparql_on_server(
    state: State, req: SparqlQueryRequest, deadline: float, limit: float
) -> SparqlQueryResponse:
    """Checked in a worker process, then run by the server over the caller's collection only,
    within what is left of the time limit (and the server's own, ``oxigraph serve --timeout-s``)."""
    text = state.sparql_pool.check(req.query, deadline, limit)  # no update or SERVICE reaches it
    fits_server(text, state.server_max_patterns)
    try:
        with state.stores.lease(req.user, req.collection) as handle:
            # No collection: syntax is still checked, as on an empty embedded store.
            store = handle.store if handle else None
            left = max(0.1, deadline - time.monotonic())
            return checked(query.sparql(store, req, timeout=left, form=text.form))
    except StoreUnavailable as exc:
        raise ServiceError(ErrorType.STORE_UNAVAILABLE, str(exc)) from None


async def bounded(work: Awaitable[T], limit: float, *, grace: float = 0.0) -> T:
    """``work``'s result, or ServiceError "timeout" after ``limit`` (+ ``grace``) seconds.

    Only the wait ends here: SPARQL work itself is stopped by ``sparql_pool`` (the worker
    process is killed at the deadline).
    """
    try:
        return await asyncio.wait_for(work, limit + grace)
    except TimeoutError:
        raise ServiceError(
            ErrorType.TIMEOUT,
            f"the query did not finish within {limit:g} s: narrow it or add a LIMIT",
        ) from None


WRITES = frozenset(
    {"delete-trace", "delete-document", "delete-collection", "purge-traces", "seal-document"}
)


def explain_op(stores: Backend, req: ExplainRequest, seal: Seal | None = None) -> ExplainResponse:
    """One explain operation against the caller's collection."""
    if req.operation == "delete-collection":
        stores.drop(req.user, req.collection)
        if seal is not None:
            seal.forget((req.user, req.collection))
        return ExplainResponse()
    if req.operation == "list-collections":
        mine = {collection for user, collection in stores.scopes() if user == req.user}
        return ExplainResponse(collections=sorted(mine))
    # A read answers an absent collection as an empty one (the server backend then skips
    # its registry lookup); a deletion must know.
    with stores.lease(req.user, req.collection, as_empty=req.operation not in WRITES) as handle:
        return on_collection(handle, req, seal)


def on_collection(
    handle: Handle | None, req: ExplainRequest, seal: Seal | None = None
) -> ExplainResponse:
    if req.operation == "list-traces":
        traces, cursor = explain.page_traces(handle, req)
        return ExplainResponse(traces=traces, cursor=cursor)
    if req.operation == "purge-traces":
        if req.older_than is None:
            raise ServiceError(ErrorType.BAD_REQUEST, "purge-traces needs older_than (seconds)")
        gone = retention.purge(handle, req.older_than, dry_run=req.dry_run, seal=seal)
        return ExplainResponse(deleted=gone[: req.limit], count=len(gone))
    if req.operation == "seal-document":
        signed = documents.seal_document(handle, seal, doc_iri(req.id))
        return ExplainResponse(count=1 if signed else 0)
    if req.operation == "audit-log":
        return ExplainResponse(export=verify.audit_log(handle, seal), media_type="application/json")
    if req.operation in ("verify-trace", "verify-log"):
        return ExplainResponse(verification=verify.answer(handle, req.operation, req.id, seal))
    if not req.id:
        raise ServiceError(ErrorType.BAD_REQUEST, f"operation {req.operation!r} needs an id")
    if req.operation == "get-trace" and req.step_limit is not None:
        view, total = explain.get_trace_window(
            handle, req.id, req.include_provenance, req.step_offset or 0, req.step_limit
        )
        return ExplainResponse(trace=view, step_total=total)
    if req.operation == "get-trace":
        return ExplainResponse(trace=explain.get_trace(handle, req.id, req.include_provenance))
    if req.operation == "delete-trace":
        summary = explain.list_one(handle, req.id)
        deletion.delete_trace(handle, req.id, seal)
        return ExplainResponse(deleted=[summary], count=1)
    if req.operation == "delete-document":
        report = (
            erasure.remove_document(
                handle,
                doc_iri(req.id),
                reason=req.reason,
                purge_traces=req.purge_traces,
                seal=seal,
            )
            if handle
            else None
        )
        if report is None:
            raise ServiceError(ErrorType.NOT_FOUND, f"no document {req.id!r} in this collection")
        return ExplainResponse(removal=report)
    if req.operation == "export-trace":
        text, media_type = export.export_trace(handle, req.id, req.format, rdf_11=req.rdf11)
        return ExplainResponse(export=text, media_type=media_type)
    if req.operation == "diff-traces":
        if not req.other:
            raise ServiceError(ErrorType.BAD_REQUEST, "diff-traces needs other (the second trace)")
        return ExplainResponse(diff=diff.diff_traces(handle, req.id, req.other))
    if req.operation == "source-usage":
        chars = None if req.char_start is None else (req.char_start, req.char_end)
        return ExplainResponse(usage=lineage.source_usage(handle, req.id, req.limit, chars))
    if req.operation != "document-hierarchy":
        raise ServiceError(ErrorType.BAD_REQUEST, f"unknown operation {req.operation!r}")
    doc = hierarchy.document_view(handle.store if handle else None, doc_iri(req.id))
    if doc is None or handle is None:
        store = handle.store if handle else None
        raise ServiceError(ErrorType.NOT_FOUND, removals.not_here(store, doc_iri(req.id), req.id))
    return ExplainResponse(document=lineage.with_usage(handle.index, doc))


def doc_iri(doc_id: str) -> str:
    """The document URI of an id or URI, checked as pyoxigraph would; bad-request otherwise."""
    try:
        uri = document_uri(doc_id)
        ox.NamedNode(uri)
    except ValueError as exc:
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"malformed document id {doc_id!r}: {exc}"
        ) from None
    return uri


@proc.service(EXPLAIN)
async def explain_service(req: ExplainRequest, ctx: Ctx) -> AsyncIterator[ExplainResponse]:
    """Deletions on the writer thread, views on a reader thread; a streamed trace in pieces."""
    if req.operation == "get-trace" and req.streaming:
        async for piece in stream_trace(ctx, req):
            yield piece
        return
    run = write if req.operation in WRITES else read
    resp = await run(ctx, lambda stores: checked(explain_op(stores, req, ctx.state.seal)))
    if req.operation == "delete-collection":
        # The librarian's documents and the vector indexes go too (durable: delivered
        # even to a processor that is down now).
        gone = CollectionDeleted(user=req.user, collection=req.collection)
        await ctx.publish(COLLECTION_DELETED, gone)
    yield resp


STREAM_STEPS = 500  # agent steps in a streamed get-trace's first reply (unless step_limit says)
STREAM_MAX_STEPS = 4000  # later replies double up to this: fewer hops for a long trace


def stream_spans(offset: int, total: int, fixed: int | None) -> list[tuple[int, int]]:
    """The step ranges of a streamed trace's replies: ``fixed`` steps each when the request
    says, else ``STREAM_STEPS`` first (shown at once), then twice as many each time up to
    ``STREAM_MAX_STEPS`` (a 20,000-step trace in 8 replies, not 40: each reply is a few
    hops between processes, and on a loaded machine every hop waits for the scheduler)."""
    spans: list[tuple[int, int]] = []
    start, size = offset, fixed or STREAM_STEPS
    while start < total:
        spans.append((start, min(start + size, total)))
        start += size
        if fixed is None:
            size = min(size * 2, STREAM_MAX_STEPS)
    return spans or [(0, 0)]


async def stream_trace(ctx: Ctx, req: ExplainRequest) -> AsyncIterator[ExplainResponse]:
    """A trace in replies of agent steps (``stream_spans``), the next read on a reader
    thread while one travels; a piece too large for one reply is sent as two halves.

    No cyclic collection while the pieces are read and sent: each piece's ~10^5 objects
    are freed by reference counting once it is sent, but the collector, let back in after
    each window was built, walked them all first (and the clock's full collection waits).
    """
    lease = contextlib.ExitStack()
    lease.enter_context(gcpause.gc_paused())
    last: ExplainResponse | None = None
    ahead: dict[tuple[int, int], asyncio.Future[TraceView]] = {}

    def fetch(span: tuple[int, int]) -> asyncio.Future[TraceView]:
        if span not in ahead:
            work = functools.partial(piece, reader, *span)
            ahead[span] = asyncio.ensure_future(read(ctx, work))
        return ahead[span]

    try:
        reader = await read(
            ctx,
            lambda s: explain.open_trace(
                lease.enter_context(s.lease(req.user, req.collection, as_empty=True)),
                req.id,
                req.include_provenance,
            ),
        )
        pending = stream_spans(req.step_offset or 0, reader.total, req.step_limit)
        while pending:
            span = pending.pop(0)
            view = await fetch(span)
            del ahead[span]
            if pending:
                fetch(pending[0])  # read while this piece is encoded and sent
            resp = ExplainResponse(trace=view, step_total=reader.total, end_of_stream=not pending)
            data = encode(resp)
            size = len(data)
            keep_encoding(resp, data)  # sent as encoded here, not serialised again
            if span[1] - span[0] > 1 and size > MAX_REPLY_BYTES:
                middle = (span[0] + span[1]) // 2
                pending[:0] = [(span[0], middle), (middle, span[1])]
                continue
            if size > MAX_REPLY_BYTES:
                checked(resp)  # one step alone over the limit: refused, naming the fix
            if not pending:
                last = resp
            else:
                yield resp
    finally:
        # A piece still being read holds the lease: wait for it before letting go.
        await asyncio.gather(*ahead.values(), return_exceptions=True)
        lease.close()
    if last is not None:  # after the lease ends: the runtime stops reading at the last reply
        yield last


def piece(reader: explain.TraceReader, start: int, stop: int, _: Stores) -> TraceView:
    """Steps ``start`` to ``stop`` of a trace being streamed (on a reader thread)."""
    return reader.window(start, stop)


def main() -> None:
    """Console-script entry point (tg-proc-store)."""
    proc.main()


if __name__ == "__main__":
    main()
