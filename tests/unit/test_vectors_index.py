"""The on-disk vector index: upsert by id, cosine top-k, deletion, atomic persistence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trustgraph_base.errors import ServiceError
from trustgraph_base.schema import VectorItem
from trustgraph_flow.vectors.index import VectorIndex, scope_dir


def item(id_: str, vector: list[float], document: str = "doc:1") -> VectorItem:
    return VectorItem(id=id_, vector=vector, text=f"text of {id_}", document=document)


@pytest.fixture
def index(tmp_path: Path) -> VectorIndex:
    idx = VectorIndex(tmp_path / "scope" / "chunk.vec")
    idx.upsert([item("a", [1, 0, 0]), item("b", [0, 1, 0]), item("c", [1, 1, 0], "doc:2")])
    return idx


def test_query_is_cosine_top_k(index: VectorIndex) -> None:
    matches = index.query([2, 0.1, 0], limit=2)
    assert [m.id for m in matches] == ["a", "c"]
    assert matches[0].score == pytest.approx(0.99875, abs=1e-4) and matches[0].text == "text of a"
    assert len(index.query([0, 0, 1], limit=50)) == 3


def test_upsert_replaces_by_id(index: VectorIndex) -> None:
    index.upsert([item("a", [0, 0, 1])])
    assert len(index) == 3
    assert index.query([0, 0, 1], limit=1)[0].id == "a"


def test_dimension_mismatch_is_a_bad_request(index: VectorIndex) -> None:
    for bad in ([1, 0], []):
        with pytest.raises(ServiceError) as err:
            index.query(bad, limit=1)
        assert err.value.type == "bad-request"
    with pytest.raises(ServiceError, match="3-dimensional"):
        index.upsert([item("d", [1, 2, 3, 4])])
    with pytest.raises(ServiceError, match="NaN or infinite"):
        index.query([1, float("nan"), 0], limit=1)
    with pytest.raises(ServiceError, match="NaN or infinite"):
        index.upsert([item("d", [1, float("inf"), 0])])
    with pytest.raises(ServiceError, match="differ in dimension"):
        index.upsert([item("d", [1, 2, 3]), item("e", [1, 2])])


def test_delete_document(index: VectorIndex) -> None:
    assert index.delete_document("doc:1") == 2
    assert [m.id for m in index.query([1, 0, 0], limit=5)] == ["c"]
    assert index.delete_document("doc:missing") == 0


def test_persists_and_reloads(index: VectorIndex) -> None:
    index.save()
    again = VectorIndex(index.path)
    assert (again.dim, again.ids, again.documents) == (3, ["a", "b", "c"], ["doc:1", "doc:1", "doc:2"])
    assert [m.id for m in again.query([0, 1, 0], limit=1)] == ["b"]
    again.delete_document("doc:1")
    again.delete_document("doc:2")
    again.save()
    assert not index.path.exists()


def test_a_failed_write_leaves_the_old_file(index: VectorIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    index.save()
    before = index.path.read_bytes()
    index.upsert([item("z", [0, 0, 1])])

    def crash(src: str, dst: str) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        index.save()
    assert index.path.read_bytes() == before
    assert [p.name for p in index.path.parent.iterdir()] == ["chunk.vec"]


def test_scope_dirs_are_safe_and_distinct(tmp_path: Path) -> None:
    odd = scope_dir(tmp_path, "../../etc", "a/b")
    assert odd.parent == tmp_path and "/" not in odd.name and not odd.name.startswith(".")
    assert scope_dir(tmp_path, "u", "a_b") != scope_dir(tmp_path, "u", "a/b")
