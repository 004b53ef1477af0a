"""A page of one index's items in primary-key order: the vectors service's ``list`` operation.

Milvus answers a query with a limit in primary-key order (Milvus Lite too; pymilvus's own
query iterator relies on it), so ``id > cursor`` pages through an index however large, each
page bounded. The cursor is the last item's key: hex digits this module made, checked as such
before it goes into the filter, since it comes back in a request.
"""

from __future__ import annotations

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import VectorItem
from trustgraph_flow.vectors.milvus import MilvusVectors
from trustgraph_flow.vectors.milvus_schema import _KEY, _scope, collection_name

HEX = frozenset("0123456789abcdef")


def page(
    mv: MilvusVectors, user: str, collection: str, kind: str, after: str, limit: int
) -> tuple[list[VectorItem], str]:
    """Up to ``limit`` items after the cursor ``after`` and the next cursor ("" after the last)."""
    if after and (len(after) != _KEY or not set(after) <= HEX):
        raise ServiceError(ErrorType.BAD_REQUEST, "list: 'after' is a cursor a list reply gave")
    return mv._retried(_page, mv, user, collection, kind, after, limit)


def _page(
    mv: MilvusVectors, user: str, collection: str, kind: str, after: str, limit: int
) -> tuple[list[VectorItem], str]:
    name = collection_name(user, collection, kind)
    if mv._dim(name, _scope(user, collection, kind)) is None:
        return [], ""
    rows = mv.client.query(
        name,
        filter=f'id > "{after}"' if after else "",
        limit=limit,
        output_fields=["id", "vector", "item", "text", "document"],
    )
    rows.sort(key=lambda r: r["id"])
    items = [
        VectorItem(
            id=r["item"],
            vector=[float(x) for x in r["vector"]],
            text=r["text"],
            document=r["document"],
        )
        for r in rows
    ]
    return items, rows[-1]["id"] if len(rows) == limit else ""
