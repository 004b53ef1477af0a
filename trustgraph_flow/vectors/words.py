"""Full-text search in a vector index: the chunks whose words best match a question.

A vector search ranks every chunk by its embedding; with a weak embedder (the offline
hashing one) or a long collection, the chunk that answers can lie beyond the candidates a
RAG asks for, and re-ranking those candidates by their words never finds it (issue 29: a
gold chunk beyond the 20 candidates). Milvus (2.5 on, Milvus Lite included) keeps a BM25
index of a text field: its analyzer splits the texts, a function makes each text's sparse
vector as it is inserted, and a search by plain text ranks the whole index by BM25. The
question's words reach Milvus only as data to search with, never in an expression.

Chunk indexes made from now on have it (``milvus_schema.create_collection``); an index made
before has no such field and answers a word search with nothing (the vector search stands
alone, as before). Each match is scored by its cosine to the question's vector, as a vector
search's would be, so a RAG's trace keeps one meaning for a chunk's score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pymilvus import MilvusClient

from trustgraph_base.schema import VectorMatch
from trustgraph_flow.vectors.milvus_schema import WORDS, _finite, _unit


def has_words(description: dict[str, Any]) -> bool:
    """Whether a described collection (``describe_collection``) keeps the word index."""
    return any(f.get("name") == WORDS for f in description.get("fields", ()))


def search_words(
    client: MilvusClient, name: str, words: str, vector: Sequence[float], limit: int, texts: bool
) -> list[VectorMatch]:
    """The ``limit`` items of ``name`` whose texts best match ``words`` (BM25), best first,
    each scored by the cosine of its vector (stored at unit length) with ``vector``; without
    ``texts``, their texts are left empty."""
    if not words.strip():
        return []
    unit = _unit(_finite(np.asarray([vector], dtype=np.float32)))[0]
    fields = ["item", "vector", "text"] if texts else ["item", "vector"]
    found = client.search(
        name, [words], anns_field=WORDS, limit=limit, output_fields=fields,
        search_params={"metric_type": "BM25"},
    )  # fmt: skip
    hits: list[dict[str, Any]] = list(found[0]) if found else []
    return [
        VectorMatch(
            id=h["entity"]["item"],
            score=float(np.dot(np.asarray(h["entity"]["vector"], dtype=np.float32), unit)),
            text=h["entity"].get("text", ""),
        )
        for h in hits
    ]
