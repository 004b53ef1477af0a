"""The vector index's word search (``VectorQuery.by_words``): BM25 over a whole chunk index.

It finds a chunk the vector search ranks last, scores each match by its cosine to the
query's vector, stays inside its user and collection, takes hostile words as data, and
answers nothing where no word index is kept (the entity kind, an index made before).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunningProcessors
from tests.integration.test_vectors_milvus import HOSTILE
from tests.support.clients import client_fixture
from trustgraph_base.messaging import VECTORS, RequestClient
from trustgraph_base.schema import VectorItem, VectorQuery, VectorRequest, VectorResponse
from trustgraph_base.schema.llm import VectorKind
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.vectors import processor as vectors
from trustgraph_flow.vectors.milvus import MilvusVectors
from trustgraph_flow.vectors.milvus_schema import _scope, collection_name, create_collection

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only

Client = RequestClient[VectorRequest, VectorResponse]

client = client_fixture(VECTORS, "vectors-words-tester")

TEXTS = {  # id: (vector, text); the question's vector is [1, 0]
    "near": ([1.0, 0.0], "Packages are unpacked and configured by the package manager."),
    "mid": ([1.0, 1.0], "A trigger is always activated by a particular package."),
    "far": ([0.0, 1.0], "There are two new dpkg status values, triggers-pending and triggers-awaited."),
}  # fmt: skip


def _upsert(user: str, collection: str, kind: VectorKind = "chunk") -> VectorRequest:
    items = [VectorItem(id=i, vector=v, text=t, document="d") for i, (v, t) in TEXTS.items()]
    return VectorRequest(
        user=user, collection=collection, operation="upsert", kind=kind, items=items
    )


def _query(
    user: str, collection: str, words: str, kind: VectorKind = "chunk", limit: int = 3
) -> VectorRequest:
    return VectorRequest(
        user=user, collection=collection, operation="query", kind=kind, vector=[1, 0],
        limit=limit, words=words, also=[VectorQuery(kind=kind, limit=limit, by_words=True)],
    )  # fmt: skip


async def test_words_find_what_the_vector_ranks_last(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    await processors.start(vectors.proc, vectors.Settings(**settings.model_dump()))
    await client.request(_upsert("u", "c"), timeout=10)
    resp = await client.request(
        _query("u", "c", "What are the new dpkg status values?"), timeout=10
    )
    assert [m.id for m in resp.matches] == ["near", "mid", "far"]  # by vector
    words = resp.also[0]
    assert words[0].id == "far" and words[0].text == TEXTS["far"][1]
    cosines = {m.id: m.score for m in resp.matches}
    assert {m.id: pytest.approx(m.score, abs=1e-6) for m in words} == {
        m.id: cosines[m.id] for m in words
    }  # each scored by its cosine, as the vector search scores it
    one = await client.request(_query("u", "c", "triggers-awaited", limit=1), timeout=10)
    assert [m.id for m in one.also[0]] == ["far"]
    bare = _query("u", "c", "dpkg status").model_copy(update={"texts": False})
    assert {m.text for m in (await client.request(bare, timeout=10)).also[0]} == {""}
    # nothing to search with, or no word in the index: no match, no error
    for nothing in ("", "   ", "zebra"):
        assert (await client.request(_query("u", "c", nothing), timeout=10)).also == [[]]


async def test_words_stay_in_their_collection_and_are_data(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    await processors.start(vectors.proc, vectors.Settings(**settings.model_dump()))
    await client.request(_upsert("alice", "c1"), timeout=10)
    other = VectorItem(id="bob's", vector=[0, 1], text="dpkg status values dpkg status values")
    await client.request(
        VectorRequest(user="bob", collection="c1", operation="upsert", items=[other]), timeout=10
    )
    found = await client.request(_query("alice", "c1", "dpkg status values"), timeout=10)
    assert "bob's" not in {m.id for m in found.also[0]} and found.also[0][0].id == "far"
    assert (await client.request(_query("alice", "c2", "dpkg"), timeout=10)).also == [[]]
    for words in HOSTILE:  # quotes, operators, a NUL: searched for, never parsed
        resp = await client.request(_query("alice", "c1", words), timeout=10)
        assert {m.id for m in resp.also[0]} <= set(TEXTS)
    # the entity index keeps no words: a word search there finds nothing
    await client.request(_upsert("alice", "c1", kind="entity"), timeout=10)
    entity = await client.request(_query("alice", "c1", "dpkg", kind="entity"), timeout=10)
    assert entity.matches and entity.also == [[]]


def test_an_index_made_before_word_search_answers_no_words(tmp_path: Path) -> None:
    """A chunk index created without the word index (before this change) keeps answering
    vector searches; its word search finds nothing."""
    milvus = MilvusVectors.open("", tmp_path)
    try:
        name = collection_name("u", "old", "chunk")
        create_collection(milvus.client, name, _scope("u", "old", "chunk"), 2, words=False)
        items = [VectorItem(id=i, vector=v, text=t) for i, (v, t) in TEXTS.items()]
        milvus.upsert("u", "old", "chunk", items)
        found, size = milvus.query("u", "old", "chunk", [1, 0], 3)
        assert [m.id for m in found] == ["near", "mid", "far"] and size == 3
        assert milvus.query("u", "old", "chunk", [1, 0], 3, words="dpkg status") == ([], 3)
        new, _ = milvus.query("u", "new", "chunk", [1, 0], 3, words="dpkg")
        assert new == []  # no index at all
    finally:
        milvus.close()
