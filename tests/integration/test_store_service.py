"""The store processor against the real broker: writing, isolation, queries and explain."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pulsar.asyncio import Consumer

from tests.conftest import RunningProcessors
from tests.support.poll import eventually
from tests.support.store import (
    DOC,
    EDGE_FOX,
    agent,
    doc_rag,
    document,
    graph_rag,
    labels,
    msg,
)
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import (
    EXPLAIN,
    SPARQL,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Bus,
    RequestClient,
    Topics,
)
from trustgraph_base.provenance import TG, uris
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, iri, quoted
from trustgraph_base.schema import (
    ExplainRequest,
    ExplainResponse,
    SparqlQueryRequest,
    SparqlQueryResponse,
    Triples,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import encode
from trustgraph_flow.store.processor import StoreSettings, proc

Clients = tuple[
    RequestClient[TriplesQueryRequest, TriplesQueryResponse],
    RequestClient[SparqlQueryRequest, SparqlQueryResponse],
    RequestClient[ExplainRequest, ExplainResponse],
]


@pytest.fixture
async def clients(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> AsyncIterator[Clients]:
    await processors.start(proc, StoreSettings(**settings.model_dump()))
    made = (
        RequestClient(bus, topics, TRIPLES_QUERY, "tester"),
        RequestClient(bus, topics, SPARQL, "tester"),
        RequestClient(bus, topics, EXPLAIN, "tester"),
    )
    yield made
    for c in made:
        await c.close()


@pytest.fixture
async def dead_letters(bus: Bus, topics: Topics) -> Consumer:
    """The store's dead-letter topic for triples-store, subscribed before anything is sent."""
    topic = topics.topic(TRIPLES_STORE)
    return await bus.subscribe(topics.dead_letter(topic, f"store.{TRIPLES_STORE}"), "inspect")


def fact(subject: str, ident: str, predicate: str = "urn:p", user: str = "alice") -> Triples:
    """A batch ``ident`` of one triple, ``<subject> <predicate> "1"``."""
    return msg([Triple(s=iri(subject), p=iri(predicate), o=LiteralTerm(v="1"))], ident, user=user)


async def explained(
    client: RequestClient[ExplainRequest, ExplainResponse], operation: str, **fields: Any
) -> ExplainResponse:
    """The explain service's answer to ``operation`` (for alice unless ``user`` is given)."""
    req = ExplainRequest(operation=operation, **{"user": "alice", **fields})
    return await client.request(req, timeout=10)


async def publish(bus: Bus, topics: Topics, *messages: object) -> None:
    for m in messages:
        await bus.publish(topics.topic(TRIPLES_STORE), m)  # type: ignore[arg-type]


async def test_isolation_between_users_and_collections(clients, bus: Bus, topics: Topics) -> None:  # type: ignore[no-untyped-def]
    triples_c, sparql_c, explain_c = clients
    await publish(
        bus, topics,
        msg(graph_rag("alice1", 1), "a", "alice", "default"),
        msg(graph_rag("alice2", 2), "b", "alice", "other"),
        msg(graph_rag("bob1", 3), "c", "bob", "default"),
    )  # fmt: skip

    async def listed(user: str, collection: str) -> list[str]:
        resp = await explained(explain_c, "list-traces", user=user, collection=collection)
        return [t.id.rsplit(":", 1)[1] for t in resp.traces]

    assert await eventually(lambda: listed("bob", "default"), lambda v: v == ["bob1"])
    assert await eventually(lambda: listed("alice", "other"), lambda v: v == ["alice2"])
    assert await eventually(lambda: listed("alice", "default"), lambda v: v == ["alice1"])
    assert await listed("carol", "default") == []

    ask = "ASK { GRAPH ?g { ?q <https://trustgraph.ai/ns/query> ?text FILTER(CONTAINS(?text, 'bob1')) } }"
    for user, collection, expected in (
        ("bob", "default", True),
        ("alice", "default", False),
        ("alice", "other", False),
    ):
        resp = await sparql_c.request(
            SparqlQueryRequest(query=ask, user=user, collection=collection), timeout=10
        )
        assert resp.ask_result is expected
    pattern = TriplesQueryRequest(p=TG.query, g="*", user="alice", collection="default")
    found = (await triples_c.request(pattern, timeout=10)).triples
    assert [t.o for t in found] == [LiteralTerm(v="what does the fox do? (alice1)")]

    with pytest.raises(ServiceError) as err:
        await explained(explain_c, "get-trace", id="bob1")
    assert err.value.type == "not-found"

    await explained(explain_c, "delete-collection", collection="other")
    assert await listed("alice", "other") == []
    assert await listed("alice", "default") == ["alice1"]


