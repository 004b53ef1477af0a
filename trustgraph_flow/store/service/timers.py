"""What the store does on a clock: full garbage collections off the write path, retention passes."""

from __future__ import annotations

import asyncio
import gc
import logging

from trustgraph_base import gcpause
from trustgraph_base.durations import parse_duration
from trustgraph_flow.store.governance import retention
from trustgraph_flow.store.service.settings import StoreSettings
from trustgraph_flow.store.service.state import State

log = logging.getLogger(__name__)
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


async def sign_backlog(state: State, delay: float) -> None:
    """Sign the traces that ended in the last ``delay`` seconds, together, on the writer
    thread (``governance/backlog.py``); what a crash left unsigned is signed first."""
    seal = state.seal
    if seal is None or seal.backlog is None:
        return
    backlog = seal.backlog
    while True:
        if backlog.waiting():
            try:
                await state.write(seal.flush)
            except Exception:  # one failed pass must not end signing: the rows stay
                log.exception("signing the backlog failed; retrying")
        await asyncio.sleep(delay)
