"""D10, D11, D13 on the real stack: depth and size limits answered, half-sent requests dropped,
content offsets checked, abandoned uploads restartable, a deleted collection fully gone."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.poll import eventually
from tests.support.stack import Stack
from trustgraph_base.messaging import VECTORS, Bus, RequestClient
from trustgraph_base.schema import VectorItem, VectorRequest
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.processor import proc as store
from trustgraph_flow.vectors.processor import proc as vectors

NESTED = "[" * 10000 + "]" * 10000
TRIPLES = {"p": {"t": "i", "i": "urn:p"}, "limit": 1}


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with Stack(
        pulsar_url,
        prefix,
        [store, librarian, vectors],
        data_dir=tmp_path,
        gateway={"http_timeout": 1.0},
    ) as running:
        yield running


async def rest(stack: Stack, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            stack.url + path, data=io.BytesIO(data), headers={"Content-Type": "application/json"}
        ) as resp,
    ):
        return resp.status, await resp.json()


def frame(rid: str, service: str, request: Any) -> str:
    return json.dumps({"id": rid, "service": service, "request": request})


async def test_deep_and_huge_requests_are_answered_and_the_socket_stays(stack: Stack) -> None:
    async with aiohttp.ClientSession() as http, http.ws_connect(stack.url + "api/v1/socket") as ws:
        await ws.send_str('{"id": "deep", "service": "triples", "request": ' + NESTED + "}")
        reply = json.loads(await ws.receive_str(timeout=10))
        assert (
            reply["error"]["type"] == "bad-frame"
            and "nested too deeply" in reply["error"]["message"]
        )
        await ws.send_str(frame("big", "sparql", {"query": "#" + "x" * 10_000_000}))
        reply = json.loads(await ws.receive_str(timeout=30))
        assert (reply["id"], reply["error"]["type"]) == ("big", "frame-too-large")
        await ws.send_str(frame("after", "triples", TRIPLES))
        reply = json.loads(await ws.receive_str(timeout=10))
        assert reply["id"] == "after" and reply["response"]["response"] == []
    status, body = await rest(stack, "api/v1/flow/default/service/triples", NESTED.encode())
    assert (status, body["error"]["type"]) == (400, "bad-frame")
    status, body = await rest(
        stack, "api/v1/flow/default/service/sparql", {"query": "#" + "x" * 10_000_000}
    )
    assert (status, body["error"]["type"]) == (413, "frame-too-large")


async def test_half_sent_requests_are_dropped(stack: Stack) -> None:
    port = int(stack.url.rsplit(":", 1)[1].strip("/"))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /api/v1/librarian HTTP/1.1\r\nHost: x\r\n")  # headers never finished
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 10) == b""  # closed by the gateway
    writer.close()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /api/v1/librarian HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    await writer.drain()
    answer = await asyncio.wait_for(reader.readuntil(b"}}"), 10)  # the error body's end
    assert answer.startswith(b"HTTP/1.1 408") and b"request-timeout" in answer
    writer.close()


async def add(stack: Stack, doc: str, *, final: bool = True) -> tuple[int, dict[str, Any]]:
    """Store a small document; without ``final``, only begin its upload and abandon it."""
    meta = {"document-metadata": {"id": doc, "kind": "text/plain"}}
    if not final:
        return await rest(stack, "api/v1/librarian", {"operation": "begin-upload", **meta})
    content = base64.b64encode(b"hello world").decode()
    return await rest(
        stack, "api/v1/librarian", {"operation": "add-document", **meta, "content": content}
    )


async def test_content_offsets_and_abandoned_uploads(stack: Stack) -> None:
    status, _ = await add(stack, "half", final=False)  # begun, then abandoned
    assert status == 200
    status, body = await add(stack, "half")  # starting it again is allowed
    assert status == 200 and body["document"]["status"] == "stored"
    status, body = await add(stack, "half")
    assert (status, body["error"]["type"]) == (200, "already-exists")
    status, body = await rest(
        stack, "api/v1/librarian", {"operation": "get-content", "id": "half", "offset": 10**18}
    )
    assert (status, body["error"]["type"]) == (200, "bad-request")
    assert "past the end" in body["error"]["message"]
    status, body = await rest(
        stack, "api/v1/librarian", {"operation": "get-content", "id": "half", "offset": 6}
    )
    assert status == 200 and base64.b64decode(body["content"]) == b"world"


async def test_delete_collection_removes_documents_and_vectors(stack: Stack) -> None:
    assert (await add(stack, "doomed"))[0] == 200
    bus = Bus(stack.pulsar_url)
    index = RequestClient(bus, stack.topics, VECTORS, "tester")  # the pipeline's own write
    item = VectorItem(
        id="urn:c1", vector=[1.0, 0.0], text="t", document="urn:trustgraph:doc:doomed"
    )
    await index.request(VectorRequest(operation="upsert", items=[item]), timeout=10)
    await index.close()
    await bus.close()
    query = {"operation": "query", "vector": [1.0, 0.0]}
    status, body = await rest(stack, "api/v1/flow/default/service/vectors", query)
    assert status == 200 and body["count"] == 1
    status, _ = await rest(
        stack, "api/v1/flow/default/service/explain", {"operation": "delete-collection"}
    )
    assert status == 200

    async def documents() -> list[Any]:
        listed: list[Any] = (
            await rest(stack, "api/v1/librarian", {"operation": "list-documents"})
        )[1]["documents"]
        return listed

    assert await eventually(documents, lambda d: d == []) == []
    counted = await eventually(
        lambda: rest(stack, "api/v1/flow/default/service/vectors", query),
        lambda r: r[1]["count"] == 0,
    )
    assert counted[1]["count"] == 0
