"""Milvus names, keys, filters and checks for the vector index (``milvus.py``): every name
and filter holds only hex digits made here, never a user string; and the collection schema."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from pymilvus import DataType, Function, FunctionType, MilvusClient, MilvusException

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import VectorItem, VectorMatch

KINDS = ("chunk", "entity")
MAX_BYTES = 65_535  # Milvus's VARCHAR limit, for ids, texts and document URIs
_KEY = 32  # hex digits of a 128-bit blake2b key
WORDS = "words"  # a chunk index's BM25 terms of each text (``words.py``)


def collection_name(user: str, collection: str, kind: str) -> str:
    """A valid Milvus collection name for one index, whatever the user and collection are."""
    return f"tg_{kind}_{key(_scope(user, collection, kind))}"


def key(value: str) -> str:
    """The hex key that stands for ``value`` in Milvus (a primary key or the ``doc`` field)."""
    data = value.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=_KEY // 2).hexdigest()


def _scope(user: str, collection: str, kind: str) -> str:
    return json.dumps([user, collection, kind])  # injective: a JSON array of strings


def _keys_filter(field: str, keys: Sequence[str]) -> str:
    return f"{field} in {json.dumps(list(keys))}"  # hex digits only: nothing to escape


def _unit(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero) so an inner product is the cosine."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


def _finite(matrix: np.ndarray) -> np.ndarray:
    if not np.isfinite(matrix).all():
        raise ServiceError(ErrorType.BAD_REQUEST, "vector holds a NaN or infinite value")
    return matrix


def _check_dim(dim: int, held: int | None) -> None:
    if dim == 0:
        raise ServiceError(ErrorType.BAD_REQUEST, "empty vector")
    if held and dim != held:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"vector has {dim} dimensions but this index holds {held}-dimensional vectors",
        )


def _check_sizes(item: VectorItem) -> None:
    for field in ("id", "text", "document"):
        size = len(getattr(item, field).encode("utf-8", "surrogatepass"))
        if size > MAX_BYTES:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"item {item.id[:80]!r}: its {field} is {size:,} bytes, more than the {MAX_BYTES:,} an index holds",
            )


def rows_of(items: Sequence[VectorItem]) -> list[dict[str, Any]]:
    """Milvus rows of checked ``items`` (one dimension), vectors at unit length; the last
    of repeated ids wins."""
    for item in items:
        _check_sizes(item)
    latest = {item.id: item for item in items}
    vectors = _unit(_finite(np.asarray([it.vector for it in latest.values()], dtype=np.float32)))
    return [
        {"id": key(it.id), "vector": vec, "item": it.id, "text": it.text,
         "document": it.document, "doc": key(it.document)}
        for it, vec in zip(latest.values(), vectors.tolist(), strict=True)
    ]  # fmt: skip


def search(
    client: MilvusClient, name: str, vector: Sequence[float], limit: int, texts: bool
) -> list[VectorMatch]:
    """The ``limit`` items of ``name`` most cosine-similar to ``vector``, best first; without
    ``texts``, their texts are not read (50 matches: ~0.3 ms of CPU less, Milvus Lite's and
    this process's together)."""
    query = _unit(_finite(np.asarray([vector], dtype=np.float32)))[0]
    found = client.search(
        name, [query.tolist()], anns_field="vector", limit=limit,
        output_fields=["item", "text"] if texts else ["item"],
        search_params={"metric_type": "IP"},
    )  # fmt: skip
    return best_first(list(found[0]) if found else [])


def best_first(hits: list[dict[str, Any]]) -> list[VectorMatch]:
    """A search's hits (``item`` and, if asked, ``text`` fields) as matches, best first,
    ties by id."""
    matches = [
        VectorMatch(
            id=h["entity"]["item"], score=float(h["distance"]), text=h["entity"].get("text", "")
        )
        for h in hits
    ]
    matches.sort(key=lambda m: (-m.score, m.id))
    return matches


def _unavailable(exc: MilvusException) -> ServiceError:
    return ServiceError(ErrorType.UNAVAILABLE, f"vector store: {exc.message} (code {exc.code})")


def create_collection(
    client: MilvusClient, name: str, scope: str, dim: int, words: bool = False
) -> None:
    """Create the collection ``name`` for ``scope`` with ``dim``-dimensional vectors (a
    replica that created it first is no error); with ``words``, its texts are also indexed
    for full-text search (``vectors/words.py``)."""
    schema = MilvusClient.create_schema(
        auto_id=False, enable_dynamic_field=False, description=scope
    )
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=_KEY)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
    schema.add_field("item", DataType.VARCHAR, max_length=MAX_BYTES)
    schema.add_field("text", DataType.VARCHAR, max_length=MAX_BYTES, enable_analyzer=words)
    schema.add_field("document", DataType.VARCHAR, max_length=MAX_BYTES)
    schema.add_field("doc", DataType.VARCHAR, max_length=_KEY)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="IP")  # exact, like a scan
    if words:  # Milvus makes each text's BM25 terms as it is inserted (``words.py``)
        schema.add_field(WORDS, DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(
            Function(
                name="text_words", function_type=FunctionType.BM25,
                input_field_names=["text"], output_field_names=[WORDS],
            )
        )  # fmt: skip
        index.add_index(WORDS, index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
    try:
        client.create_collection(
            name, schema=schema, index_params=index, consistency_level="Strong"
        )
    except MilvusException:
        if not client.has_collection(name):  # not a replica that created it first
            raise
