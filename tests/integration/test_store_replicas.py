"""Store processors on one SPARQL server (``oxigraph serve``): no state of their own, so
several can write the same collections; a write is acked only once the server took it.

These run on either suite mode: each test starts the servers it needs itself.

pulsar-lite refuses a second process on one subscription (docs/messaging.md), so two
replicas sharing ``store.triples-store`` need real Pulsar. What is tested here instead is
the harder race: two store processes, each on its own topic prefix of one broker (its own
subscription), both writing into the same collection on the same server, each given every
message at the same time, or a trace split between them in the worst order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from tests.support.launcher import start_module
from tests.support.poll import eventually
from tests.support.sparql_server import oxigraph_server
from tests.support.store import msg
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import (
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Bus,
    RequestClient,
    Topics,
    free_port,
)
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import Triples, TriplesQueryRequest
from trustgraph_flow.store.remote import Scope
from trustgraph_flow.store.sparql_http import SparqlServer, term

PER_MESSAGE = 10


async def store_process(
    pulsar_url: str, prefix: str, store_uri: str, data: Path
) -> asyncio.subprocess.Process:
    """``tg-proc-store`` on the server ``store_uri``, once subscribed."""
    return await start_module(
        "trustgraph_flow.store.processor",
        "--pulsar-url", pulsar_url, "--topic-prefix", prefix, "--data-dir", str(data),
        "--store-uri", store_uri, "--log-level", "WARNING",
        ready=data.with_suffix(".ready"), timeout=60,
    )  # fmt: skip


@contextlib.asynccontextmanager
async def running(*procs: asyncio.subprocess.Process) -> AsyncIterator[None]:
    try:
        yield
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.terminate()
        for proc in procs:
            await proc.wait()


def count(url: str, user: str = "alice", collection: str = "default") -> int:
    """Triples in the collection's default graph, asked of the server itself."""
    server = SparqlServer(url)
    try:
        graph = term(Scope(user, collection).default)
        rows = server.rows(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} }}")
        return int(rows[0]["n"].value)
    finally:
        server.close()


async def counted(url: str) -> int:
    try:
        return await asyncio.to_thread(count, url)
    except OSError:  # the server is down
        return -1


def numbered(i: int) -> Triples:
    subject = iri(f"urn:test:m{i}")
    triples = [Triple(s=subject, p=iri(f"urn:test:p{k}"), o=lit(i)) for k in range(PER_MESSAGE)]
    return msg(triples, f"m{i}")


async def publish(bus: Bus, topic: str, messages: Sequence[Triples]) -> None:
    await asyncio.gather(*(bus.publish(topic, m, batching=True) for m in messages))


async def test_a_store_server_down_mid_stream_loses_nothing(
    bus: Bus, pulsar_url: str, prefix: str, topics: Topics, tmp_path: Path
) -> None:
    """The server is killed with writes in flight and more published while it is down: the
    store acks nothing it could not write and dead-letters nothing; once the server is back
    (same port, same data) every message is written, exactly once."""
    topic = topics.topic(TRIPLES_STORE)
    dead = await bus.subscribe(topics.dead_letter(topic, f"store.{TRIPLES_STORE}"), "inspect")
    port, location = free_port(), tmp_path / "oxigraph"
    before, during = [numbered(i) for i in range(400)], [numbered(i) for i in range(400, 800)]
    servers = contextlib.ExitStack()
    with servers:
        url = servers.enter_context(oxigraph_server(location, port=port))
        store = await store_process(pulsar_url, prefix, url, tmp_path / "store")
        triples = RequestClient(bus, topics, TRIPLES_QUERY, "tester")
        async with running(store):
            sending = asyncio.create_task(publish(bus, topic, before))
            await eventually(lambda: counted(url), lambda n: n > 0, 60)  # writes under way
            servers.close()  # the server is killed (SIGKILL) mid-stream
            await sending
            await publish(bus, topic, during)

            async def unavailable() -> bool:
                try:
                    await triples.request(TriplesQueryRequest(user="alice", limit=1), timeout=10)
                except ServiceError as exc:
                    return exc.type == ErrorType.STORE_UNAVAILABLE
                return False

            await eventually(unavailable, bool, 30)  # the store itself sees the server gone
            # An outage far longer than the broker's redelivery budget (3 nacks 0.2 s apart).
            await asyncio.sleep(3)
            servers.enter_context(oxigraph_server(location, port=port))
            total = (len(before) + len(during)) * PER_MESSAGE
            found = await eventually(lambda: counted(url), lambda n: n >= total, 60)
            assert found == total  # nothing lost, nothing doubled
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(dead.receive(), 1)  # nothing dead-lettered
        await triples.close()
