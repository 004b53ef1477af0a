"""The triples-store topic's batches into the stores, held (not redelivered) while a store
server cannot be reached."""

from __future__ import annotations

import asyncio
import functools
import logging
import time

from trustgraph_base.schema.core import StoreTriples, Triples
from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.service.state import Ctx, Probe, write
from trustgraph_flow.store.service.writer import WriteReport, write_batch
from trustgraph_flow.store.sparql.client import StoreUnavailable

log = logging.getLogger(__name__)


async def store_triples(batch: list[StoreTriples], ctx: Ctx) -> list[StoreTriples]:
    """Commit the batch before returning: the runtime acks it only afterwards (all but the
    returned messages, whose collection could not be written: they are redelivered)."""
    started = time.perf_counter()
    seal, removed = ctx.state.seal, ctx.state.removed
    report = await write(ctx, lambda stores: write_batch(stores, batch, seal, removed))
    retry, held, written = list(report.retry), report.unavailable, report.written
    dropped = report.dropped
    traces = report.traces
    for _ in range(HELD_WRITES):
        if not held or ctx.state.server is None:
            break
        await reachable(ctx.state.server, len(held))
        report = await write(ctx, functools.partial(written_again, held, seal, removed))
        retry += report.retry
        dropped += report.dropped
        held, written = report.unavailable, written + report.written
        traces += report.traces
    ctx.meter.add("triples_written_total", written)
    ctx.meter.add("trace_messages_written_total", traces)
    if dropped:
        log.info("dropped %d messages of removed loads (their documents are gone)", dropped)
    log.debug(
        "wrote %d triples from %d messages in %.1f ms",
        written,
        len(batch),
        (time.perf_counter() - started) * 1000,
    )
    # What still failed is redelivered (then dead-lettered) as the batch's own, as given.
    return [m for m in [*retry, *held] if isinstance(m, StoreTriples)]


def written_again(
    held: list[StoreTriples | Triples],
    seal: Seal | None,
    removed: RemovedLoads | None,
    stores: Backend,
) -> WriteReport:
    return write_batch(stores, held, seal, removed)


HELD_WRITES = 3
"""Writes of a held batch once the server answers again; if it still refuses them (a
request that fails on its own while the server is up) they are redelivered, then
dead-lettered, so one such message cannot stop the topic."""


async def reachable(server: Probe, held: int) -> None:
    """Wait until the store server answers, however long that takes: the messages that
    could not be written are held unacked meanwhile, so none is redelivered (and after a
    few redeliveries dead-lettered) while the server is down. The next batch waits too;
    the rest wait in the broker. A stop cancels the wait: they are redelivered then."""
    delay, since, warned = 0.2, time.monotonic(), False
    while True:
        try:
            await asyncio.to_thread(server.ask, "ASK {}")
        except (StoreUnavailable, TimeoutError) as exc:
            # The probe's error names the server (of a sharded store: the shard) that is
            # down; server.uri would name every shard.
            if delay >= SERVER_WAIT_LOG:
                warned = True
                log.warning(
                    "store still unavailable after %.0f s (%s); holding %d messages",
                    time.monotonic() - since,
                    exc,
                    held,
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, SERVER_WAIT_MAX)
            continue
        if warned:
            log.warning(
                "store answers again after %.0f s; writing the %d held messages",
                time.monotonic() - since,
                held,
            )
        return


SERVER_WAIT_MAX = 5.0  # seconds between probes of a store server that is down
SERVER_WAIT_LOG = 5.0  # probes this far apart are logged (not the first few, quick ones)
