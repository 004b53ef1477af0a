"""The sharded store from ``store_uri``: the servers it names (``parse_shards``), and the
backend once the control server answers, each shard registered in its placement table
(``open_sharded``)."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from trustgraph_flow.store.backends.sharded.stores import ShardedStores
from trustgraph_flow.store.sparql.client import SparqlServer, StoreUnavailable

log = logging.getLogger(__name__)


def parse_shards(text: str) -> list[tuple[str, str]]:
    """``store_uri`` of several servers: ``url url …`` or ``name=url,…`` (a bare URL is its own
    name) → (name, url) pairs, in order (the first is the control server)."""
    out: list[tuple[str, str]] = []
    for item in text.replace(",", " ").split():
        name, sep, url = item.partition("=")
        if not sep or "/" in name or ":" in name:
            name, url = item.rstrip("/"), item
        out.append((name, url.rstrip("/")))
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise ValueError(f"store_uri names a shard twice: {text!r}")
    return out


def open_sharded(
    uri: str,
    timeout: float,
    control: str = "",
    within: float = 30.0,
    *,
    partial: bool = False,
    shards_within: float | None = None,
) -> ShardedStores:
    """The sharded backend of ``store_uri`` (several servers), once the control server answers
    (waited for ``within`` seconds: it may start after the processor) and every shard does
    (waited for together, ``shards_within`` seconds, default ``within``). The control server
    must answer: the placement table is there. ``partial``: a shard that has not answered by
    then is left pending (``ShardedStores.pending``), read and written once it answers; else
    it stops the opening, named."""
    shards = parse_shards(uri)
    server = SparqlServer(control or shards[0][1], timeout)
    stores = ShardedStores(server, timeout)
    try:
        try:
            server.wait_ready(within)
        except (StoreUnavailable, TimeoutError) as exc:
            raise StoreUnavailable(f"the placement table cannot be read: {exc}") from None
        for name, url in shards:
            stores.placement.register(name, url)
        join(stores, [n for n, _ in shards], within if shards_within is None else shards_within)
        for name, why in stores.pending.items():
            if not partial:
                raise StoreUnavailable(f"shard {name!r}: {why}")
    except BaseException:
        stores.close()
        raise
    log.info("store sharded over %s (placement on %s)", ", ".join(n for n, _ in shards), server.uri)
    return stores


def join(stores: ShardedStores, names: list[str], within: float) -> None:
    """Wait for the (registered) shards together, ``within`` seconds, and govern each that
    answers; those that do not are left pending."""
    stores.pending.update((name, "not yet asked") for name in names)

    def one(name: str) -> None:
        server = stores.remote(name).server
        try:
            server.wait_ready(within)
        except (StoreUnavailable, TimeoutError) as exc:
            stores.pending[name] = str(exc) or type(exc).__name__
            return
        stores.placement.govern(server)
        stores.pending.pop(name, None)

    with ThreadPoolExecutor(max(1, len(names))) as pool:
        list(pool.map(one, names))
