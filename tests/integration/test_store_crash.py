"""Crash consistency: SIGKILL the store mid-stream; after a restart every published triple is stored.

As ``tg-start`` does when a processor dies by a signal, the broker is restarted before the
store (pulsar-lite keeps a killed consumer's unread messages until then: docs/messaging.md),
so the test has a broker of its own unless TG_TEST_PULSAR_URL names a real one.

The stream goes on until the store is killed, and the kill is triggered by a triple-pattern
query on a connection of its own (answered on a reader thread, straight from the live
store), not by SPARQL: a SPARQL query runs in a worker process over a snapshot, and the
first answer of a poll (the worker's start-up, a checkpoint per write, the request queued
behind the stream's messages) could come after a fixed stream was fully written, so the
kill landed after its end. That the store died mid-stream is read from what it left on
disk (its RocksDB, opened read-only after the kill; or the store server's graph), not from
a count taken before the kill.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.launcher import start_store
from tests.support.store import msg
from trustgraph_base.errors import RequestTimeout
from trustgraph_base.messaging import (
    SPARQL,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Bus,
    EmbeddedBroker,
    RequestClient,
    Topics,
)
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import SparqlQueryRequest, TriplesQueryRequest
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.server.scope import Scope
from trustgraph_flow.store.sparql.client import SparqlServer, term

PER_MESSAGE, CHUNK, WINDOW, CAP = 10, 250, 4, 40_000
FIRST = iri("urn:test:p0")  # one triple of every message has this predicate
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture
async def broker(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[str, EmbeddedBroker | None]]:
    """This test's own pulsar-lite, or (None) the real broker TG_TEST_PULSAR_URL names."""
    if os.environ.get("TG_TEST_PULSAR_URL"):
        yield request.getfixturevalue("pulsar_url"), None
        return
    own = EmbeddedBroker(tmp_path / "broker").start()
    try:
        yield own.url, own
    finally:
        own.stop()


async def messages_stored(client: RequestClient, limit: int) -> int:  # type: ignore[type-arg]
    """How many messages are stored (up to ``limit``): a pattern query, never SPARQL."""
    resp = await client.request(TriplesQueryRequest(p=FIRST, user="alice", limit=limit), timeout=5)
    return len(resp.triples)


async def wait_messages(client: RequestClient, limit: int, timeout: float) -> int:  # type: ignore[type-arg]
    async def loop() -> int:
        while True:
            try:
                if (n := await messages_stored(client, limit)) >= limit:
                    return n
            except RequestTimeout:  # sent while the client reconnected to a restarted broker
                pass
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(loop(), timeout)


def on_disk(data: Path) -> int:
    """Triples the killed store left committed: its RocksDB opened read-only (WAL replayed),
    or, with the store on a SPARQL server (TG_STORE_URI), the collection's default graph there (on whichever shard holds it)."""
    url = os.environ.get("TG_STORE_URI")
    if url:
        found = 0
        for each in url.split():  # sharded (TG_TEST_STORE=sharded): the collection is on one
            server = SparqlServer(each)
            graph = term(Scope("alice", "default").default)
            rows = server.rows(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} }}")
            server.close()
            found += int(rows[0]["n"].value)
        return found
    store = ox.Store.read_only(str(Stores(data / "store").path("alice", "default") / "oxigraph"))
    return len(store)


def message(i: int):  # type: ignore[no-untyped-def]
    subject = iri(f"urn:test:m{i}")
    return msg(
        [Triple(s=subject, p=iri(f"urn:test:p{k}"), o=lit(i)) for k in range(PER_MESSAGE)], f"m{i}"
    )


class Flood:
    """Publishes messages, ``WINDOW`` chunks in flight (far faster than the store writes
    them), until ``killed`` is set; ``started``: how many publishes have begun."""

    def __init__(self, bus: Bus, topic: str) -> None:
        self.bus, self.topic = bus, topic
        self.started = 0
        self.killed = asyncio.Event()
        self._target, self._reached = 0, asyncio.Event()

    async def begun(self, target: int, timeout: float) -> None:
        """Until ``target`` publishes have begun."""
        self._target = target
        self._reached.clear()
        if self.started < target:
            await asyncio.wait_for(self._reached.wait(), timeout)

    async def one(self, i: int) -> None:
        self.started += 1
        if self.started >= self._target:
            self._reached.set()
        await self.bus.publish(self.topic, message(i), batching=True)

    async def chunk(self, start: int) -> None:
        await asyncio.gather(*(self.one(i) for i in range(start, start + CHUNK)))

    async def run(self) -> int:
        """Every message published (those in flight at the kill too)."""
        sent, flying = 0, set[asyncio.Task[None]]()
        while not self.killed.is_set():
            assert sent < CAP, "the store was not seen writing before the cap"
            while len(flying) < WINDOW:
                flying.add(asyncio.create_task(self.chunk(sent)))
                sent += CHUNK
            done, flying = await asyncio.wait(flying, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()
        await asyncio.gather(*flying)
        return sent


async def test_sigkill_mid_stream_loses_nothing(
    broker: tuple[str, EmbeddedBroker | None], prefix: str, tmp_path: Path
) -> None:
    pulsar_url, own = broker
    bus, control = Bus(pulsar_url), Bus(pulsar_url)  # requests never queue behind the stream
    data, ready = tmp_path / "data", tmp_path / "ready"
    first = await start_store(pulsar_url, prefix, data, ready)
    triples = RequestClient(control, Topics(prefix), TRIPLES_QUERY, "tester")
    sparql = RequestClient(control, Topics(prefix), SPARQL, "tester")
    flood = Flood(bus, Topics(prefix).topic(TRIPLES_STORE))
    try:
        assert await messages_stored(triples, 1) == 0  # subscribed and answering before the flood
        sending = asyncio.create_task(flood.run())
        await wait_messages(triples, 1, 60)  # the store has committed its first batch
        # Stopped, it takes nothing more in while the stream goes on: killed a chunk later, it
        # dies with messages in flight however fast it wrote (a loaded machine's store kept up
        # with its publisher, and a kill then found all 4,750 messages begun stored).
        first.send_signal(signal.SIGSTOP)
        await flood.begun(flood.started + CHUNK, 60)
        begun = flood.started  # no later message can have reached the store
        first.send_signal(signal.SIGKILL)
        flood.killed.set()
        await first.wait()
        published = await sending  # the chunk in flight at the kill, too
        committed = on_disk(data)
        assert 0 < committed < begun * PER_MESSAGE, (
            f"the store should die mid-stream: {committed} triples committed of the "
            f"{begun * PER_MESSAGE} published before the kill"
        )
        if own is not None:
            own.stop()
            own.start()  # same port, same data: the killed consumer's messages are free again
        second = await start_store(pulsar_url, prefix, data, ready)
        try:
            await wait_messages(triples, published, 120)
            resp = await sparql.request(SparqlQueryRequest(query=COUNT, user="alice"), timeout=60)
        finally:
            second.terminate()
            await second.wait()
        total = int(resp.bindings[0].values[0].v)  # type: ignore[union-attr]
        assert total == published * PER_MESSAGE  # nothing lost, nothing doubled
    finally:
        if first.returncode is None:
            first.kill()
        await triples.close()
        await sparql.close()
        await bus.close()
        await control.close()
