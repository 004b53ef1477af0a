"""The triples-store and explain-store topics' batches into the stores. Messages for a store
server (of a sharded store: a shard) that cannot be reached are held (``held.py``), unacked,
and written in order once it answers; the batch's other messages are written and acked now,
and the consumer goes on with the next batch."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Mapping, Sequence

from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import HELD_WRITTEN, Kept
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.schema.store import HeldWritten
from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.store.backends.sharded.stores import ShardedStores
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.service.held import CONTROL, Given
from trustgraph_flow.store.service.state import Ctx, Probe, State, write
from trustgraph_flow.store.service.writer import WriteReport, write_batch
from trustgraph_flow.store.sparql.client import StoreUnavailable

log = logging.getLogger(__name__)


async def store_triples(
    batch: list[StoreTriples], ctx: Ctx
) -> list[StoreTriples] | Kept[StoreTriples]:
    """Commit the batch before returning: the runtime acks it only afterwards (all but the
    returned messages, whose collection could not be written: they are redelivered; and the
    held ones, acked once written)."""
    started = time.perf_counter()
    state = ctx.state
    seal, removed, queues = state.seal, state.removed, state.holds.queues
    report, held = await write(ctx, lambda stores: write_now(stores, batch, seal, removed, queues))
    count(ctx, report)
    log.debug(
        "wrote %d triples from %d messages in %.1f ms",
        report.written,
        len(batch),
        (time.perf_counter() - started) * 1000,
    )
    # What failed on its own is redelivered (then dead-lettered) as the batch's own.
    retry = [m for m in report.retry if isinstance(m, StoreTriples)]
    if not held:
        return retry
    kept = state.holds.keep(held, functools.partial(drain, ctx))
    await state.holds.room()
    return Kept(retry=retry, kept=[(m, f) for m, f in kept if isinstance(m, StoreTriples)])


def count(ctx: Ctx, report: WriteReport) -> None:
    ctx.meter.add("triples_written_total", report.written)
    ctx.meter.add("trace_messages_written_total", report.traces)
    if report.dropped:
        log.info("dropped %d messages of removed loads (their documents are gone)", report.dropped)


def write_now(
    stores: Backend,
    batch: Sequence[Given],
    seal: Seal | None,
    removed: RemovedLoads | None,
    queues: Mapping[str, object],
) -> tuple[WriteReport, list[tuple[str, Given]]]:
    """On the writer thread: every message whose server has no held queue is written; the
    others, and those whose server could not be reached, are returned with its key, in order."""
    keys: dict[tuple[str, str], str] = {}

    def key(m: Given) -> str:
        scope = (m.metadata.user, m.metadata.collection)
        if scope not in keys:
            keys[scope] = server_of(stores, *scope)
        return keys[scope]

    waiting = {id(m) for m in batch if queues and key(m) in queues}
    report = write_batch(stores, [m for m in batch if id(m) not in waiting], seal, removed)
    waiting.update(id(m) for m in report.unavailable)
    return report, [(key(m), m) for m in batch if id(m) in waiting]


def server_of(stores: Backend, user: str, collection: str) -> str:
    """The key of the server a collection's writes go to: its shard's name (sharded), else
    "" (the one server)."""
    if not isinstance(stores, ShardedStores):
        return ""
    try:
        row = stores.placed(user, collection, create=True)
    except StoreUnavailable:
        return CONTROL
    if row is None:
        return CONTROL
    return row.on if row.to is None else ",".join(row.targets())  # a move: both shards


async def drain(ctx: Ctx, key: str) -> None:
    """Write ``key``'s held messages in order whenever its server answers, until none is left."""
    holds, state = ctx.state.holds, ctx.state
    queue = holds.queues[key]
    failed = 0
    written: set[tuple[str, str]] = set()  # collections of the messages written
    try:
        while not holds.finished(key):
            await reachable(probe(state, key), len(queue), key)
            chunk = [queue.popleft() for _ in range(min(len(queue), CHUNK))]
            msgs = [m for m, _ in chunk]
            try:
                held_write = functools.partial(write_held, msgs, state.seal, state.removed)
                report = await write(ctx, held_write)
            except ServiceError:  # the server went again, between the probe and the write
                report = WriteReport(unavailable=list(msgs))
            count(ctx, report)
            again, retry = {id(m) for m in report.unavailable}, {id(m) for m in report.retry}
            failed = failed + 1 if again else 0
            if failed >= HELD_WRITES:  # refused while the server answers: redelivered
                retry, again, failed = retry | again, set(), 0
            queue.extendleft(reversed([p for p in chunk if id(p[0]) in again]))
            holds.settle([p for p in chunk if id(p[0]) in retry], ok=False)
            done = [p for p in chunk if id(p[0]) not in again | retry]
            holds.settle(done, ok=True)
            written.update((m.metadata.user, m.metadata.collection) for m, _ in done)
    except Exception:
        log.exception("writing the messages held for %s failed: they are redelivered", key)
        holds.settle(list(queue), ok=False)
        queue.clear()
        holds.finished(key)
        return
    await tell_written(ctx, key, sorted(written))


