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
import functools
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import pyoxigraph as ox
import pytest
from aiohttp import web

from tests.support.launcher import publish_all as publish
from tests.support.launcher import running, store_process
from tests.support.poll import eventually, until
from tests.support.sparql_server import oxigraph_server
from tests.support.store import DOC, agent, doc_rag, document, failed_agent, graph_rag, labels, msg
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import (
    EXPLAIN,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Bus,
    RequestClient,
    Topics,
    free_port,
)
from trustgraph_base.provenance import citation_triples, uris
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, iri, lit
from trustgraph_base.schema import Triples, TriplesQueryRequest
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_flow.store.backends.server.scope import Scope
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.sparql.client import SparqlServer, literal, term

PER_MESSAGE = 10
P1 = uris.page_uri(DOC, 1)
FOX_EDGE = "<{}> <{}> <{}>".format(
    uris.entity_uri("fox"), uris.relation_uri("jumps over"), uris.entity_uri("dog")
)


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


@contextlib.asynccontextmanager
async def refusing(upstream: str, word: bytes) -> AsyncIterator[str]:
    """A front for the server ``upstream`` that answers 500 to every update naming ``word``
    and passes everything else through: a server that is up but keeps failing one write."""
    http = aiohttp.ClientSession(trust_env=False)

    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        if request.path.endswith("/update") and word in body:
            return web.Response(status=500, text="this write always fails")
        headers = {k: v for k, v in request.headers.items() if k in ("Content-Type", "Accept")}
        async with http.post(upstream + request.path, data=body, headers=headers) as resp:
            data = await resp.read()
            return web.Response(status=resp.status, body=data, content_type=resp.content_type)

    app = web.Application()
    app.router.add_post("/{endpoint}", forward)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()
        await http.close()


async def test_a_write_the_server_keeps_failing_is_dead_lettered_and_the_rest_go_on(
    bus: Bus, pulsar_url: str, prefix: str, topics: Topics, tmp_path: Path
) -> None:
    """A batch held for a server that is down is not held for one that is up: a write the
    server keeps failing (5xx) while it answers is tried a few times, then redelivered and
    dead-lettered like any failing message, and the other collections' writes go on."""
    topic = topics.topic(TRIPLES_STORE)
    dead = await bus.subscribe(topics.dead_letter(topic, f"store.{TRIPLES_STORE}"), "inspect")
    poison = Triple(s=iri("urn:test:poison"), p=iri("urn:test:p"), o=lit("x"))
    with oxigraph_server() as url:
        async with refusing(url, b"<urn:test:poison>") as front:
            store = await store_process(pulsar_url, prefix, front, tmp_path / "store")
            async with running(store):
                await publish(bus, topic, [msg([poison], "poison", user="mallory")])
                await publish(bus, topic, [numbered(i) for i in range(200)])
                got = await asyncio.wait_for(dead.receive(), 60)
                assert b"urn:test:poison" in got.data()
                total = 200 * PER_MESSAGE
                found = await eventually(lambda: counted(url), lambda n: n >= total, 60)
                assert found == total
                await publish(bus, topic, [numbered(200)])  # the topic still moves
                await eventually(lambda: counted(url), lambda n: n > total, 60)
                await dead.acknowledge(got)


# --- two store processes racing on the same messages -----------------------------------


def entities(triples: list[Triple]) -> list[list[Triple]]:
    """A trace as its producers publish it: one message per entity (subject), in order."""
    by_subject: dict[str, list[Triple]] = {}
    for t in triples:
        by_subject.setdefault(str(t.s), []).append(t)
    return list(by_subject.values())


def corpus() -> list[Triples]:
    """Agent traces (each with a GraphRAG sub-trace), GraphRAG and DocumentRAG traces citing
    what they selected, and failed agents: one message per entity."""
    out: list[list[Triple]] = []
    for i in range(12):
        g, d = uris.graph_rag_question_uri(f"g{i}"), uris.docrag_question_uri(f"d{i}")
        out += entities(graph_rag(f"g{i}", 4 * i + 1))
        out.append(citation_triples(uris.synthesis_uri(g), [uris.focus_edge_uri(g, 1)]))
        out += entities(doc_rag(f"d{i}", 4 * i + 2))
        out.append(citation_triples(uris.synthesis_uri(d), [uris.chunk_uri(P1, 1)]))
        out += entities(agent(f"a{i}", 4 * i + 3, f"s{i}"))
        out += entities(failed_agent(f"f{i}", 4 * i + 4))
    return [msg(ts, f"e{n}") for n, ts in enumerate(out)]


