"""What the store processor holds while it runs: its backend, its threads and SPARQL workers
(``State``), opened for either backend; the reader and writer threads' helpers; the
reply-size check every answer passes."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import BaseModel

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import (
    Context,
)
from trustgraph_base.wire import encode, keep_encoding
from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.store.backends.embedded.snapshots import Snapshots
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.server.stores import RemoteStores, open_server
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.backends.sharded.placement import ShardError
from trustgraph_flow.store.backends.sharded.stores import ShardedStores
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.service.held import Holds
from trustgraph_flow.store.service.settings import StoreSettings
from trustgraph_flow.store.sparql.client import StoreUnavailable
from trustgraph_flow.store.sparql.fair import FairGate
from trustgraph_flow.store.sparql.pool import SparqlPool

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)


class Probe(Protocol):
    """What held writes wait on: the store server (or every shard and the placement's)."""

    @property
    def uri(self) -> str: ...

    def ask(self, query: str) -> bool: ...


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
    server: Probe | None = None  # the store server(s) (server and sharded backends only)
    seal: Seal | None = None  # signs ended traces (setting ``signing``)
    removed: RemovedLoads | None = None  # loads removed: their late writes are dropped
    server_max_patterns: int = 0  # the largest query sent to it (0: any)
    holds: Holds = field(default_factory=Holds)  # writes held for a server that is down

    async def write(self, fn: Callable[[Backend], T]) -> T:
        """Run ``fn`` on the writer thread (SPARQL snapshots are taken again after it); a
        store server that cannot be reached answers ``store-unavailable``, as a read does."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.writer, fn, self.stores)
        except (StoreUnavailable, ShardError) as exc:
            raise ServiceError(ErrorType.STORE_UNAVAILABLE, str(exc)) from None
        finally:
            if self.snapshots is not None:
                self.snapshots.written()

    async def read(self, fn: Callable[[Backend], T]) -> T:
        """Run ``fn`` on a reader thread (a store server that cannot be reached answers
        ``store-unavailable``)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.readers, fn, self.stores)
        except (StoreUnavailable, ShardError) as exc:
            raise ServiceError(ErrorType.STORE_UNAVAILABLE, str(exc)) from None


Ctx = Context[StoreSettings, State]
MAX_REPLY_BYTES = 4 * 1024 * 1024  # Pulsar refuses messages over 5 MB


def checked(resp: R, fix: str | None = None) -> R:
    """Refuse a reply too large to publish, naming the fix (``fix``, or "lower the limit or
    narrow the query"), instead of failing at the broker.
    The reply keeps the wire form measured (``wire.keep_encoding``): it is sent as encoded
    here, not serialised again (~0.7 ms for a GraphRAG hop's reply of 170 triples)."""
    data = encode(resp)
    size = len(data)
    if size > MAX_REPLY_BYTES:
        raise ServiceError(
            ErrorType.RESULT_TOO_LARGE,
            f"the result is {size / 1e6:.1f} MB, over the {MAX_REPLY_BYTES / 1e6:.1f} MB a reply may carry: {fix or 'lower the limit or narrow the query'}",
        )
    return keep_encoding(resp, data)


async def write(ctx: Ctx, fn: Callable[[Backend], T]) -> T:
    """Run ``fn`` on the writer thread (SPARQL snapshots are taken again after it)."""
    return await ctx.state.write(fn)


async def read(ctx: Ctx, fn: Callable[[Backend], T]) -> T:
    """Run ``fn`` on a reader thread."""
    return await ctx.state.read(fn)


def signing_seal(settings: StoreSettings) -> Seal:
    """The seal of these settings (a key file others may read stops the start, in one line)."""
    return open_seal(
        data_dir=settings.data_dir,
        key_file=settings.signing_key,
        public_dir=settings.signing_public,
        chain=settings.log_chain,
        server=bool(settings.store_uri),
        defer=settings.signing_delay > 0,
    )


async def open_server_backend(settings: StoreSettings) -> State:
    """Every collection on the SPARQL server: no state here, so replicas may run side by side.

    An unreachable server is an OSError: the process says so in one line and exits 1. Sharded,
    that is the control server (the placement table); a shard that does not answer within
    ``shard_wait`` is left until it does (``open_sharded``'s ``partial``).
    """
    stores: RemoteStores | ShardedStores
    if settings.sharded:
        stores = await asyncio.to_thread(
            functools.partial(
                open_sharded,
                settings.store_uri,
                settings.sparql_timeout,
                settings.store_control,
                partial=True,
                shards_within=settings.shard_wait,
            )
        )
        for name, why in sorted(stores.pending.items()):
            log.warning(
                "shard %r is unreachable (%s): its collections' writes are held and their "
                "reads answer store-unavailable until it answers",
                name,
                why,
            )
    else:
        stores = await asyncio.to_thread(open_server, settings.store_uri, settings.sparql_timeout)
    return State(
        stores=stores,
        server=stores if isinstance(stores, ShardedStores) else stores.server,
        server_max_patterns=settings.server_max_patterns,
        writer=ThreadPoolExecutor(1, thread_name_prefix="store-write"),
        readers=ThreadPoolExecutor(settings.read_threads, thread_name_prefix="store-read"),
        sparql=ThreadPoolExecutor(settings.sparql_workers, thread_name_prefix="store-sparql"),
        sparql_pool=SparqlPool(settings.sparql_workers),
        gate=FairGate(settings.sparql_workers),
        holds=Holds(settings.held_messages, settings.held_quads),
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
        holds=Holds(settings.held_messages, settings.held_quads),
    )