async def tell_written(ctx: Ctx, key: str, scopes: list[tuple[str, str]]) -> None:
    """Say on held-written that these collections' writes are in: the librarian signs their
    documents now, not on its next try (``seal_retry_seconds``, 30 s)."""
    try:
        for user, collection in scopes:
            await ctx.publish(HELD_WRITTEN, HeldWritten(user=user, collection=collection))
    except Exception as exc:  # the broker: nothing is lost, the librarian's retries sign them
        log.warning("cannot tell the librarian that %s's held writes are in: %s", key, exc)


async def seal_refused(ctx: Ctx, user: str, collection: str) -> None:
    """The store refused a seal (``store-unavailable``) with none of the collection's writes
    held (all in before its server went away, so no held queue drains to say it is back):
    its server is probed as held writes' is, and once it answers the collection is told on
    held-written all the same."""
    state = ctx.state
    try:
        key = await asyncio.to_thread(server_of, state.stores, user, collection)
    except Exception as exc:  # e.g. its shard left the table: the librarian's retries sign it
        log.warning("cannot tell when %s/%s's store answers again: %s", user, collection, exc)
        return

    async def tell(key: str) -> None:
        await reachable(probe(state, key), 0, key)
        await tell_written(ctx, key, state.holds.told(key))

    state.holds.unsigned_in(key, (user, collection), tell)


def write_held(
    msgs: list[Given], seal: Seal | None, removed: RemovedLoads | None, stores: Backend
) -> WriteReport:
    return write_batch(stores, msgs, seal, removed)


CHUNK = 4096  # held messages written at a time (the consumer's batch)
HELD_WRITES = 3
"""Writes of held messages in a row their server refuses though it answers the probe (a
request that fails on its own): they are redelivered then, and dead-lettered after a few
deliveries, so one such message cannot stop its server's queue."""


def probe(state: State, key: str) -> Probe:
    """What answers when ``key``'s server does: the shard, the control server, the server."""
    stores = state.stores
    if isinstance(stores, ShardedStores):
        if key == CONTROL:
            return stores.placement.control
        return stores.reach(key) if "," not in key else stores  # a move's: every shard
    assert state.server is not None  # only a server's writes are held
    return state.server


async def reachable(server: Probe, held: int, key: str = "") -> None:
    """Wait until the store server answers, however long that takes: the messages that
    could not be written are held unacked meanwhile, so none is redelivered (and after a
    few redeliveries dead-lettered) while the server is down. A stop cancels the wait: they
    are redelivered then."""
    delay, since, warned = 0.2, time.monotonic(), False
    name = f"shard {key!r}" if key and key != CONTROL else "store"
    many = "s" * (held != 1)
    waits = f"holding its {held} message{many}" if held else "a document's seal waits for it"
    then = f"writing its {held} held message{many}" if held else "its documents are signed now"
    while True:
        try:
            await asyncio.to_thread(server.ask, "ASK {}")
        except (StoreUnavailable, TimeoutError) as exc:
            if delay >= SERVER_WAIT_LOG:
                warned = True
                log.warning(
                    "%s still unavailable after %.0f s (%s); %s",
                    name,
                    time.monotonic() - since,
                    exc,
                    waits,
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, SERVER_WAIT_MAX)
            continue
        if warned:
            log.warning("%s answers again after %.0f s; %s", name, time.monotonic() - since, then)
        return


SERVER_WAIT_MAX = 5.0  # seconds between probes of a store server that is down
SERVER_WAIT_LOG = 5.0  # probes this far apart are logged (not the first few, quick ones)