def dump(url: str) -> list[str]:
    """Every quad of alice's default collection (all its graphs, the trace index too), sorted,
    with duplicates kept (a server returns each stored quad once: a set). Not its signing
    log (``urn:tg:integrity``): each process signs in a chain of its own (``log_verifies``)."""
    server = SparqlServer(url)
    try:
        scope = literal(Scope("alice", "default").iri + ":")
        log = term(Scope("alice", "default").physical(ox.NamedNode("urn:tg:integrity")))
        rows = server.rows(
            "SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } "
            f"FILTER(STRSTARTS(STR(?g), {scope}) && ?g != {log}) }}"
        )
        return sorted(" ".join(str(r[v]) for v in ("g", "s", "p", "o")) for r in rows)
    finally:
        server.close()


def marker() -> Triples:
    """The last message of a stream, in a collection of its own (``markers``): once it is
    stored, its process has written all before it (batches are written in order)."""
    triple = Triple(s=iri("urn:test:done"), p=iri("urn:test:mark"), o=lit(uuid.uuid4().hex))
    return msg([triple], "marker", collection="markers")


def marked(url: str, mark: Triples) -> bool:
    server = SparqlServer(url)
    try:
        graph = term(Scope("alice", "markers").default)
        o = mark.triples[0].o
        assert isinstance(o, LiteralTerm)
        return server.ask(f"ASK {{ GRAPH {graph} {{ ?s ?p {literal(o.v)} }} }}")
    finally:
        server.close()


Ask = Callable[[ExplainRequest], Awaitable[ExplainResponse]]


async def views(ask: Ask, traces: list[str]) -> dict[str, Any]:
    """Everything the explain service shows of the collection, as plain data."""

    async def view(**fields: Any) -> dict[str, Any]:
        resp = await ask(ExplainRequest(user="alice", **fields))
        return resp.model_dump(exclude={"end_of_stream"})

    pages, after = [], None
    while True:
        page = await view(operation="list-traces", limit=10, cursor=after)
        pages.append(page)
        if not (after := page["cursor"]):
            break
    shown: dict[str, Any] = {"pages": pages}
    for trace in traces:
        shown[trace] = await view(operation="get-trace", id=trace, include_provenance=True)
    for source in (FOX_EDGE, uris.chunk_uri(P1, 0), uris.chunk_uri(P1, 1), P1, DOC):
        shown[source] = await view(operation="source-usage", id=source, limit=100)
    shown["hierarchy"] = await view(operation="document-hierarchy", id=DOC)
    return shown


class Pair:
    """Two store processes on one server (``shared``), each on its own topic prefix, and a
    reference: the same writer, in this process, on a server of its own (``alone``)."""

    def __init__(self, bus: Bus, shared: str, alone: str, prefixes: dict[str, str]) -> None:
        self.bus, self.shared, self.alone = bus, shared, alone
        self.topics = {name: Topics(p).topic(TRIPLES_STORE) for name, p in prefixes.items()}
        self.explain = {
            name: RequestClient(bus, Topics(p), EXPLAIN, "tester") for name, p in prefixes.items()
        }
        self.reference = RemoteStores(SparqlServer(alone))

    def write_reference(self, messages: Sequence[Triples]) -> None:
        for m in messages:
            write_batch(self.reference, [m])  # one store, each message once, in order

    async def send(self, name: str, messages: Sequence[Triples]) -> None:
        """Publish to one process, then wait until it has written all of it."""
        await publish(self.bus, self.topics[name], messages)
        mark = marker()
        await publish(self.bus, self.topics[name], [mark])
        await until(lambda: asyncio.to_thread(marked, self.shared, mark), 120)

    async def same(self, chains: int | None = None) -> list[str]:
        """The shared collection, checked quad for quad against the reference's, and its
        log, which either process may have appended to (a chain each), verifying through either."""
        found = await asyncio.to_thread(dump, self.shared)
        assert found == await asyncio.to_thread(dump, self.alone)
        for client in self.explain.values():

            async def verify(client: Any = client) -> Any:
                ask = ExplainRequest(operation="verify-log", user="alice")
                return (await client.request(ask, timeout=60)).verification

            # Both write the same quads, and a process signs a trace only when its newest
            # entry, in either chain, has another digest: the one behind may find every
            # trace signed already (one chain), or sign some of them (two).
            checked = await eventually(verify, lambda v: v is not None, 30)
            assert checked.verified, checked
            assert chains is None or 1 <= checked.chains <= chains, checked
        return found

    async def views_agree(self) -> dict[str, Any]:
        """Every view through either process, checked against the reference's; process a's."""
        listed = explain_op(
            self.reference, ExplainRequest(operation="list-traces", user="alice", limit=1000)
        )
        traces = [t.id for t in listed.traces]
        assert len(traces) == 48 and len(set(traces)) == 48  # every top-level trace, once
        shown = {
            name: await views(functools.partial(client.request, timeout=60), traces)
            for name, client in self.explain.items()
        }
        assert shown["a"] == shown["b"]
        assert shown["a"] == await views(
            lambda req: asyncio.to_thread(explain_op, self.reference, req), traces
        )
        usage = shown["a"][FOX_EDGE]["usage"]["traces"]
        cited = {p["trace"]: p["cited"] for t in usage for p in t["paths"]}
        assert cited == {  # each GraphRAG answer cites its edge; the agents' sub-traces do not
            **{uris.graph_rag_question_uri(f"g{i}"): True for i in range(12)},
            **{uris.graph_rag_question_uri(f"s{i}"): False for i in range(12)},
        }
        return shown["a"]

    async def close(self) -> None:
        for client in self.explain.values():
            await client.close()
        self.reference.close()


