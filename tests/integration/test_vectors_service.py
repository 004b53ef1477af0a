"""The vectors and embeddings services on the real broker."""

from __future__ import annotations

import pytest

from tests.conftest import RunningProcessors
from tests.support.clients import client_fixture
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import EMBEDDINGS, VECTORS, Bus, RequestClient, Topics
from trustgraph_base.schema import (
    EmbeddingsRequest,
    EmbeddingsResponse,
    VectorItem,
    VectorQuery,
    VectorRequest,
    VectorResponse,
)
from trustgraph_base.schema.llm import VectorKind
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.vectors import processor as vectors

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only

Client = RequestClient[VectorRequest, VectorResponse]


client = client_fixture(VECTORS, "vectors-tester")


def upsert(user: str, collection: str, *items: tuple[str, list[float], str]) -> VectorRequest:
    return VectorRequest(
        user=user,
        collection=collection,
        operation="upsert",
        items=[VectorItem(id=i, vector=v, text=i, document=d) for i, v, d in items],
    )


def query(
    user: str, collection: str, vector: list[float], kind: VectorKind = "chunk"
) -> VectorRequest:
    return VectorRequest(
        user=user, collection=collection, operation="query", kind=kind, vector=vector
    )


def vectors_settings(settings: ProcessorSettings) -> vectors.Settings:
    return vectors.Settings(**settings.model_dump())


async def ids(client: Client, req: VectorRequest) -> list[str]:
    return [m.id for m in (await client.request(req, timeout=10)).matches]


async def test_isolation_between_users_collections_and_kinds(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    await processors.start(vectors.proc, vectors_settings(settings))
    await client.request(upsert("alice", "c1", ("a1", [1, 0], "d")), timeout=10)
    await client.request(upsert("alice", "c2", ("a2", [1, 0], "d")), timeout=10)
    await client.request(upsert("bob", "c1", ("b1", [1, 0], "d")), timeout=10)
    entity = VectorRequest(
        user="alice",
        collection="c1",
        operation="upsert",
        kind="entity",
        items=[VectorItem(id="e1", vector=[1, 0])],
    )
    await client.request(entity, timeout=10)
    assert await ids(client, query("alice", "c1", [1, 0])) == ["a1"]
    assert await ids(client, query("alice", "c2", [1, 0])) == ["a2"]
    assert await ids(client, query("bob", "c1", [1, 0])) == ["b1"]
    assert await ids(client, query("alice", "c1", [1, 0], kind="entity")) == ["e1"]
    assert await ids(client, query("carol", "c1", [1, 0])) == []
    with pytest.raises(ServiceError) as err:
        await client.request(query("alice", "c1", [1, 0, 0]), timeout=10)
    assert err.value.type == "bad-request" and "2-dimensional" in err.value.message


async def test_one_query_searches_several_kinds_with_their_own_limits(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    """``also``: the entity and chunk indexes searched with one vector in one request, each
    answer the one its own query gives, in the order asked; a bad kind is refused whole."""
    await processors.start(vectors.proc, vectors_settings(settings))
    await client.request(upsert("u", "c", ("c1", [1, 0], "d"), ("c2", [0, 1], "d"),
                                ("c3", [1, 1], "d")), timeout=10)  # fmt: skip
    entities = [VectorItem(id=f"e{i}", vector=[1, i]) for i in range(4)]
    await client.request(
        VectorRequest(user="u", collection="c", operation="upsert", kind="entity", items=entities),
        timeout=10,
    )
    both = VectorRequest(
        user="u", collection="c", operation="query", kind="entity", vector=[1, 0], limit=3,
        also=[VectorQuery(kind="chunk", limit=2), VectorQuery(kind="entity", limit=1)],
    )  # fmt: skip
    resp = await client.request(both, timeout=10)
    assert [m.id for m in resp.matches] == ["e0", "e1", "e2"] and resp.count == 4
    assert [[m.id for m in found] for found in resp.also] == [["c1", "c3"], ["e0"]]
    alone = await client.request(
        query("u", "c", [1, 0]).model_copy(update={"limit": 2}), timeout=10
    )
    assert resp.also[0] == alone.matches
    with pytest.raises(ValueError, match="kind"):
        VectorRequest.model_validate({**both.model_dump(), "also": [{"kind": "table"}]})
    # ``texts`` false (GraphRAG's): the same matches, ids and scores, without their texts
    bare = await client.request(both.model_copy(update={"texts": False}), timeout=10)
    assert [m.model_copy(update={"text": ""}) for m in resp.also[0]] == bare.also[0]
    assert [m.id for m in bare.matches] == ["e0", "e1", "e2"] and bare.count == 4
    assert {m.text for m in resp.also[0]} == {"c1", "c3"}
    assert {m.text for ms in (bare.matches, *bare.also) for m in ms} == {""}
    # a search of ``also`` may set its own: the entities bare, the chunks with their texts
    mixed = VectorRequest(
        user="u", collection="c", operation="query", kind="entity", vector=[1, 0], limit=3,
        also=[VectorQuery(kind="chunk", limit=2, texts=True)], texts=False,
    )  # fmt: skip
    found = await client.request(mixed, timeout=10)
    assert found.matches == bare.matches and found.also == [resp.also[0]]


async def test_index_survives_restart_and_deletes(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    first = RunningProcessors()
    await first.start(vectors.proc, vectors_settings(settings))
    await client.request(
        upsert(
            "u",
            "c",
            ("x1", [1, 0, 0], "doc:x"),
            ("x2", [0.9, 0.1, 0], "doc:x"),
            ("y1", [0, 1, 0], "doc:y"),
        ),
        timeout=10,
    )
    await first.stop_all()

    await processors.start(vectors.proc, vectors_settings(settings))
    assert await ids(client, query("u", "c", [1, 0, 0])) == ["x1", "x2", "y1"]
    gone = await client.request(
        VectorRequest(user="u", collection="c", operation="delete-document", document="doc:x"),
        timeout=10,
    )
    assert gone.count == 2
    assert await ids(client, query("u", "c", [1, 0, 0])) == ["y1"]
    dropped = await client.request(
        VectorRequest(user="u", collection="c", operation="delete-collection"), timeout=10
    )
    assert dropped.count == 1
    assert await ids(client, query("u", "c", [1, 0, 0])) == []


async def test_embeddings_then_vectors_find_the_nearest_text(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    bus: Bus,
    topics: Topics,
    client: Client,
) -> None:
    await processors.start(embeddings.proc, embeddings.Settings(**settings.model_dump()))
    await processors.start(vectors.proc, vectors_settings(settings))
    embed: RequestClient[EmbeddingsRequest, EmbeddingsResponse] = RequestClient(
        bus, topics, EMBEDDINGS, "emb-tester"
    )
    texts = [
        "Paris is the capital of France.",
        "Marie Curie discovered polonium.",
        "Rivers flow to the sea.",
    ]
    resp = await embed.request(EmbeddingsRequest(texts=texts), timeout=10)
    assert resp.model == "hashing-384" and len(resp.vectors) == 3 and len(resp.vectors[0]) == 384
    again = await embed.request(EmbeddingsRequest(texts=texts[:1]), timeout=10)
    assert again.vectors[0] == resp.vectors[0]
    await client.request(
        upsert("u", "c", *((t, v, "doc") for t, v in zip(texts, resp.vectors, strict=True))),
        timeout=10,
    )
    question = (
        await embed.request(EmbeddingsRequest(texts=["What is the capital of France?"]), timeout=10)
    ).vectors[0]
    assert (await ids(client, query("u", "c", question)))[0] == texts[0]
    await embed.close()
