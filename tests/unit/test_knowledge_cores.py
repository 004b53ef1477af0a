"""The librarian's knowledge-core store: parts kept in order, read a page at a time, per user,
within a user's bounds; and the check every part passes before it is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustgraph_base.errors import ServiceError
from trustgraph_base.schema import KnowledgeRequest
from trustgraph_flow.librarian import cores
from trustgraph_flow.librarian.cores import CoreStore
from trustgraph_flow.librarian.knowledge import check_part, vector_items


def test_parts_come_back_in_order_a_page_at_a_time_for_their_user_only(tmp_path: Path) -> None:
    store = CoreStore(tmp_path / "cores.db")
    for n in range(5):
        store.append("alice", "kg", "moons", "triples", {"n": n})
    store.append("bob", "kg", "suns", "triples", {"n": 99})
    first = store.parts("alice", "kg", "moons", limit=3)
    rest = store.parts("alice", "kg", "moons", after=first[-1][0], limit=3)
    assert [b["n"] for _s, _p, b in first + rest] == [0, 1, 2, 3, 4]
    assert store.ids("alice", "kg") == ["moons"] and store.ids("bob", "kg") == ["suns"]
    assert store.parts("bob", "kg", "moons") == [] and store.ids("alice", "de") == []
    store.delete("alice", "kg", "moons")
    with pytest.raises(ServiceError, match="no knowledge core 'moons'"):
        store.delete("alice", "kg", "moons")
    store.close()


def test_a_user_holds_bounded_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cores, "USER_BYTES_MAX", 100)
    store = CoreStore(tmp_path / "cores.db")
    store.append("alice", "kg", "a", "triples", {"x": "y" * 60})
    with pytest.raises(ServiceError, match="at most 100 bytes"):
        store.append("alice", "kg", "a", "triples", {"x": "y" * 60})
    store.append("bob", "kg", "a", "triples", {"x": "y" * 60})  # another user's bound
    store.close()


def test_each_part_is_checked_before_it_is_kept() -> None:
    req = KnowledgeRequest(operation="put-kg-core", id="moons", user="alice")
    s, p = {"t": "i", "i": "urn:x:s"}, {"t": "i", "i": "urn:x:p"}
    check_part("triples", {"triples": [{"s": s, "p": p, "o": {"t": "l", "v": "o"}}]}, req)
    with pytest.raises(ServiceError, match="default graph"):
        check_part("triples", {"triples": [{"s": s, "p": p, "o": s, "g": "urn:g"}]}, req)
    with pytest.raises(ServiceError, match="triples"):
        check_part("triples", {"triples": [{"s": s, "p": {"t": "i", "i": "not an iri"}}]}, req)
    items = vector_items("graph-embeddings", {"entities": [{"entity": s, "vector": [1, 0]}]}, "m")
    assert [(i.id, i.vector, i.document) for i in items] == [
        ("urn:x:s", [1.0, 0.0], "urn:trustgraph:core:m")
    ]
    for bad in ([], ["1"], [True], None):
        with pytest.raises(ServiceError, match="non-empty list of numbers"):
            vector_items("graph-embeddings", {"entities": [{"entity": s, "vector": bad}]}, "m")
    with pytest.raises(ServiceError, match="IRI"):
        vector_items("document-embeddings", {"chunks": [{"chunk_id": "a b", "vector": [1]}]}, "m")
