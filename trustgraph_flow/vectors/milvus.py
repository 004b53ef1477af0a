"""The vector index in Milvus: one Milvus collection per (user, collection, kind).

pymilvus talks to Milvus Lite (a Milvus process the client starts, its files in one folder)
or to a Milvus server at a URI, with the same calls. No user string ever reaches a Milvus
name or filter expression: a collection is named by a hash of its (user, collection, kind),
which is also stored as the collection's description and checked on first use; an item's
primary key is a hash of its id and ``doc`` a hash of its document URI, so every filter
holds only hex digits this module made. (Milvus Lite has no filter templating, does not
decode ``\\n`` in a string literal, and pastes primary keys into SQL: an escaped user string
is not safe there.) The id, text and document themselves are stored as plain fields.

Vectors are stored scaled to unit length under the inner-product metric, so a score is
the cosine and a zero vector scores 0, as in the hand-written index this replaces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pymilvus import MilvusClient, MilvusException

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import VectorItem, VectorMatch
from trustgraph_flow.vectors.lite import lite_died, lite_file, release
from trustgraph_flow.vectors.milvus_schema import (
    KINDS,
    _check_dim,
    _keys_filter,
    _scope,
    _unavailable,
    collection_name,
    create_collection,
    key,
    rows_of,
    search,
)
from trustgraph_flow.vectors.words import has_words, search_words

T = TypeVar("T")


class MilvusVectors:
    """The indexes of every user, collection and kind in one Milvus database (blocking calls).

    With Milvus Lite (one process owns its folder) a write inserts the new ids and upserts
    only those already present: Milvus Lite's upsert grows slower with the collection's size
    (bench/bench_vectors.py). A server always upserts, which stays right when replicas race
    on one message.
    """

    def __init__(self, uri: str, lite_path: Path | None = None) -> None:
        self.uri = uri
        self.lite_path = lite_path
        self.client = MilvusClient(uri=uri)
        self._dims: dict[str, int] = {}  # collections known to exist (and loaded), by name
        self._words: set[str] = set()  # those of them with a word index (``words.py``)
        self._sizes: dict[str, int] = {}  # Milvus Lite's collection sizes (``_size``)

    @classmethod
    def open(cls, uri: str, data_dir: Path) -> MilvusVectors:
        """The server at ``uri``, or (empty) Milvus Lite in ``<data_dir>/vectors/milvus.db``."""
        if uri:
            return cls(uri)
        path = lite_file(data_dir)
        return cls(str(path), lite_path=path)

    def close(self) -> None:
        """Close the client (and stop Milvus Lite, which releases its folder)."""
        self.client.close()
        if self.lite_path is not None:
            release(self.lite_path)

    def _revive(self) -> None:
        """Start Milvus Lite again if its process has died (killed, out of memory)."""
        if self.lite_path is None or not lite_died(self.lite_path):
            return
        self.close()
        self.client = MilvusClient(uri=str(self.lite_path))

    # -- collections ------------------------------------------------------------------

    def _dim(self, name: str, scope: str) -> int | None:
        """The dimension of an existing collection (loaded for search), or None."""
        known = self._dims.get(name)
        if known is not None:
            return known
        if not self.client.has_collection(name):
            return None
        desc = self.client.describe_collection(name)
        if desc.get("description") != scope:
            raise ServiceError(
                ErrorType.INTERNAL_ERROR, f"Milvus collection {name} belongs to another index"
            )
        dim = next(int(f["params"]["dim"]) for f in desc["fields"] if f["name"] == "vector")
        if str(self.client.get_load_state(name).get("state")) != "Loaded":
            self.client.load_collection(name)
        self._dims[name] = dim
        if has_words(desc):
            self._words.add(name)
        return dim

    def _create(self, name: str, scope: str, dim: int, kind: str) -> None:
        create_collection(self.client, name, scope, dim, words=kind == "chunk")
        self._dims.pop(name, None)
        self._sizes.pop(name, None)

    def _drop(self, name: str) -> None:
        self._dims.pop(name, None)
        self._words.discard(name)
        self._sizes.pop(name, None)
        self.client.drop_collection(name)

    def _count(self, name: str, filter: str = "") -> int:
        rows = self.client.query(name, filter=filter, output_fields=["count(*)"])
        return int(rows[0]["count(*)"]) if rows else 0

    def _size(self, name: str) -> int:
        """The items in ``name``. Milvus Lite's (this process its one writer) are counted once
        between writes, not before every search (a ``count(*)`` is ~1 ms of CPU, a third of a
        query's); a server, which other replicas write too, is asked each time."""
        if self.lite_path is None:
            return self._count(name)
        if name not in self._sizes:
            self._sizes[name] = self._count(name)
        return self._sizes[name]

    def _write(self, name: str, rows: list[dict[str, Any]]) -> None:
        self._sizes.pop(name, None)
        if self.lite_path is None:
            self.client.upsert(name, rows)
            return
        present = self.client.query(
            name, filter=_keys_filter("id", [r["id"] for r in rows]), output_fields=["id"]
        )
        have = {row["id"] for row in present}
        new, old = [r for r in rows if r["id"] not in have], [r for r in rows if r["id"] in have]
        if old:
            self.client.upsert(name, old)
        if new:
            self.client.insert(name, new)

    def _retried(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)``; after a Milvus error, forget what is cached and try once more.

        Another replica may have dropped or created the collection since it was cached, or
        Milvus Lite's process may have died (it is started again). Every operation is
        idempotent, so a second try is safe; a second failure is ``unavailable``.
        """
        try:
            return fn(*args)
        except MilvusException:
            self._forget()
            self._revive()
        try:
            return fn(*args)
        except MilvusException as exc:
            self._forget()
            raise _unavailable(exc) from None

    def _forget(self) -> None:
        """Forget every collection's cached facts (they are read again when next used)."""
        self._dims.clear()
        self._sizes.clear()
        self._words.clear()

    # -- operations -------------------------------------------------------------------

    def upsert(self, user: str, collection: str, kind: str, items: Sequence[VectorItem]) -> int:
        """Add items, replacing any with the same id; returns how many were given."""
        return self._retried(self._upsert, user, collection, kind, items)

    def _upsert(self, user: str, collection: str, kind: str, items: Sequence[VectorItem]) -> int:
        dims = {len(item.vector) for item in items}
        if len(dims) > 1:
            raise ServiceError(
                ErrorType.BAD_REQUEST, f"items of one upsert differ in dimension: {sorted(dims)}"
            )
        if not items:
            return 0
        dim = dims.pop()
        name, scope = collection_name(user, collection, kind), _scope(user, collection, kind)
        held = self._dim(name, scope)
        if held and dim and dim != held and self._count(name) == 0:
            self._drop(name)  # an emptied index holds no dimension
            held = None
        _check_dim(dim, held)
        rows = rows_of(items)  # checked before the collection is made
        if held is None:
            self._create(name, scope, dim, kind)
            self._dim(name, scope)
        self._write(name, rows)
        return len(items)

    def query(
        self, user: str, collection: str, kind: str, vector: Sequence[float], limit: int,
        texts: bool = True, words: str | None = None,
    ) -> tuple[list[VectorMatch], int]:  # fmt: skip
        """The ``limit`` items most cosine-similar to ``vector``, best first, and the index
        size; without ``texts``, the matches' texts are left empty (``search``). With
        ``words``, the items whose texts best match them instead (``words.py``; none from an
        index without a word index), each scored by its cosine to ``vector``."""
        _check_dim(len(vector), None)
        return self._retried(self._query, user, collection, kind, vector, limit, texts, words)

    def _query(
        self, user: str, collection: str, kind: str, vector: Sequence[float], limit: int,
        texts: bool, words: str | None,
    ) -> tuple[list[VectorMatch], int]:  # fmt: skip
        name = collection_name(user, collection, kind)
        held = self._dim(name, _scope(user, collection, kind))
        size = self._size(name) if held else 0
        if not size:
            return [], 0
        _check_dim(len(vector), held)
        if words is None:
            return search(self.client, name, vector, min(limit, size), texts), size
        if name not in self._words:  # an index made before word search
            return [], size
        return search_words(self.client, name, words, vector, min(limit, size), texts), size

    def delete_document(self, user: str, collection: str, kind: str, document: str) -> int:
        """Remove every item of this index that came from ``document``; returns how many."""
        return self._retried(self._delete_document, user, collection, kind, document)

    def _delete_document(self, user: str, collection: str, kind: str, document: str) -> int:
        name = collection_name(user, collection, kind)
        if self._dim(name, _scope(user, collection, kind)) is None:
            return 0
        where = _keys_filter("doc", [key(document)])
        removed = self._count(name, where)
        if removed:
            self._sizes.pop(name, None)
            self.client.delete(name, filter=where)
        return removed

    def drop(self, user: str, collection: str) -> int:
        """Remove every kind's index of one collection; returns how many items they held."""
        return self._retried(self._drop_all, user, collection)

    def _drop_all(self, user: str, collection: str) -> int:
        removed = 0
        for kind in KINDS:
            name = collection_name(user, collection, kind)
            if self._dim(name, _scope(user, collection, kind)) is not None:
                removed += self._count(name)
                self._drop(name)
        return removed
