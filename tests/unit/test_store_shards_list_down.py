"""``tg-store-shards list`` with one shard down, on real ``oxigraph serve``: the others are
listed, the down one is marked with its URL, and the command exits 1 naming it."""

from __future__ import annotations

from contextlib import ExitStack

from tests.support.sparql_server import oxigraph_server
from tests.support.store import labels, msg
from tests.unit.test_store_sharded import shards_cli
from trustgraph_flow.store.backends.sharded.stores import open_sharded
from trustgraph_flow.store.service.writer import write_batch


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
