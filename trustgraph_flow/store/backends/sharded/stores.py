"""The sharded store's ``Backend``: collections spread over several SPARQL servers, each on the
one the placement table names (``placement.py``).

A lease reads the collection's row and leases it on its shard: every per-collection view
(list, show, lineage, SPARQL, the signed log) is then one shard's. The handle keeps a journal
of its writes (``journal.py``); when the lease ends having written, the row is read again and
the writes are made again on every shard the collection is, or now is, moving to (the row
read *after* the write decides): a move that marked the collection after this lease began
gets the write either from its copy (the write was on the old shard before the copy read
it) or from this replay (the mark was there when the row was read again).
Cross-collection operations (``scopes``: list collections, retention) ask every shard.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from trustgraph_flow.store.backends.server.scope import scope_iri
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.backends.sharded.journal import Op, journaled, replay
from trustgraph_flow.store.backends.sharded.placement import (
    Placement,
    Row,
    ShardError,
    rendezvous,
)
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.sparql.client import SparqlServer, StoreUnavailable

log = logging.getLogger(__name__)
ROW_CACHE = 1.0
"""Seconds a lease may start from a row read earlier (``ShardedStores.placed``); a move's
``settle`` is at least this long."""
ROWS_KEPT = 10_000  # rows remembered at most (all forgotten when full)


class ShardedStores:
    """Every collection on the shard its placement row names."""

    def __init__(self, control: SparqlServer, timeout: float = 30.0) -> None:
        self.placement = Placement(control)
        self.timeout = timeout
        self._shards: dict[str, RemoteStores] = {}
        self._rows: dict[
            tuple[str, str], tuple[float, Row]
        ] = {}  # (user, collection) → (read at, row)
        self._lock = threading.Lock()

    def add(self, name: str, url: str, within: float = 30.0) -> None:
        """Register a shard (once; the same name must keep its URL) and govern its server."""
        self.placement.register(name, url)
        server = self.shard(name).server
        server.wait_ready(within)
        self.placement.govern(server)

    def shard(self, name: str) -> RemoteStores:
        """The shard's backend, by the URL the table gives it (a ShardError if it has none)."""
        with self._lock:
            found = self._shards.get(name)
        if found is not None:
            return found
        url = self.placement.shards().get(name)
        if url is None:
            raise ShardError(
                f"shard {name!r} is not in the placement table on {self.placement.control.uri}: "
                "it was removed while collections were placed on it; add it back or move them"
            )
        with self._lock:
            found = self._shards.setdefault(name, RemoteStores(SparqlServer(url, self.timeout)))
        return found

    def row(self, user: str, collection: str, *, create: bool = False) -> Row | None:
        """The collection's row as the table says now (``create``: placed if it was not)."""
        scope = scope_iri(user, collection)
        found = self.placement.claim(scope) if create else self.placement.row(scope)
        self._remember((user, collection), found)
        return found

    def placed(self, user: str, collection: str, *, create: bool = False) -> Row | None:
        """The row a lease starts from: read at most ``ROW_CACHE`` seconds ago (a write is
        checked against the row read after it, ``settle``; a move waits longer than this
        between its steps, so a read from a row this old still finds every quad)."""
        with self._lock:
            hit = self._rows.get((user, collection))
        if hit is not None and time.monotonic() - hit[0] < ROW_CACHE:
            return hit[1]
        return self.row(user, collection, create=create)

    def _remember(self, key: tuple[str, str], row: Row | None) -> None:
        with self._lock:
            if row is None:  # never kept: a collection placed meanwhile is found at once
                self._rows.pop(key, None)
                return
            if len(self._rows) >= ROWS_KEPT:
                self._rows.clear()
            self._rows[key] = (time.monotonic(), row)

    @contextmanager
    def lease(
        self, user: str, collection: str, *, create: bool = False, as_empty: bool = False
    ) -> Iterator[Handle | None]:
        """The collection's handle on its shard; its writes also reach the shard it moves to."""
        row = self.placed(user, collection, create=create)
        if row is None:
            if not as_empty:
                yield None
                return
            with self.shard(self.proposed(user, collection)).lease(
                user, collection, as_empty=True
            ) as empty:
                yield empty
            return
        ops: list[Op] = []
        with self.shard(row.on).lease(user, collection, create=create, as_empty=as_empty) as handle:
            if handle is None:
                yield None
                return
            yield journaled(handle, ops)
        if ops:
            self.settle(user, collection, row, ops)

    def settle(self, user: str, collection: str, row: Row, ops: list[Op]) -> None:
        """Make the lease's writes on every shard the collection moves to, by the row as it is
        now (read after the writes), until a reading shows no shard it has not reached."""
        done = {row.on}
        while True:
            now = self.row(user, collection)
            wanted = [s for s in (now.targets() if now else []) if s not in done]
            if not wanted:
                return
            for name in wanted:
                with self.shard(name).lease(user, collection, create=True) as other:
                    assert other is not None
                    replay(ops, other)
                done.add(name)

    def proposed(self, user: str, collection: str) -> str:
        return rendezvous(sorted(self.placement.shards()), scope_iri(user, collection))

    def get(self, user: str, collection: str, *, create: bool = False) -> Handle | None:
        row = self.row(user, collection, create=create)
        return None if row is None else self.shard(row.on).get(user, collection, create=create)

    def scopes(self) -> list[tuple[str, str]]:
        """Every collection of every shard (one that is moving is listed once)."""
        found: set[tuple[str, str]] = set()
        for name in sorted(self.placement.shards()):
            found.update(self.shard(name).scopes())
        return sorted(found)

    def drop(self, user: str, collection: str) -> bool:
        """Drop the collection on its shard(s), then its row."""
        row = self.row(user, collection)
        if row is None:
            return False
        dropped = False
        for name in row.targets():
            dropped = self.shard(name).drop(user, collection) or dropped
        self.placement.forget(scope_iri(user, collection))
        self._remember((user, collection), None)
        return dropped

    def ask(self, query: str) -> bool:
        """``query`` on the control server and every shard (the held writes' probe): the first
        that cannot be reached is a StoreUnavailable naming it."""
        self.placement.control.ask(query)
        for name in sorted(self.placement.shards()):
            try:
                self.shard(name).server.ask(query)
            except StoreUnavailable as exc:
                raise StoreUnavailable(f"shard {name!r}: {exc}") from None
        return True

    @property
    def uri(self) -> str:
        return " ".join(s.server.uri for s in self._shards.values()) or self.placement.control.uri

    def close(self) -> None:
        with self._lock:
            shards, self._shards = list(self._shards.values()), {}
        for s in shards:
            s.close()
        self.placement.control.close()


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
    uri: str, timeout: float, control: str = "", within: float = 30.0, *, partial: bool = False
) -> ShardedStores:
    """The sharded backend of ``store_uri`` (several servers), once every one answers (each
    waited for ``within`` seconds: they may start after the processor). ``partial``: a shard
    that does not answer is registered and left for its reads to name (the control server
    must answer)."""
    shards = parse_shards(uri)
    server = SparqlServer(control or shards[0][1], timeout)
    stores = ShardedStores(server, timeout)
    try:
        server.wait_ready(within)
        for name, url in shards:
            try:
                stores.add(name, url, within)
            except (StoreUnavailable, TimeoutError):
                if not partial:
                    raise
    except BaseException:
        stores.close()
        raise
    log.info("store sharded over %s (placement on %s)", ", ".join(n for n, _ in shards), server.uri)
    return stores
