"""The librarian's store: uploads by parts, scoping, texts, chunk spans and progress."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from trustgraph_base.schema import ChunkSpan, DocumentInfo, IngestEvent, Metadata
from trustgraph_flow.librarian.store import LibrarianStore, Scope, StoreError, owner_document

DOC = "urn:trustgraph:doc:d1"
ALICE = Scope("alice", "default")
BOB = Scope("bob", "default")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LibrarianStore]:
    s = LibrarianStore(tmp_path / "lib")
    yield s
    s.close()


def uploaded(store: LibrarianStore, scope: Scope = ALICE, doc: str = DOC) -> DocumentInfo:
    store.begin_upload(
        DocumentInfo(
            id=doc,
            title="T",
            mime_type="text/plain",
            user=scope.user,
            collection=scope.collection,
            time="2026-01-01T00:00:00Z",
            status="uploading",
        )
    )
    store.append_part(scope, doc, 0, b"Paris is ")
    store.append_part(scope, doc, 1, b"the capital of France.")
    assert store.finish_upload(scope, doc).status == "stored"
    return store.start_processing(scope, doc)


def event(stage: str, source: str, **kw: int | str) -> IngestEvent:
    return IngestEvent(
        metadata=Metadata(id=DOC, user="alice"), document=DOC, stage=stage, source=source, **kw
    )


def test_a_stored_document_is_processed_once_and_copied_apart(store: LibrarianStore) -> None:
    info = uploaded(store)
    with pytest.raises(StoreError) as err:
        store.start_processing(ALICE, DOC)
    assert err.value.type == "already-exists"
    other = Scope("alice", "other")
    copy = store.copy(ALICE, other, DOC, "2026-01-02T00:00:00Z")
    assert (copy.status, copy.collection, copy.size) == ("stored", "other", info.size)
    assert store.read_range(other, DOC, 0, 5) == b"Paris"
    with pytest.raises(StoreError) as err:
        store.copy(ALICE, other, DOC, "2026-01-02T00:00:00Z")
    assert err.value.type == "already-exists"
    assert store.get(BOB, DOC) is None and store.collections("bob") == []
    assert [c.collection for c in store.collections("alice")] == ["default", "other"]


def test_parts_are_joined_durably_and_scoped(store: LibrarianStore) -> None:
    info = uploaded(store)
    assert info.status == "processing" and info.size == 31
    assert store.read_range(ALICE, DOC, 9, 3) == b"the"
    assert not store.path(ALICE, DOC, partial=True).exists()
    assert store.get(BOB, DOC) is None and store.documents(BOB) == []
    assert [d.id for d in store.documents(ALICE)] == [DOC]
    with pytest.raises(StoreError) as err:
        uploaded(store)
    assert err.value.type == "already-exists"


def test_parts_out_of_order_are_refused(store: LibrarianStore) -> None:
    store.begin_upload(
        DocumentInfo(
            id=DOC,
            mime_type="text/plain",
            user="alice",
            collection="default",
            time="2026-01-01T00:00:00Z",
        )
    )
    with pytest.raises(StoreError, match="expected part 0"):
        store.append_part(ALICE, DOC, 1, b"x")


def test_texts_and_chunk_spans(store: LibrarianStore) -> None:
    uploaded(store)
    page = DOC + "/p1"
    store.put_text(ALICE, page, "Paris is the capital of France.")
    store.put_spans(
        ALICE,
        [
            ChunkSpan(id=page + "/c0", offset=0, length=5),
            ChunkSpan(id=page + "/c1", offset=13, length=7),
        ],
    )
    assert store.text(ALICE, page + "/c0") == "Paris"
    assert store.text(ALICE, page + "/c1") == "capital"
    assert store.text(BOB, page + "/c0") is None
    with pytest.raises(StoreError, match="no document"):
        store.put_text(BOB, page, "sneaky")
    store.remove(ALICE, DOC)
    assert store.text(ALICE, page) is None and store.get(ALICE, DOC) is None
    assert not store.path(ALICE, DOC).exists()


def test_progress_completes_once_every_chunk_is_extracted(store: LibrarianStore) -> None:
    uploaded(store)
    store.record_event(event("chunked", DOC + "/p1", chunks=2))
    store.record_event(event("extracted", DOC + "/p1/c0", edges=3))
    store.record_event(event("extracted", DOC + "/p1/c0", edges=3))  # a redelivery
    info = store.record_event(event("decoded", DOC, pages=2))
    assert info is not None and info.status == "processing" and info.edges == 3
    store.record_event(event("chunked", DOC + "/p2", chunks=0))
    info = store.record_event(event("extracted", DOC + "/p1/c1", edges=1, error="bad json"))
    assert info is not None
    assert (info.status, info.pages, info.chunks, info.chunks_done, info.edges) == (
        "complete",
        2,
        2,
        2,
        4,
    )
    assert info.error is not None and "bad json" in info.error


def test_failure_event_marks_failed(store: LibrarianStore) -> None:
    uploaded(store)
    info = store.record_event(event("failed", DOC, error="decode failed: encrypted"))
    assert info is not None and info.status == "failed" and info.error == "decode failed: encrypted"
    assert (
        store.record_event(
            IngestEvent(metadata=Metadata(id="x", user="bob"), document=DOC, stage="decoded")
        )
        is None
    )


def test_owner_document() -> None:
    assert owner_document(DOC + "/p3/c12") == DOC
    assert owner_document(DOC + "/c0") == DOC
    assert owner_document(DOC) == DOC


def test_decoding_pages_and_chunked_pages_are_counted(store: LibrarianStore) -> None:
    uploaded(store)
    store.record_event(event("decoding", DOC + "#decoding-5", pages=5))
    info = store.record_event(event("decoding", DOC + "#decoding-3", pages=3))  # late, smaller
    assert info is not None and (info.pages_decoded, info.pages, info.status) == (
        5,
        0,
        "processing",
    )
    store.record_event(event("decoded", DOC, pages=2))
    info = store.record_event(event("chunked", DOC + "/p1", chunks=2))
    assert info is not None and (info.pages, info.pages_chunked, info.chunks) == (2, 1, 2)
