"""Uploads that do not go as planned (issue 36 item 6): a chunked upload that does not
match its declared ``total-size`` stores nothing; processing asked for with the upload
starts on the server, whether or not the client is still there; Ctrl-C during
tg-load-document says what goes on and how to follow or remove it."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import RunningProcessors
from tests.support.ingest import Client, start
from tests.support.interrupt import interrupted_when
from tests.support.poll import eventually
from tests.support.stack import Stack, stack_fixture
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import Bus, Topics
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow import chunker, decoder
from trustgraph_flow.librarian import processor as librarian

META = {"id": "notes", "kind": "text/plain", "title": "Notes"}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
async def alice(bus: Bus, topics: Topics) -> AsyncIterator[Client]:
    client = Client(bus, topics)
    yield client
    await client.close()


async def test_an_upload_that_does_not_match_its_total_size_stores_nothing(
    processors: RunningProcessors, settings: ProcessorSettings, alice: Client
) -> None:
    await start(processors, settings, librarian)
    over = await alice.lib("begin-upload", document_metadata=META, total_size=10)
    with pytest.raises(ServiceError) as err:
        await alice.lib("upload-chunk", upload_id=over.upload_id, content=b64(b"x" * 12))
    assert err.value.type == "bad-request"
    assert "dropped, nothing stored: it would hold 12 bytes, more than its total-size 10" in (
        err.value.message
    )
    assert (await alice.lib("list-documents")).documents == []

    short = await alice.lib("begin-upload", document_metadata=META, total_size=10)
    await alice.lib("upload-chunk", upload_id=short.upload_id, content=b64(b"x" * 4))
    with pytest.raises(ServiceError) as err:
        await alice.lib("complete-upload", upload_id=short.upload_id)
    assert "it would hold 4 bytes, not its total-size 10" in err.value.message
    assert (await alice.lib("list-documents")).documents == []

    with pytest.raises(ServiceError) as err:
        await alice.lib("begin-upload", document_metadata=META, total_size=300 * 2**20)
    assert "larger than the librarian takes (268,435,456 bytes, 256 MiB)" in err.value.message
    assert (await alice.lib("list-documents")).documents == []

    exact = await alice.lib("begin-upload", document_metadata=META, total_size=10)
    await alice.lib("upload-chunk", upload_id=exact.upload_id, content=b64(b"0123456789"))
    done = await alice.lib("complete-upload", upload_id=exact.upload_id)
    assert done.document is not None and (done.document.status, done.document.size) == (
        "stored",
        10,
    )


async def test_processing_asked_with_the_upload_starts_without_the_client(
    processors: RunningProcessors, settings: ProcessorSettings, alice: Client
) -> None:
    await start(processors, settings, librarian, decoder, chunker)
    record = {"id": "load-1", "document-id": "notes"}
    begun = await alice.lib(
        "begin-upload", document_metadata=META, total_size=31, processing_metadata=record
    )
    await alice.lib(
        "upload-chunk", upload_id=begun.upload_id, content=b64(b"Paris is the capital of France.")
    )
    done = await alice.lib("complete-upload", upload_id=begun.upload_id)
    # the client goes away here: it never sends add-processing
    assert done.document is not None and done.document.status == "processing"
    (kept,) = (await alice.lib("list-processing")).processing_metadatas
    assert (kept.id, kept.document_id, kept.collection) == ("load-1", done.document.id, "default")

    async def chunked() -> None:
        while True:
            info = (await alice.lib("get-document", id=kept.document_id)).document
            if info is not None and info.chunks == 1:
                return
            await asyncio.sleep(0.05)

    await asyncio.wait_for(chunked(), 30)  # decoded and chunked with nobody waiting
    whole = await alice.lib(
        "add-document",
        document_metadata={**META, "id": "whole"},
        content=b64(b"Rome is the capital of Italy."),
        processing_metadata={"id": "load-2", "document-id": "whole"},
    )
    assert whole.document is not None and whole.document.status == "processing"


async def test_an_upload_left_without_parts_is_dropped(
    processors: RunningProcessors, settings: ProcessorSettings, alice: Client
) -> None:
    await start(processors, settings, librarian, upload_idle_seconds=3)
    begun = await alice.lib("begin-upload", document_metadata=META, total_size=10)
    await alice.lib("upload-chunk", upload_id=begun.upload_id, content=b64(b"01234"))
    listed = await alice.lib("list-documents")
    assert [d.status for d in listed.documents] == ["uploading"]  # the client dies here

    async def listed_now() -> list[str]:
        return [d.id for d in (await alice.lib("list-documents")).documents]

    assert await eventually(listed_now, lambda ids: ids == [], 30) == []
    with pytest.raises(ServiceError) as err:
        await alice.lib("upload-chunk", upload_id=begun.upload_id, content=b64(b"56789"))
    assert err.value.type == "not-found"


stack = stack_fixture([librarian.proc, decoder.proc, chunker.proc])  # no extractor: it waits


async def test_ctrl_c_during_a_load_says_the_server_goes_on(stack: Stack, tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Paris is the capital of France.\n")
    code, _, err = await interrupted_when(
        stack,
        "tg-load-document",
        str(note),
        "--id",
        "note",
        ready=lambda line: line.startswith("extracting"),  # uploaded, following
    )
    assert code == 130
    doc = "urn:trustgraph:doc:note"
    assert err.decode().strip() == (
        f"Interrupted: the server goes on processing {doc}. Follow it with 'tg-list-documents' "
        f"(or 'tg-show-document-hierarchy {doc}'); remove it with 'tg-remove-document {doc}'."
    )


async def test_a_load_that_loses_the_gateway_says_what_the_server_keeps(
    stack: Stack, tmp_path: Path
) -> None:
    """The stack stops (or is killed) while tg-load-document follows a stored document."""
    note = tmp_path / "note.txt"
    note.write_text("Paris is the capital of France.\n")
    code, _, err = await interrupted_when(
        stack,
        "tg-load-document",
        str(note),
        "--id",
        "note",
        ready=lambda line: line.startswith("extracting"),  # stored, following
        then=stack.close,
    )
    assert code == 1
    doc = "urn:trustgraph:doc:note"
    waited, line = err.decode().splitlines()  # for a restart that does not come
    assert waited == (
        f"gateway at {stack.url} refused the connection: waiting up to 5 s for it to come back"
    )
    assert line.startswith(f"Error: cannot reach gateway at {stack.url} ("), line
    assert line.endswith(
        f"; {doc} is stored: its processing goes on, or resumes when the stack runs again. "
        f"Follow it with 'tg-list-documents' (or 'tg-show-document-hierarchy {doc}'); remove "
        f"it with 'tg-remove-document {doc}'."
    ), line
