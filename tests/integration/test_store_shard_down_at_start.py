"""A store started while one of its three shards (``oxigraph serve`` each) is down: it starts
and says which shard is unreachable; ``tg-list-collections`` lists the other shards'
collections and names the down one (exit 1); deleting a collection placed on it answers
store-unavailable, never not-found; its writes are held, past the (small) bound the consumer
takes nothing more, and once it is back everything is written and listed. On either suite
mode: the test starts its own servers."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from contextlib import ExitStack
from pathlib import Path

import aiohttp
import pytest

from tests.integration.test_store_shards import counted, numbered, placed
from tests.support.hung_server import hung_server
from tests.support.poll import eventually
from tests.support.sparql_server import oxigraph_server
from tests.support.stack import ADMIN, Stack
from tests.support.store import labels, msg
from trustgraph_base.messaging import TRIPLES_STORE, free_port
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.backends.server.scope import Scope
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.governance.migrate import DONE, GRAPH
from trustgraph_flow.store.processor import proc as store
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.sparql.client import SparqlServer, term

HELD = 3  # the store's held_messages here
LIMIT = 2.0  # its sparql_timeout: how long a request to a shard is waited for


def migrated(url: str, collection: str) -> int:
    """The migration steps marked done in the collection on one server."""
    server = SparqlServer(url)
    try:
        graph = term(Scope("alice", collection).physical(GRAPH))
        rows = server.rows(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {graph} {{ {term(DONE)} ?p ?o }} }}"
        )
        return int(rows[0]["n"].value)
    finally:
        server.close()


async def test_a_store_starts_lists_and_holds_while_a_shard_is_down(
    pulsar_url: str, prefix: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    (on_c,), (on_a,), (on_b,) = placed("c", 1), placed("a", 1), placed("b", 1)
    port, location = free_port(), tmp_path / "shard-c"
    with ExitStack() as servers:
        a, b = (servers.enter_context(oxigraph_server()) for _ in "ab")
        with oxigraph_server(location, port=port) as c:
            spec = f"a={a} b={b} c={c}"
            seeded = open_sharded(spec, 10)  # a collection on each shard, then c goes down
            write_batch(seeded, [msg(labels(), collection=k) for k in (on_a, on_b, on_c)])
            seeded.close()
        settings = {
            "store": {
                "store_uri": spec,
                "shard_wait": 0.5,
                "held_messages": HELD,
                "sparql_timeout": LIMIT,
            }
        }
        async with Stack(
            pulsar_url,
            prefix,
            [store, librarian],
            data_dir=tmp_path,
            token=ADMIN,
            settings=settings,
        ) as stack:
            assert f"shard 'c' is unreachable (SPARQL server {c} unreachable" in caplog.text
            down = f"shard 'c' ({c}) is unreachable"

            listed = await stack.cli("tg-list-collections", "-U", "alice", "--format", "json")
            assert listed.code == 1, listed
            assert [x["collection"] for x in json.loads(listed.stdout)] == sorted([on_a, on_b])
            assert listed.stderr.splitlines() == [f"Error: {down}: its collections are not listed"]
            one = await stack.cli("tg-list-collections", "-U", "alice", "-C", on_c)
            assert (one.code, one.stderr.splitlines()) == (
                1,
                [f"Error: {down}: collection {on_c!r} of user 'alice' may be there"],
            ), one

            async def delete(collection: str) -> dict[str, str]:
                body = {"operation": "delete-collection", "user": "alice"}
                url = f"{stack.url}api/v1/collection-management"
                headers = {"Authorization": f"Bearer {ADMIN}"}
                async with (
                    aiohttp.ClientSession() as http,
                    http.post(url, json={**body, "collection": collection}, headers=headers) as r,
                ):
                    return dict((await r.json())["error"])

            error = await delete(on_c)
            assert error["type"] == "store-unavailable", error
            assert error["message"].startswith(f"{down}: collection {on_c!r} is on no other shard")
            error = await delete("nowhere")  # absent: not-found only once every shard answers
            assert error["type"] == "store-unavailable", error
            await reads_while_c_is_down(stack, c, on_c)

            # c's writes are held: past HELD messages the consumer takes nothing more.
            for i in range(HELD + 2):
                await stack.publish(TRIPLES_STORE, numbered(i, on_c))
            said = f"holding {HELD + 2} messages ({(HELD + 2) * 10} quads) for c, the most held"
            await eventually(lambda: asyncio.sleep(0), lambda _: said in caplog.text, 30)
            await stack.publish(TRIPLES_STORE, numbered(99, on_a))
            await asyncio.sleep(1)  # not taken: the consumer waits for a queue to shrink
            assert await counted(a, on_a) == len(labels())

            with oxigraph_server(location, port=port):  # c is back: all is written, once
                ask = functools.partial(counted, c, on_c)
                total = len(labels()) + (HELD + 2) * 10
                assert await eventually(ask, total.__le__, 30) == total
                ask = functools.partial(counted, a, on_a)
                assert await eventually(ask, (len(labels()) + 10).__le__, 30) == len(labels()) + 10
                assert "shard 'c' answers: its collections are read and written again" in (
                    caplog.text
                )
                # migrated once back (as the others were at start): its steps marked done
                marks = functools.partial(asyncio.to_thread, migrated, c, on_c)
                assert await eventually(marks, bool, 30)
                listed = await stack.cli("tg-list-collections", "-U", "alice")
                assert listed.code == 0, listed
                names = [ln.split()[0] for ln in listed.stdout.splitlines()[2:]]
                assert names == sorted([on_a, on_b, on_c])
            # c down again, after it answered (governed): its reads say the same
            await reads_while_c_is_down(stack, c, on_c)
            # c hangs (its port takes connections and never answers): the shard and the time
            # limit are named, not "unreachable" (a slow query times out alike), with no
            # traceback in the log; the other shards read as usual
            with hung_server(port) as hung:
                read = await stack.cli("tg-query-triples", "-U", "alice", "-C", on_c)
                said = f"shard 'c' ({c}) did not answer within {LIMIT:g} s"
                assert (read.code, read.stderr.splitlines()) == (
                    1,
                    [f"Error: {said} [store-unavailable]"],
                ), read
                # Timed out once, c is stalled: two reads of its collection at once answer
                # the same at once, without asking it (they held both reader threads for
                # the whole limit each, and a read of another shard's collection waited),
                # and a's collection reads as usual meanwhile.
                asked = hung.queries()
                reads = [("-C", on_c), ("-C", on_c), ("-C", on_a)]
                c1, c2, other = await asyncio.gather(
                    *(stack.cli("tg-query-triples", "-U", "alice", *r) for r in reads)
                )
                for read in (c1, c2):
                    assert (read.code, read.stderr.splitlines()) == (
                        1,
                        [f"Error: {said} [store-unavailable]"],
                    ), read
                assert other.code == 0 and other.stdout, other
                assert hung.queries() == asked, "a stalled shard was asked again"
                assert f"shard 'c' did not answer within {LIMIT:g} s: its collections'" in (
                    caplog.text
                )
            # c is back: the probe finds it (refused, then answering) and it is read again
            with oxigraph_server(location, port=port):
                read = await eventually(
                    lambda: stack.cli("tg-query-triples", "-U", "alice", "-C", on_c),
                    lambda r: r.code == 0,
                    30,
                )
                assert read.stdout, read
            assert "Traceback" not in caplog.text


async def reads_while_c_is_down(stack: Stack, c: str, on_c: str) -> None:
    """A read of a collection on c names the shard and its server, pending since the start or
    down after it alike; a collection never placed (the table, on a, says so) is empty,
    whichever shard it would go to: nothing of it is on c or held for it."""
    said = f"Error: shard 'c' is unreachable: SPARQL server {c} unreachable: "
    # tg-show-explain-trace (a streamed get-trace, its lease kept for the stream) said only
    # "SPARQL server … unreachable", not which shard
    reads: list[list[str]] = [
        ["tg-query-triples"],
        ["tg-show-explain-trace", "urn:trustgraph:agent:x"],
    ]
    for argv in reads:
        read = await stack.cli(*argv, "-U", "alice", "-C", on_c)
        assert read.code == 1, read
        (line,) = read.stderr.splitlines()
        assert line.startswith(said) and line.endswith(" [store-unavailable]"), read
    never = placed("c", 2)[1]  # would be placed on c; never written
    for command in ("tg-query-triples", "tg-list-explain-traces"):
        empty = await stack.cli(command, "-U", "alice", "-C", never, "--format", "json")
        assert (empty.code, empty.stderr, json.loads(empty.stdout)) == (0, "", []), empty
