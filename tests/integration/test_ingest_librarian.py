"""The librarian service on the real broker: scoping, uploads, content, removal."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.ingest import Client, configured, start
from tests.support.standin import StandIn
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import (
    DOCUMENT_LOADED,
    VECTORS,
    Bus,
    Context,
    Processor,
    Topics,
)
from trustgraph_base.schema import DocumentLoaded, VectorRequest, VectorResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import decode
from trustgraph_flow.librarian import processor as librarian
from trustgraph_flow.store import processor as store

BODY = b"Paris is the capital of France. " * 100
MIB = 1024 * 1024


def recording_vectors(seen: list[VectorRequest]) -> StandIn:
    proc: Processor[ProcessorSettings] = Processor("vectors")

    @proc.service(VECTORS)
    async def handle(req: VectorRequest, ctx: Context[ProcessorSettings]) -> VectorResponse:
        seen.append(req)
        return VectorResponse(count=0)

    return StandIn(proc)


@pytest.fixture
async def clients(bus: Bus, topics: Topics) -> AsyncIterator[tuple[Client, Client]]:
    alice, bob = Client(bus, topics, "alice"), Client(bus, topics, "bob")
    yield alice, bob
    await alice.close()
    await bob.close()


async def test_upload_in_parts_is_announced_and_scoped_per_user(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    bus: Bus,
    topics: Topics,
    clients: tuple[Client, Client],
) -> None:
    alice, bob = clients
    loaded = await bus.subscribe(topics.topic(DOCUMENT_LOADED), "inspect")
    await start(processors, settings, librarian)
    info = await alice.upload("facts", BODY, "text/plain", part_size=700, chunk_size=300)
    assert (info.status, info.size, info.chunk_size) == ("processing", len(BODY), 300)
    announced = decode(DocumentLoaded, (await asyncio.wait_for(loaded.receive(), 10)).data())
    assert announced.document.id == info.id and announced.metadata.user == "alice"

    assert [d.id for d in (await alice.lib("list-documents")).documents] == [info.id]
    assert (await bob.lib("list-documents")).documents == []
    for op in ("get-document", "get-content", "remove-document"):
        with pytest.raises(ServiceError) as err:
            await bob.lib(op, id="facts")
        assert err.value.type == "not-found", op
    # other collections of the same user are apart too
    assert (await alice.lib("list-documents", collection="other")).documents == []

    assert await alice.content(info.id, offset=32, length=5) == b"Paris"
    whole = await alice.lib("get-content", id=info.id)
    assert base64.b64decode(whole.content) == BODY and whole.total == len(BODY)


async def test_bad_uploads_are_refused(
    processors: RunningProcessors, settings: ProcessorSettings, clients: tuple[Client, Client]
) -> None:
    alice, _ = clients
    await start(processors, settings, librarian)

    def meta(id: str, **more: Any) -> dict[str, Any]:
        return {"document_metadata": {"id": id, "kind": "text/plain", **more}}

    cases: list[tuple[dict[str, Any], str]] = [
        ({**meta("x"), "content": "!!not base64!!"}, "bad-request"),
        ({**meta("my doc:1 <x>"), "content": ""}, "bad-request"),
        ({"id": "no-metadata", "content": ""}, "bad-request"),
        ({**meta("z"), "chunk_size": 100, "chunk_overlap": 100}, "bad-request"),
    ]
    for fields, kind in cases:
        with pytest.raises(ServiceError) as err:
            await alice.lib("add-document", **fields)
        assert err.value.type == kind, fields
    await alice.upload("once", b"hello", "text/plain")
    with pytest.raises(ServiceError) as err:
        await alice.upload("once", b"again", "text/plain")
    assert err.value.type == "already-exists"
    # an unfinished upload is listed as uploading and its content is not served yet
    half = await alice.lib("begin-upload", **meta("half"), total_size=16)
    chunk = base64.b64encode(b"part one").decode()
    await alice.lib("upload-chunk", upload_id=half.upload_id, content=chunk)
    with pytest.raises(ServiceError) as err:
        await alice.lib("upload-chunk", upload_id=half.upload_id, chunk_index=2, content="")
    assert "expected chunk-index 1, got 2" in err.value.message
    with pytest.raises(ServiceError) as err:
        await alice.lib("upload-chunk", upload_id="never-started", content="")
    assert err.value.type == "not-found"
    statuses = {
        d.id.rsplit(":", 1)[1]: d.status for d in (await alice.lib("list-documents")).documents
    }
    assert statuses == {"once": "processing", "half": "uploading"}
    with pytest.raises(ServiceError) as err:
        await alice.lib("get-content", id="half")
    assert err.value.type == "not-ready"


async def test_remove_document_clears_index_store_and_librarian(
    processors: RunningProcessors, settings: ProcessorSettings, clients: tuple[Client, Client]
) -> None:
    alice, _ = clients
    seen: list[VectorRequest] = []
    await start(processors, settings, librarian, removal_timeout=0.5)
    doc = (await alice.upload("gone", BODY, "text/plain")).id
    await alice.lib("put-content", id=doc, content=base64.b64encode(b"decoded text").decode())
    # nobody serves the vector index yet: the removal is refused and nothing is lost
    with pytest.raises(ServiceError) as err:
        await alice.lib("remove-document", id="gone")
    assert err.value.type == "unavailable"
    kept = (await alice.lib("get-document", id="gone")).document
    assert kept is not None and (kept.id, kept.size) == (doc, len(BODY))

    await start(processors, settings, recording_vectors(seen), store)
    removed = await alice.lib("remove-document", id="gone")
    assert removed.document is not None and removed.document.id == doc
    assert {(r.operation, r.kind, r.document, r.user) for r in seen[-2:]} == {
        ("delete-document", "chunk", doc, "alice"),
        ("delete-document", "entity", doc, "alice"),
    }
    for op in ("get-document", "get-content"):
        with pytest.raises(ServiceError) as err:
            await alice.lib(op, id="gone")
        assert err.value.type == "not-found"
    assert (await alice.lib("list-documents")).documents == []


async def test_large_document_survives_a_restart_and_is_served_in_ranges(
    settings: ProcessorSettings, clients: tuple[Client, Client]
) -> None:
    alice, _ = clients
    cfg = configured(librarian, settings)
    body = os.urandom(4 * MIB + 123)

    async def run_librarian() -> tuple[asyncio.Event, asyncio.Task[None]]:
        stop, ready = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(librarian.proc.run(cfg, stop, ready))
        await asyncio.wait_for(ready.wait(), 30)
        return stop, task

    stop, task = await run_librarian()
    doc = (await alice.upload("big", body, "application/pdf", part_size=MIB)).id
    stop.set()
    await task
    stop, task = await run_librarian()
    try:
        info = (await alice.lib("get-document", id="big")).document
        assert info is not None and (info.size, info.status) == (len(body), "processing")
        first = await alice.lib("get-content", id=doc)
        assert first.total == len(body)
        got = base64.b64decode(first.content)
        assert len(got) == cfg.max_content_bytes, "one reply is capped"
        while len(got) < len(body):
            got += await alice.content(doc, offset=len(got), length=MIB)
        assert got == body
        batch = await alice.lib("get-content", ids=[doc, doc, "urn:trustgraph:doc:nope"])
        assert batch.total == 1 and base64.b64decode(batch.contents[doc]) == body[: 3 * MIB]
    finally:
        stop.set()
        await task


async def test_chunked_upload_in_the_references_operations(
    processors: RunningProcessors, settings: ProcessorSettings, clients: tuple[Client, Client]
) -> None:
    alice, bob = clients
    await start(processors, settings, librarian)
    meta = {"id": "chunked", "kind": "text/plain", "title": "In chunks"}
    begun = await alice.lib("begin-upload", document_metadata=meta, total_size=11)
    assert begun.upload_id and begun.total_chunks == 1 and begun.upload_chunk_size > 0
    with pytest.raises(ServiceError) as err:
        await bob.lib("upload-chunk", upload_id=begun.upload_id, content="")
    assert err.value.type == "not-found"  # an upload id is no key into another user's upload
    for n, piece in enumerate((b"hello ", b"world")):
        chunk = base64.b64encode(piece).decode()
        await alice.lib("upload-chunk", upload_id=begun.upload_id, chunk_index=n, content=chunk)
    with pytest.raises(ServiceError) as err:
        await alice.lib("upload-chunk", upload_id=begun.upload_id, chunk_index=5, content="")
    assert err.value.type == "bad-request" and "expected chunk-index 2, got 5" in err.value.message
    done = await alice.lib("complete-upload", upload_id=begun.upload_id)
    assert done.document is not None and (done.document.status, done.document.size) == (
        "stored",
        11,
    )
    assert await alice.content(done.document.id) == b"hello world"
    with pytest.raises(ServiceError) as err:
        await alice.lib("complete-upload", upload_id=begun.upload_id)
    assert err.value.type == "not-found"

    again = await alice.lib("begin-upload", document_metadata={**meta, "id": "dropped"})
    await alice.lib("abort-upload", upload_id=again.upload_id)
    ids = {d.id for d in (await alice.lib("list-documents")).documents}
    assert ids == {done.document.id}
