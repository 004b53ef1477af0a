"""The vectors service's internal ``list`` operation (the gateway's export pages with it): every
item once, page by page in key order, on Milvus Lite and a Milvus server; a forged cursor is
refused; an index that does not exist lists nothing."""

from __future__ import annotations

import pytest

from tests.conftest import RunningProcessors
from tests.integration.test_vectors_milvus import backend, client, milvus_server, upsert
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import RequestClient
from trustgraph_base.schema import VectorItem, VectorRequest, VectorResponse
from trustgraph_flow.vectors import processor as vectors

__all__ = ["backend", "client", "milvus_server"]  # the fixtures this module uses

Client = RequestClient[VectorRequest, VectorResponse]


def listing(collection: str, after: str, limit: int) -> VectorRequest:
    return VectorRequest(
        user="u", collection=collection, operation="list", after=after, limit=limit
    )


async def test_list_pages_through_every_item_once(
    processors: RunningProcessors, backend: vectors.Settings, client: Client
) -> None:
    await processors.start(vectors.proc, backend)
    items = [
        VectorItem(id=f"urn:c{i}", vector=[float(i), 1.0], text=f"t{i}", document=f"urn:d{i % 3}")
        for i in range(25)
    ]
    await client.request(upsert("u", "c", *items), timeout=20)
    await client.request(upsert("u", "other", items[0]), timeout=20)
    seen: list[VectorItem] = []
    after, pages = "", 0
    while True:
        page = await client.request(listing("c", after, 7), timeout=20)
        assert len(page.items) <= 7 and page.count == len(page.items)
        seen += page.items
        pages += 1
        after = page.after
        if not after:
            break
    assert pages == 4  # 7 + 7 + 7 + 4
    assert sorted(i.id for i in seen) == sorted(i.id for i in items)
    by_id = {i.id: i for i in seen}
    assert by_id["urn:c3"].text == "t3" and by_id["urn:c3"].document == "urn:d0"
    norm = sum(x * x for x in by_id["urn:c3"].vector) ** 0.5  # stored at unit length
    assert abs(norm - 1.0) < 1e-5 and by_id["urn:c3"].vector[0] > by_id["urn:c3"].vector[1]
    empty = await client.request(listing("nothing", "", 10), timeout=20)
    assert empty.items == [] and empty.after == ""
    with pytest.raises(ServiceError, match="cursor"):
        await client.request(listing("c", '" || true || "', 10), timeout=20)
