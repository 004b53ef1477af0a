"""The embedded store's memtables flushed now and then as the writer writes in transactions
(``stores.FLUSH_QUADS``): on a thread of their own, under a lease, so an eviction or a drop
meanwhile neither opens a store twice nor loses a write."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.support.store import agent, handle_of, msg, quads
from trustgraph_flow.store.backends.embedded import stores as embedded
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.service.writer import write_batch


def tables(stores: Stores, user: str = "alice") -> int:
    """The store's table files on disk (a flush writes one a column family it held)."""
    return len(list((stores.path(user, "default") / "oxigraph").glob("*.sst")))


def settled(stores: Stores) -> None:
    with stores._flushed:
        assert stores._flushed.wait_for(lambda: not stores._flushing, timeout=30)


def test_a_store_written_past_the_bound_is_flushed_and_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = Stores(tmp_path)
    write_batch(stores, [msg(agent("s0", 1, "sub0"))])
    settled(stores)
    before, held = tables(stores), quads(handle_of(stores))
    monkeypatch.setattr(embedded, "FLUSH_QUADS", len(held) + 1)
    write_batch(stores, [msg(agent("s1", 2, "sub1"))])  # past the bound: flushed
    settled(stores)
    assert tables(stores) > before
    after = quads(handle_of(stores))
    assert held < after
    stores.close()
    reopened = Stores(tmp_path)
    assert quads(handle_of(reopened)) == after
    reopened.close()


def test_unflushed_below_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flushed: list[Handle] = []
    monkeypatch.setattr(Stores, "_flush", lambda self, handle: flushed.append(handle))
    stores = Stores(tmp_path)
    write_batch(stores, [msg(agent("s0", 1, "sub0"))])
    count = len(quads(handle_of(stores)))
    monkeypatch.setattr(embedded, "FLUSH_QUADS", 2 * count + 1)
    write_batch(stores, [msg(agent("s1", 2, "sub1"))])
    assert flushed == []  # 2 x count: not yet
    write_batch(stores, [msg(agent("s2", 3, "sub2"))])
    assert [h.key for h in flushed] == [("alice", "default")]


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Flushes wait for the first event; the second says one began."""
    gate, began = threading.Event(), threading.Event()
    flush = Stores._flush

    def held(self: Stores, handle: Handle) -> None:
        began.set()
        gate.wait(30)
        flush(self, handle)

    monkeypatch.setattr(Stores, "_flush", held)
    monkeypatch.setattr(embedded, "FLUSH_QUADS", 1)
    return gate, began


def test_a_collection_evicted_while_flushed_is_revived_not_opened_twice(
    tmp_path: Path, gated: tuple[threading.Event, threading.Event]
) -> None:
    gate, began = gated
    stores = Stores(tmp_path, capacity=1)
    write_batch(stores, [msg(agent("s0", 1, "sub0"))])
    assert began.wait(30)
    write_batch(stores, [msg(agent("s1", 1, "sub1"), user="bob")])  # evicts alice's store
    gate.set()
    write_batch(stores, [msg(agent("s2", 2, "sub2"))])  # leased again while still open
    settled(stores)
    subjects = {str(q.subject) for q in quads(handle_of(stores))}
    assert {"<urn:trustgraph:agent:s0>", "<urn:trustgraph:agent:s2>"} <= subjects
    stores.close()


def test_a_drop_waits_for_the_collection_s_flush(
    tmp_path: Path, gated: tuple[threading.Event, threading.Event]
) -> None:
    gate, began = gated
    stores = Stores(tmp_path)
    write_batch(stores, [msg(agent("s0", 1, "sub0"))])
    assert began.wait(30)
    dropped: list[bool] = []
    dropping = threading.Thread(target=lambda: dropped.append(stores.drop("alice", "default")))
    dropping.start()
    dropping.join(0.3)
    assert dropping.is_alive()  # the flush still holds the store
    gate.set()
    dropping.join(30)
    assert dropped == [True]
    assert not stores.path("alice", "default").exists()
    stores.close()
