"""The store processor from start to stop: its backend opened, its clocks started, and on the
way out everything closed in order (reads first, the writer thread last, after its writes)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.store.backends.sharded.stores import ShardedStores
from trustgraph_flow.store.governance.migrate import migrate
from trustgraph_flow.store.service.settings import StoreSettings
from trustgraph_flow.store.service.state import (
    State,
    open_embedded,
    open_server_backend,
    signing_seal,
)
from trustgraph_flow.store.service.timers import (
    collect_garbage,
    retain,
    sign_backlog,
    tune_gc,
    untune_gc,
)
from trustgraph_flow.store.sparql.client import StoreUnavailable

log = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def running(settings: StoreSettings) -> AsyncIterator[State]:
    state = await open_server_backend(settings) if settings.store_uri else open_embedded(settings)
    if settings.signing:
        state = replace(state, seal=signing_seal(settings))
    state = replace(state, removed=RemovedLoads(Path(settings.data_dir) / "removed_loads.db"))
    seal = state.seal
    again = settings.migrate_again
    await state.write(lambda stores: migrate(stores, seal, again=again))  # docs/conformance.md
    stores = state.stores
    late = sorted(stores.pending) if isinstance(stores, ShardedStores) else []
    joining = [asyncio.create_task(migrate_late(state, name, again)) for name in late]
    thresholds = tune_gc()
    collecting = asyncio.create_task(collect_garbage())
    purging = asyncio.create_task(retain(state, settings)) if settings.retention else None
    signing = asyncio.create_task(sign_backlog(state, settings.signing_delay))
    try:
        yield state
    finally:
        await state.holds.close()  # what is held stays unacked: delivered again
        for task in (signing, purging, collecting, *joining):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        untune_gc(thresholds)
        state.readers.shutdown(wait=False, cancel_futures=True)
        state.sparql_pool.close()
        state.sparql.shutdown(wait=False, cancel_futures=True)
        if state.seal is not None:  # what ended since the last pass: signed before closing
            await state.write(state.seal.flush)
        await state.write(lambda stores: stores.close())
        state.writer.shutdown(wait=True)
        if state.removed is not None:
            state.removed.close()


async def migrate_late(state: State, name: str, again: bool) -> None:
    """A shard down at start: its collections migrated (as the others' were at start) once it
    answers; its held writes may be written first (what they write is in the adopted forms)."""
    stores = state.stores
    assert isinstance(stores, ShardedStores)
    delay = 0.2
    while name in stores.pending:
        try:
            await asyncio.to_thread(stores.reach(name).ask, "ASK {}")
        except (StoreUnavailable, TimeoutError):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
    seal = state.seal
    try:
        await state.write(
            lambda s: migrate(s, seal, again=again, scopes=stores.shard(name).scopes())
        )
    except Exception:  # the shard went again: migrated at the next start
        log.exception("migrating shard %r's collections failed", name)
