"""A store processor over three shards (``oxigraph serve`` each), through the broker: a shard
killed mid-stream holds its collections' writes (the others are written) and loses none; a
collection moved by ``tg-store-shards`` while the processor writes into it loses none.
These start their own servers, on either suite mode."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
from pathlib import Path

import pytest

from tests.support.launcher import publish_all as publish
from tests.support.launcher import running, store_process
from tests.support.poll import eventually
from tests.support.sparql_server import oxigraph_server
from tests.support.store import msg
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import (
    EXPLAIN,
    EXPLAIN_STORE,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Bus,
    RequestClient,
    Topics,
    free_port,
)
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import ExplainRequest, Triples, TriplesQueryRequest
from trustgraph_flow.store.backends.server.scope import Scope, scope_iri
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.backends.sharded.placement import Row, rendezvous
from trustgraph_flow.store.sparql.client import SparqlServer, term

PER_MESSAGE = 10
NAMES = ["a", "b", "c"]


def numbered(i: int, collection: str) -> Triples:
    subject = iri(f"urn:test:m{i}")
    triples = [Triple(s=subject, p=iri(f"urn:test:p{k}"), o=lit(i)) for k in range(PER_MESSAGE)]
    return msg(triples, f"m{i}", collection=collection)


def count(url: str, collection: str) -> int:
    """Triples in the collection's default graph on one server."""
    server = SparqlServer(url)
    try:
        graph = term(Scope("alice", collection).default)
        rows = server.rows(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} }}")
        return int(rows[0]["n"].value)
    finally:
        server.close()


async def counted(url: str, collection: str) -> int:
    try:
        return await asyncio.to_thread(count, url, collection)
    except OSError:  # the server is down
        return -1


def placed(name: str, n: int) -> list[str]:
    """``n`` collection names a fresh table puts on the shard ``name`` (rendezvous over a, b, c)."""
    found = (f"k{i}" for i in range(1000))
    return [c for c in found if rendezvous(NAMES, scope_iri("alice", c)) == name][:n]