@pytest.fixture
async def pair(bus: Bus, pulsar_url: str, tmp_path: Path) -> AsyncIterator[Pair]:
    """``Pair`` with the document already written (ingest comes before the questions)."""
    with oxigraph_server() as shared, oxigraph_server() as alone:
        prefixes = {"a": "ra" + uuid.uuid4().hex[:8], "b": "rb" + uuid.uuid4().hex[:8]}
        procs = [
            await store_process(pulsar_url, p, shared, tmp_path / f"store-{name}")
            for name, p in prefixes.items()
        ]
        made = Pair(bus, shared, alone, prefixes)
        try:
            async with running(*procs):
                ingest = [msg(document() + labels(), "doc")]
                made.write_reference(ingest)
                await made.send("a", ingest)
                await made.send("b", ingest)
                yield made
        finally:
            await made.close()


async def test_two_store_processes_given_every_message_at_once_store_what_one_would(
    pair: Pair,
) -> None:
    """Two store processes on one server, each consuming every message (its own
    subscription), one in publication order and one in reverse, at the same time: the
    collection ends up quad for quad what one store given each message once, in order,
    writes; every view through either process answers as that store does; deleting the
    document through one and retention through the other remove what they remove there."""
    stream = corpus()
    pair.write_reference(stream)
    await asyncio.gather(pair.send("a", stream), pair.send("b", stream[::-1]))
    await pair.same(chains=2)  # a chain for each process that signed something
    await pair.views_agree()

    remove = ExplainRequest(operation="delete-document", id=DOC, purge_traces=True, user="alice")
    await pair.explain["a"].request(remove, timeout=60)
    explain_op(pair.reference, remove)
    await pair.same()
    purge = ExplainRequest(operation="purge-traces", older_than=0, user="alice")
    await pair.explain["b"].request(purge, timeout=60)
    explain_op(pair.reference, purge)
    left = await pair.same()
    assert not [q for q in left if "urn:trustgraph:question:" in q or "session" in q]
    for client in pair.explain.values():
        listed = await client.request(ExplainRequest(operation="list-traces", user="alice"))
        assert listed.traces == []


def concluding(m: Triples) -> bool:
    """Whether a message is a trace's last stage (a synthesis, its citations, an agent's final)."""
    subject = m.triples[0].s
    if not isinstance(subject, IriTerm):
        return False
    root = uris.trace_root(subject.i)
    return root is not None and uris.is_conclusion_uri(root, subject.i)


async def test_traces_split_between_two_store_processes_in_the_worst_order_are_stored_as_one_would(
    pair: Pair,
) -> None:
    """As replicas sharing a subscription (or partitions) may split a trace: process a writes
    every trace's last stage (answers, citations, finals) first, then process b the stages
    before them. The collection and every view are what one store writes in order: an
    answer's citation marks the edge or chunk it cites though that came second."""
    stream = corpus()
    pair.write_reference(stream)
    await pair.send("a", [m for m in stream if concluding(m)])
    await pair.send("b", [m for m in stream if not concluding(m)])
    await pair.same()
    await pair.views_agree()
