"""One shard down, on real ``oxigraph serve``: ``tg-store-shards list`` lists the others, marks
the down one with its URL and exits 1 naming it; a store opens without it (left pending),
never without the control server that holds the placement table."""

from __future__ import annotations

import re
import time
from contextlib import ExitStack

import pytest

from tests.support.sparql_server import oxigraph_server
from tests.support.store import labels, msg
from tests.unit.test_store_sharded import shards_cli
from trustgraph_base.messaging import free_port
from trustgraph_flow.store.backends.server.scope import scope_iri
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.backends.sharded.stores import ROW_CACHE
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.sparql.client import StoreUnavailable


def test_list_names_the_shard_that_is_down_and_lists_the_others() -> None:
    with ExitStack() as stack:
        a, b = (stack.enter_context(oxigraph_server()) for _ in "ab")
        with oxigraph_server() as c:
            spec = f"a={a} b={b} c={c}"
            stores = open_sharded(spec, 10)
            write_batch(stores, [msg(labels(), collection=f"k{n}") for n in range(9)])
            held = {n: stores.placement.placed_on(n) for n in "abc"}
            stores.close()
        # c's server is gone
        listed = shards_cli(spec, "list")
    assert listed.returncode == 1
    assert listed.stderr.splitlines() == [f"Error: shard 'c' ({c}) is unreachable"]
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    count = {n: f"{held[n]} collection{'s' * (held[n] != 1)}" for n in "abc"}
    assert rows == [
        ["a", a, count["a"]],
        ["b", b, count["b"]],
        ["c", c, count["c"], "unreachable"],
    ]
    assert sum(held.values()) == 9


def test_a_store_opens_without_a_down_shard_but_not_without_its_placement_table() -> None:
    with ExitStack() as stack:
        a, b = (stack.enter_context(oxigraph_server()) for _ in "ab")
        gone = f"http://127.0.0.1:{free_port()}"  # nothing listens there
        stores = open_sharded(f"a={a} b={b} c={gone}", 10, within=0.3, partial=True)
        try:  # c is registered, left pending; its reads name it, the others' are written
            assert sorted(stores.placement.shards()) == ["a", "b", "c"]
            assert list(stores.pending) == ["c"]
            with pytest.raises(
                StoreUnavailable, match=rf"^shard 'c' is unreachable: .*{re.escape(gone)}"
            ):
                stores.shard("c")
            write_batch(stores, [msg(labels(), collection=f"k{n}") for n in range(6)])
        finally:
            stores.close()
        with pytest.raises(StoreUnavailable, match=rf"^shard 'c': .*{re.escape(gone)}"):
            open_sharded(f"a={a} b={b} c={gone}", 10, within=0.3)  # every shard needed
        # The control server (the table) down: no placement to go by, so no start at all.
        with pytest.raises(StoreUnavailable, match=r"^the placement table cannot be read: "):
            open_sharded(f"c={gone} a={a} b={b}", 10, within=0.3, partial=True)


def test_the_control_server_down_is_named_as_the_placement_table() -> None:
    """A new user killed shard a (the control server): a read of a collection on b answered
    only 'SPARQL server <a's URL> unreachable', a server their collection is not on."""
    with oxigraph_server() as b:
        with oxigraph_server() as a:
            stores = open_sharded(f"a={a} b={b}", 10)
            write_batch(stores, [msg(labels(), collection=f"k{n}") for n in range(4)])
            rows = {f"k{n}": stores.placement.row(scope_iri("alice", f"k{n}")) for n in range(4)}
            on_b = [c for c, row in rows.items() if row is not None and row.on == "b"]
        time.sleep(ROW_CACHE)  # the rows read while a answered are asked again
        table = rf"^the placement table cannot be read: SPARQL server {re.escape(a)} unreachable"
        try:
            assert on_b  # four collections over two shards: b holds some
            with pytest.raises(StoreUnavailable, match=table), stores.lease("alice", on_b[0]):
                pass
            with pytest.raises(StoreUnavailable, match=table):
                stores.scopes()  # tg-list-collections
        finally:
            stores.close()
