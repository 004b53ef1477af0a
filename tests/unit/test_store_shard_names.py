"""One server is one shard: a store URI naming a server the placement table already holds
under another name (a bare URL is its own name) is refused, by the processor and by
``tg-store-shards``, and the table is left as it was. Before, ``tg-store-shards --store-uri
URL list`` with the control server's URL alone registered it again as a fourth shard, and a
move between the two names would have copied a collection onto its own server and then
dropped it there."""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from tests.support.sparql_server import oxigraph_server
from tests.unit.test_store_sharded import shards_cli
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.backends.sharded.placement import ShardError


def test_a_server_already_in_the_table_is_not_registered_again_under_another_name() -> None:
    with ExitStack() as stack:
        a, b = (stack.enter_context(oxigraph_server()) for _ in "ab")
        stores = open_sharded(f"a={a} b={b}", 10)
        stack.callback(stores.close)

        listed = shards_cli(a, "list")  # the control server's URL alone
        assert (listed.returncode, listed.stdout) == (1, "")
        assert listed.stderr.splitlines() == [
            f"Error: the server {a} is shard 'a' in the placement table on {a}, not {a!r}: "
            "give every store processor the same shards"
        ]
        with pytest.raises(ShardError, match=f"the server {b} is shard 'b' .* not 'c'"):
            open_sharded(f"a={a} b={b} c={b}", 10)
        assert stores.placement.shards() == {"a": a, "b": b}
        assert shards_cli(f"a={a} b={b}", "list").returncode == 0

        # Retiring b as docs/deploy.md says: remove it (it holds nothing), then drop it from
        # the list; the command says so, since a process given b again registers it again.
        removed = shards_cli(f"a={a} b={b}", "remove", "b")
        assert removed.returncode == 0, removed.stderr
        assert removed.stdout.startswith("removed shard b; now drop it from the store URI")
        listed = shards_cli(f"a={a}", "list")
        assert (listed.returncode, listed.stdout) == (0, f"a\t{a}\t0 collections\n")
