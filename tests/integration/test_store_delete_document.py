"""Removing a document through the librarian empties the store of its provenance and unshared facts."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.conftest import RunningProcessors
from tests.support.ingest import Client, k, start
from tests.support.processors import PIPELINE
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import Bus, Topics
from trustgraph_base.provenance import RDFS
from trustgraph_base.provenance.uris import entity_uri, relation_uri
from trustgraph_base.schema import ExplainRequest
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.llm import processor as llm

CAPITAL = k(relation_uri("is the capital of"))
PARIS = (k(entity_uri("Paris")), CAPITAL, k(entity_uri("France")))
BERLIN = (k(entity_uri("Berlin")), CAPITAL, k(entity_uri("Germany")))
ROME = (k(entity_uri("Rome")), CAPITAL, k(entity_uri("Italy")))


@pytest.fixture
async def client(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> AsyncIterator[Client]:
    await start(processors, settings, llm, embeddings, *PIPELINE)
    c = Client(bus, topics)
    yield c
    await c.close()


async def hierarchy(client: Client, doc: str) -> str:
    """``found`` or the error type of a document-hierarchy request."""
    try:
        await client.explain.request(
            ExplainRequest(operation="document-hierarchy", id=doc, user=client.user), timeout=15
        )
    except ServiceError as exc:
        return exc.type
    return "found"


async def test_removed_document_leaves_only_the_other_documents_facts(client: Client) -> None:
    docs = {}
    for name, body in (
        ("a", "Paris is the capital of France. Berlin is the capital of Germany."),
        ("b", "Paris is the capital of France. Rome is the capital of Italy."),
    ):
        docs[name] = (await client.upload(name, body.encode(), "text/plain")).id
        assert (await client.settled(docs[name])).status == "complete"
    a, b = docs["a"], docs["b"]
    await client.wait_triples(lambda f: {PARIS, BERLIN, ROME} <= f, graph="")
    await client.wait_triples(
        lambda f: any(s == k(f"{d}/c0/subgraph") for s, _, _ in f for d in (a, b))
    )

    await client.lib("remove-document", id=a)

    source = await client.triples()
    mentions_a = [
        t
        for t in source
        if a in (getattr(t.s, "i", ""), getattr(t.o, "i", ""))
        or getattr(t.s, "i", "").startswith(a + "/")
    ]
    assert mentions_a == []
    assert any(getattr(t.s, "i", "").startswith(b + "/") for t in source)
    facts = {(s, p, o) for s, p, o in await client.wait_triples(lambda f: True, graph="")}
    assert PARIS in facts and ROME in facts and BERLIN not in facts
    labelled = {s for s, p, _ in facts if p == k(RDFS.label)}
    assert k(entity_uri("Berlin")) not in labelled and k(entity_uri("Germany")) not in labelled
    assert {k(entity_uri("Paris")), k(entity_uri("Rome")), CAPITAL} <= labelled
    assert (await hierarchy(client, a), await hierarchy(client, b)) == ("not-found", "found")
