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
A shard down at start is *pending*: checked against the table (``Placement.govern``) once
it answers, before anything is read or written there.
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
from trustgraph_flow.store.backends.sharded.outage import Reach, named, table_read
from trustgraph_flow.store.backends.sharded.placement import (
    Placement,
    Row,
    ShardError,
)
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.sparql.client import SparqlServer, StoreTimeout, StoreUnavailable
from trustgraph_flow.store.sparql.stalls import PROBE, Stalls

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
        self.pending: dict[str, str] = {}  # shard → why it is not checked yet (down at start)
        self.stalls = Stalls(self.probe)  # shards that timed out: failed at once meanwhile

    def shard(self, name: str) -> RemoteStores:
        """The shard's backend, by the URL the table gives it (a ShardError if it has none); a
        pending shard is governed first (a StoreUnavailable naming it while it does not answer)."""
        found = self.remote(name)
        if name in self.pending:
            with named(name):
                self.placement.govern(found.server)
            with self._lock:
                self.pending.pop(name, None)
            log.warning("shard %r answers: its collections are read and written again", name)
        return found

    def remote(self, name: str) -> RemoteStores:
        """The shard's backend, not checked against the table (``shard`` checks it)."""
        with self._lock:
            found = self._shards.get(name)
        if found is not None:
            return found
        with table_read():
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
        with table_read():
            found = (
                self.placement.claim(scope, self.answers) if create else self.placement.row(scope)
            )
        self._remember((user, collection), found)
        return found

    def answers(self, name: str) -> bool:
        """Whether the shard answers now (asked before a new collection is placed on it, so
        that one made during an outage is written at once, not held)."""
        try:
            self.stalls.check(name)
            self.probe(name)
        except StoreUnavailable as exc:  # a StoreTimeout too: a shard that hangs is passed over
            log.warning("shard %r is passed over for a new collection: %s", name, exc)
            return False
        return True

    def probe(self, name: str) -> None:
        """One cheap request to the shard, given ``PROBE`` seconds."""
        self.remote(name).server.select("ASK {}", timeout=PROBE)

    @contextmanager
    def on_shard(self, name: str) -> Iterator[None]:
        """Requests to the shard, named (``named``); failed at once while it is stalled, and
        stalling it when one times out (``stalls.py``)."""
        self.stalls.check(name)
        try:
            with named(name):
                yield
        except StoreTimeout as exc:
            self.stalls.timed_out(name, exc)
            raise

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
        if row is None:  # never placed: on no shard, held for none (a write claims its row
            yield None  # first), so empty whichever shard it would go to, up or down
            return
        ops: list[Op] = []
        with (
            self.on_shard(row.on),
            self.shard(row.on).lease(user, collection, create=create, as_empty=as_empty) as handle,
        ):
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

    def get(self, user: str, collection: str, *, create: bool = False) -> Handle | None:
        row = self.row(user, collection, create=create)
        if row is None:
            return None
        with self.on_shard(row.on):
            return self.shard(row.on).get(user, collection, create=create)

    def scopes(self) -> list[tuple[str, str]]:
        """Every collection of every shard (one moving, once); a StoreUnavailable for one down."""
        found, down = self.reached()
        if down:
            raise StoreUnavailable(down[0])
        return found

    def reached(self) -> tuple[list[tuple[str, str]], list[str]]:
        """Every collection of the shards that answer, and a line naming each that does not."""
        found: set[tuple[str, str]] = set()
        down: list[str] = []
        with table_read():
            shards = sorted(self.placement.shards().items())
        for name, url in shards:
            try:
                with self.on_shard(name):
                    found.update(self.shard(name).scopes())
            except StoreTimeout as exc:  # it hangs: not called unreachable
                down.append(f"shard {name!r} ({url}) did not answer within {exc.seconds:g} s")
            except StoreUnavailable:
                down.append(f"shard {name!r} ({url}) is unreachable")
        return sorted(found), down

    def drop(self, user: str, collection: str) -> bool:
        """Drop the collection on its shard(s), then its row."""
        row = self.row(user, collection)
        if row is None:
            return False
        dropped = False
        for name in row.targets():
            with self.on_shard(name):
                dropped = self.shard(name).drop(user, collection) or dropped
        self.placement.forget(scope_iri(user, collection))
        self._remember((user, collection), None)
        return dropped

    def ask(self, query: str) -> bool:
        """``query`` on the control server and every shard (the held writes' probe): the first
        that cannot be reached is a StoreUnavailable naming it."""
        with table_read():
            self.placement.control.ask(query)
        for name in sorted(self.placement.shards()):
            with named(name):
                self.reach(name).ask(query)
        return True

    def reach(self, name: str) -> Reach:
        return Reach(self, name)  # the held writes' probe of one shard

    @property
    def uri(self) -> str:
        return " ".join(s.server.uri for s in self._shards.values()) or self.placement.control.uri

    def close(self) -> None:
        with self._lock:
            shards, self._shards = list(self._shards.values()), {}
        self.stalls.close()
        for s in shards:
            s.close()
        self.placement.control.close()