async def test_bad_input_is_dead_lettered_or_rejected_and_the_writer_goes_on(
    clients: Clients, bus: Bus, topics: Topics, dead_letters: Consumer
) -> None:
    triples_c, _, _ = clients
    topic = topics.topic(TRIPLES_STORE)
    invalid = b'{"metadata": {"id": "x"}, "triples": [{"s": {"t": "i", "i": "has space"}, "p": {"t": "i", "i": "urn:p"}, "o": {"t": "l", "v": "1"}}]}'
    ill_typed = b'{"metadata": {"id": "y"}, "triples": [{"s": {"t": "i", "i": "urn:s"}, "p": {"t": "i", "i": "urn:p"}, "o": {"t": "l", "v": "abc", "dt": "http://www.w3.org/2001/XMLSchema#integer"}}]}'
    await bus.publish(topic, invalid)
    await bus.publish(topic, ill_typed)
    # The schema lets it through, pyoxigraph's parser does not: dead-lettered alone too.
    refused = encode(fact("http://ex.com/%zz", "refused"))
    hostile = b'{"metadata": {"id": "z"}, "nquads": "<urn:half> <urn:p> \\"1\\" .\\n<urn:s> <urn:p> _:x _:g .\\n"}'
    await bus.publish(topic, refused)
    await bus.publish(topic, hostile)
    await publish(bus, topics, fact("urn:good", "good"))
    dead_payloads = {(await asyncio.wait_for(dead_letters.receive(), 15)).data() for _ in range(4)}
    assert dead_payloads == {invalid, ill_typed, refused, hostile}
    query = TriplesQueryRequest(p=iri("urn:p"), g="*", user="alice")
    found = await eventually(
        lambda: triples_c.request(query, timeout=10), lambda r: len(r.triples) >= 1
    )
    assert [t.s for t in found.triples] == [iri("urn:good")]


async def test_queries_and_explain_over_the_bus(clients, bus: Bus, topics: Topics) -> None:  # type: ignore[no-untyped-def]
    triples_c, sparql_c, explain_c = clients
    await publish(
        bus,
        topics,
        msg(document() + labels(), "doc"),
        msg(agent("a1", 3, "g-sub"), "agent"),
        msg(graph_rag("g1", 1), "g"),
        msg(doc_rag("d1", 2), "d"),
    )

    async def listing() -> list[str]:
        resp = await explained(explain_c, "list-traces")
        return [t.id for t in resp.traces]

    ids = await eventually(listing, lambda v: len(v) == 3)
    assert ids == [
        uris.agent_session_uri("a1"),
        uris.docrag_question_uri("d1"),
        uris.graph_rag_question_uri("g1"),
    ]
    trace = (await explained(explain_c, "get-trace", id=ids[0], include_provenance=True)).trace
    assert (
        trace is not None and trace.steps[0].subtraces[0].edges[0].sources[0].title == "Sample PDF"
    )
    hierarchy = (await explained(explain_c, "document-hierarchy", id=DOC)).document
    assert hierarchy is not None and [p.number for p in hierarchy.pages] == [1, 2]

    edge_query = TriplesQueryRequest(o=quoted(*EDGE_FOX), g="urn:graph:retrieval", user="alice")
    found = (await triples_c.request(edge_query, timeout=10)).triples
    assert {t.s.i for t in found if hasattr(t.s, "i")} == {
        uris.focus_edge_uri(uris.graph_rag_question_uri(s), 1) for s in ("g1", "g-sub")
    }
    assert (
        len(
            (
                await triples_c.request(edge_query.model_copy(update={"limit": 1}), timeout=10)
            ).triples
        )
        == 1
    )
    # GraphRAG's form (``nquads``): the same triples; streamed, a batch a triple
    as_text = edge_query.model_copy(update={"nquads": True, "streaming": True, "batch_size": 1})
    batches = [r.triples async for r in triples_c.stream(as_text, timeout=10)]
    assert [t for b in batches for t in b] == found and {len(b) for b in batches} == {1}

    for bad, kind in (
        ("DELETE WHERE { ?s ?p ?o }", "sparql-update-refused"),
        ("SELECT ?x WHERE {", "sparql-syntax"),
    ):
        with pytest.raises(ServiceError) as err:
            await sparql_c.request(SparqlQueryRequest(query=bad, user="alice"), timeout=10)
        assert err.value.type == kind
    with pytest.raises(ServiceError) as err:
        await explained(explain_c, "get-trace", id="not a trace id")
    assert err.value.type == "bad-request"

    await explained(explain_c, "delete-trace", id="a1")
    assert await listing() == ids[1:]
    gone = TriplesQueryRequest(s=iri(uris.graph_rag_question_uri("g-sub")), g="*", user="alice")
    assert (await triples_c.request(gone, timeout=10)).triples == []