async def test_a_shard_down_mid_stream_holds_its_writes_and_loses_nothing(
    bus: Bus, pulsar_url: str, prefix: str, topics: Topics, tmp_path: Path
) -> None:
    topic, traces = topics.topic(TRIPLES_STORE), topics.topic(EXPLAIN_STORE)
    dead = await bus.subscribe(topics.dead_letter(topic, f"store.{TRIPLES_STORE}"), "inspect")
    dead_traces = await bus.subscribe(
        topics.dead_letter(traces, f"store.{EXPLAIN_STORE}"), "inspect"
    )
    on_c, elsewhere = placed("c", 2), placed("a", 1) + placed("b", 1)
    collections = on_c + elsewhere
    before = [numbered(i, collections[i % 4]) for i in range(400)]
    during = [numbered(i, collections[i % 4]) for i in range(400, 800)]
    port, location = free_port(), tmp_path / "shard-c"
    servers, killable = contextlib.ExitStack(), contextlib.ExitStack()
    with servers:
        a, b = (servers.enter_context(oxigraph_server()) for _ in range(2))
        c = killable.enter_context(oxigraph_server(location, port=port))
        urls = dict(zip(NAMES, (a, b, c), strict=True))
        spec = " ".join(f"{n}={u}" for n, u in urls.items())
        # Each collection placed now, while every shard answers (one whose first write came
        # after c's kill would go to the next shard that answers instead: docs/store.md)
        seeded = open_sharded(spec, 10)
        assert [seeded.row("alice", c, create=True) for c in on_c] == [Row("c"), Row("c")]
        seeded.close()
        store = await store_process(pulsar_url, prefix, spec, tmp_path / "store")
        triples = RequestClient(bus, topics, TRIPLES_QUERY, "tester")
        async with contextlib.AsyncExitStack() as procs:
            await procs.enter_async_context(running(store))
            sending = asyncio.create_task(publish(bus, topic, before))
            await eventually(lambda: counted(c, on_c[0]), lambda n: n > 0, 60)
            killable.close()  # shard c is killed (SIGKILL) mid-stream
            await sending

            async def written(messages: int) -> None:
                """Until each collection on a and b holds ``messages`` messages' triples."""
                for coll in elsewhere:
                    url = urls[rendezvous(NAMES, scope_iri("alice", coll))]
                    ask = functools.partial(counted, url, coll)
                    found = await eventually(ask, (messages * PER_MESSAGE).__le__, 60)
                    assert found == messages * PER_MESSAGE, coll

            # Both topics the store writes, held alike. The first half's batches hold c's
            # writes; the second half comes after them: its writes to a and b are made while
            # c is still down (one held batch delayed every later one until c was back).
            half = len(during) // 2
            for end in (half, len(during)):
                part = during[end - half : end]
                await publish(bus, topic, part[::2])
                await publish(bus, traces, part[1::2])
                await written((len(before) + end) // 4)

            async def unavailable() -> str:
                try:
                    req = TriplesQueryRequest(user="alice", collection=on_c[0], limit=1)
                    await triples.request(req, timeout=10)
                except ServiceError as exc:
                    return exc.message if exc.type == ErrorType.STORE_UNAVAILABLE else ""
                return ""

            said = await eventually(unavailable, bool, 30)
            assert f":{port}" in said  # the read names the shard's server
            # The other shards' collections are read as usual meanwhile.
            up = TriplesQueryRequest(user="alice", collection=elsewhere[0], limit=1)
            assert len((await triples.request(up, timeout=10)).triples) == 1
            # A deletion on the down shard answers store-unavailable naming it too (it was an
            # internal-error "StoreUnavailable: …", and a traceback in the store's log).
            explain = RequestClient(bus, topics, EXPLAIN, "tester")
            gone = "urn:trustgraph:question:gone"
            delete = ExplainRequest(
                operation="delete-trace", user="alice", collection=on_c[0], id=gone
            )
            with pytest.raises(ServiceError) as refused:
                await explain.request(delete, timeout=10)
            assert refused.value.type == ErrorType.STORE_UNAVAILABLE, refused.value
            assert f":{port}" in refused.value.message
            await explain.close()
            assert await counted(c, on_c[0]) == -1  # c is still down
            await asyncio.sleep(3)  # longer than the broker's redelivery budget
            # The store killed while it holds c's writes: they were never acked, so the
            # broker delivers them to the next store process (started once c is back).
            store.kill()
            await store.wait()
            killable.enter_context(oxigraph_server(location, port=port))
            each = (len(before) + len(during)) // 4 * PER_MESSAGE
            store = await store_process(pulsar_url, prefix, spec, tmp_path / "store")
            await procs.enter_async_context(running(store))
            for coll in collections:
                url = c if coll in on_c else urls[rendezvous(NAMES, scope_iri("alice", coll))]
                ask = functools.partial(counted, url, coll)
                found = await eventually(ask, lambda n: n >= each, 60)
                assert found == each, coll  # nothing lost, nothing doubled
                for other in urls.values():
                    if other != url:
                        assert await counted(other, coll) == 0, coll  # and on its shard only
            for letters in (dead, dead_traces):
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(letters.receive(), 1)  # nothing dead-lettered
        await triples.close()
        killable.close()


async def test_a_collection_moves_while_the_store_writes_into_it(
    bus: Bus, pulsar_url: str, prefix: str, topics: Topics, tmp_path: Path
) -> None:
    topic = topics.topic(TRIPLES_STORE)
    dead = await bus.subscribe(topics.dead_letter(topic, f"store.{TRIPLES_STORE}"), "inspect")
    busy = placed("a", 1)[0]
    with contextlib.ExitStack() as servers:
        urls = {n: servers.enter_context(oxigraph_server()) for n in NAMES}
        spec = " ".join(f"{n}={u}" for n, u in urls.items())
        store = await store_process(pulsar_url, prefix, spec, tmp_path / "store")
        sent: list[Triples] = []
        moved = asyncio.Event()

        async def send() -> None:  # 20 messages, then 50 ms
            batch = [numbered(len(sent) + i, busy) for i in range(20)]
            sent.extend(batch)
            await publish(bus, topic, batch)
            await asyncio.sleep(0.05)

        async def until_moved() -> int:
            """A steady stream until the move is done, and a little after; how many batches
            went while it ran."""
            during = 0
            while not moved.is_set():
                await send()
                during += 1
            for _ in range(10):
                await send()
            return during

        async with running(store):
            for _ in range(5):
                await send()
            await eventually(lambda: counted(urls["a"], busy), lambda n: n > 0, 60)
            sending = asyncio.create_task(until_moved())
            tool = str(Path(sys.executable).parent / "tg-store-shards")
            mover = await asyncio.create_subprocess_exec(
                tool, "--store-uri", spec, "move", "alice", busy, "b", "--settle", "1",
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await mover.communicate()
            moved.set()
            assert mover.returncode == 0, err.decode()
            assert out.decode().startswith(f"{busy}: a -> b (")
            assert await sending >= 20  # a steady stream the whole time the move ran
            total = len(sent) * PER_MESSAGE
            found = await eventually(lambda: counted(urls["b"], busy), lambda n: n >= total, 60)
            assert found == total  # nothing lost, nothing doubled
            assert await counted(urls["a"], busy) == 0 and await counted(urls["c"], busy) == 0
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(dead.receive(), 1)
