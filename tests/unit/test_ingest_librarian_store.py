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
    store.uploads.begin(
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
    store.uploads.append(scope, doc, 0, b"Paris is ")
    store.uploads.append(scope, doc, 1, b"the capital of France.")
    assert store.uploads.finish(scope, doc).status == "stored"
    return store.uploads.start_processing(scope, doc)


def event(stage: str, source: str, **kw: int | str) -> IngestEvent:
    return IngestEvent(
        metadata=Metadata(id=DOC, user="alice"), document=DOC, stage=stage, source=source, **kw
    )


def test_a_stored_document_is_processed_once_and_copied_apart(store: LibrarianStore) -> None:
    info = uploaded(store)
    with pytest.raises(StoreError) as err:
        store.uploads.start_processing(ALICE, DOC)
    assert err.value.type == "already-exists"
    other = Scope("alice", "other")
    copy = store.uploads.copy(ALICE, other, DOC, "2026-01-02T00:00:00Z")
    assert (copy.status, copy.collection, copy.size) == ("stored", "other", info.size)
    assert store.documents.read_range(other, DOC, 0, 5) == b"Paris"
    with pytest.raises(StoreError) as err:
        store.uploads.copy(ALICE, other, DOC, "2026-01-02T00:00:00Z")
    assert err.value.type == "already-exists"
    assert store.documents.get(BOB, DOC) is None and store.records.collections("bob") == []
    assert [c.collection for c in store.records.collections("alice")] == ["default", "other"]


def test_parts_are_joined_durably_and_scoped(store: LibrarianStore) -> None:
    info = uploaded(store)
    assert info.status == "processing" and info.size == 31
    assert store.documents.read_range(ALICE, DOC, 9, 3) == b"the"
    assert not store.documents.path(ALICE, DOC, partial=True).exists()
    assert store.documents.get(BOB, DOC) is None and store.documents.listed(BOB) == []
    assert [d.id for d in store.documents.listed(ALICE)] == [DOC]
    with pytest.raises(StoreError) as err:
        uploaded(store)
    assert err.value.type == "already-exists"


def test_parts_out_of_order_are_refused(store: LibrarianStore) -> None:
    store.uploads.begin(
        DocumentInfo(
            id=DOC,
            mime_type="text/plain",
            user="alice",
            collection="default",
            time="2026-01-01T00:00:00Z",
        )
    )
    with pytest.raises(StoreError, match="expected part 0"):
        store.uploads.append(ALICE, DOC, 1, b"x")


def test_texts_and_chunk_spans(store: LibrarianStore) -> None:
    uploaded(store)
    page = DOC + "/p1"
    store.texts.put_text(ALICE, page, "Paris is the capital of France.")
    store.texts.put_spans(
        ALICE,
        [
            ChunkSpan(id=page + "/c0", offset=0, length=5),
            ChunkSpan(id=page + "/c1", offset=13, length=7),
        ],
    )
    assert store.texts.text(ALICE, page + "/c0") == "Paris"
    assert store.texts.text(ALICE, page + "/c1") == "capital"
    assert store.texts.text(BOB, page + "/c0") is None
    with pytest.raises(StoreError, match="no document"):
        store.texts.put_text(BOB, page, "sneaky")
    store.documents.remove(ALICE, DOC)
    assert store.texts.text(ALICE, page) is None and store.documents.get(ALICE, DOC) is None
    assert not store.documents.path(ALICE, DOC).exists()


def test_a_text_in_parts_is_read_by_range_and_chunks_across_parts(store: LibrarianStore) -> None:
    uploaded(store)
    page = DOC + "/p1"
    parts = ["Paris is ", "the capital ", "of France."]
    at = 0
    for part in parts:
        assert store.texts.put_text(ALICE, page, part, at) == at + len(part)
        at += len(part)
    whole = "".join(parts)
    assert store.texts.text(ALICE, page) == whole
    assert store.texts.read(ALICE, page, 6, 10) == (whole[6:16], len(whole))
    assert store.texts.read(ALICE, page, 25, None) == (whole[25:], len(whole))
    with pytest.raises(StoreError, match="at offset 5: the text has 31 characters"):
        store.texts.put_text(ALICE, page, "lost", 5)  # a part must follow what is stored
    store.texts.put_spans(ALICE, [ChunkSpan(id=page + "/c0", offset=4, length=18)])
    assert store.texts.text(ALICE, page + "/c0") == whole[4:22]  # spans three parts
    assert store.texts.read(ALICE, page + "/c0", 10, 100) == (whole[14:22], 18)
    store.texts.put_text(ALICE, page, "Rome.")  # offset 0 starts the text over
    assert store.texts.text(ALICE, page) == "Rome."
    store.documents.remove(ALICE, DOC)
    assert store.texts.length(ALICE, page) is None


def test_progress_completes_once_every_chunk_is_extracted(store: LibrarianStore) -> None:
    uploaded(store)
    store.progress.record(event("chunked", DOC + "/p1", chunks=2))
    store.progress.record(event("extracted", DOC + "/p1/c0", edges=3))
    store.progress.record(event("extracted", DOC + "/p1/c0", edges=3))  # a redelivery
    info = store.progress.record(event("decoded", DOC, pages=2))
    assert info is not None and info.status == "processing" and info.edges == 3
    store.progress.record(event("chunked", DOC + "/p2", chunks=0))
    info = store.progress.record(event("extracted", DOC + "/p1/c1", edges=1, error="bad json"))
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
    info = store.progress.record(event("failed", DOC, error="decode failed: encrypted"))
    assert info is not None and info.status == "failed" and info.error == "decode failed: encrypted"
    assert (
        store.progress.record(
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
    store.progress.record(event("decoding", DOC + "#decoding-5", pages=5))
    info = store.progress.record(event("decoding", DOC + "#decoding-3", pages=3))  # late, smaller
    assert info is not None and (info.pages_decoded, info.pages, info.status) == (
        5,
        0,
        "processing",
    )
    store.progress.record(event("decoded", DOC, pages=2))
    info = store.progress.record(event("chunked", DOC + "/p1", chunks=2))
    assert info is not None and (info.pages, info.pages_chunked, info.chunks) == (2, 1, 2)