async def test_reply_too_large_is_an_error_naming_the_fix(
    clients: Clients, bus: Bus, topics: Topics
) -> None:
    triples_c, _, _ = clients
    big = "x" * 1_000_000
    await publish(
        bus,
        topics,
        *(
            msg([Triple(s=iri(f"urn:big:{i}"), p=iri("urn:big"), o=LiteralTerm(v=big))], f"big{i}")
            for i in range(5)
        ),
    )
    query = TriplesQueryRequest(p=iri("urn:big"), g="*", user="alice", limit=2)
    await eventually(lambda: triples_c.request(query, timeout=10), lambda r: len(r.triples) == 2)
    with pytest.raises(ServiceError) as err:
        await eventually(
            lambda: triples_c.request(query.model_copy(update={"limit": 10}), timeout=10),
            lambda r: False,
        )
    assert err.value.type == "result-too-large" and "lower the limit" in err.value.message


async def test_poison_messages_are_rejected_alone_and_the_writer_lives(
    clients: Clients, bus: Bus, topics: Topics, dead_letters: Consumer
) -> None:
    """D3: whatever a message holds, it is dead-lettered alone; its batch is written."""
    triples_c, _, _ = clients
    topic = topics.topic(TRIPLES_STORE)
    poison = [
        b"[" * 100000 + b"]" * 100000,
        b'{"metadata": ' * 20000 + b"1" + b"}" * 20000,
        b'\xff\xfe{"metadata": {"id": "x"}, "triples": []}',
        b"[]",
        b'{"metadata": 5, "triples": "no"}',
    ]
    goods = [
        fact(f"urn:good:{u}{n}", f"{u}{n}", "urn:p3", u) for n in range(3) for u in ("alice", "bob")
    ]
    mixed: list[Triples | bytes] = [x for pair in zip(goods, poison, strict=False) for x in pair]
    mixed += goods[len(poison) :]
    await asyncio.gather(*(bus.publish(topic, m) for m in mixed))
    dead_payloads = [(await asyncio.wait_for(dead_letters.receive(), 15)).data() for _ in poison]
    assert sorted(dead_payloads) == sorted(poison)

    async def subjects(user: str) -> list[str]:
        found = await triples_c.request(
            TriplesQueryRequest(p=iri("urn:p3"), g="*", user=user), timeout=10
        )
        return sorted(t.s.i for t in found.triples if isinstance(t.s, IriTerm))

    for user in ("alice", "bob"):
        expected = [f"urn:good:{user}{n}" for n in range(3)]
        assert await eventually(functools.partial(subjects, user), expected.__eq__) == expected
    # the consumer is still there: a later message is written too
    await bus.publish(topic, fact("urn:good:later", "later", "urn:p3"))
    assert "urn:good:later" in await eventually(
        lambda: subjects("alice"), lambda r: "urn:good:later" in r
    )
