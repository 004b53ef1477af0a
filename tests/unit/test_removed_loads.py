"""The record of removed loads: which loads a removal drops, which it leaves, across a restart."""

from __future__ import annotations

from pathlib import Path

from trustgraph_base.schema import LoadsRemoved, Metadata
from trustgraph_flow.removed_loads import LoadClock, RemovedLoads

DOC = "urn:trustgraph:doc:a"


def meta(load: int | None, doc: str = DOC, user: str = "u", collection: str = "c") -> Metadata:
    return Metadata(id=doc, user=user, collection=collection, load=load)


def test_a_documents_removal_drops_its_loads_up_to_the_bound_and_no_other(tmp_path: Path) -> None:
    removed = RemovedLoads(tmp_path / "removed.db")
    removed.add("u", "c", DOC, 100)
    assert removed.removed(meta(100)) and removed.removed(meta(7))
    assert not removed.removed(meta(101))  # the same id loaded again after the removal
    assert not removed.removed(meta(None))  # a message of no load (a trace, a core)
    assert not removed.removed(meta(5, doc="urn:trustgraph:doc:b"))
    assert not removed.removed(meta(5, user="v")) and not removed.removed(meta(5, collection="d"))
    removed.add("u", "c", DOC, 50)  # an older bound never lowers the record
    assert removed.removed(meta(100))


def test_a_collections_deletion_drops_every_document_of_it(tmp_path: Path) -> None:
    removed = RemovedLoads()
    removed.heard(LoadsRemoved(user="u", collection="c", upto=100))
    assert removed.removed(meta(90)) and removed.removed(meta(90, doc="urn:trustgraph:doc:b"))
    assert not removed.removed(meta(101)) and not removed.removed(meta(90, collection="d"))
    assert removed.gone("u", "c", "urn:trustgraph:doc:z", 100)


def test_the_record_is_read_back_after_a_restart(tmp_path: Path) -> None:
    first = RemovedLoads(tmp_path / "removed.db")
    first.add("u", "c", DOC, 100)
    first.add("u", "c", "", 40)
    first.close()
    again = RemovedLoads(tmp_path / "removed.db")
    try:
        assert again.removed(meta(100)) and again.removed(meta(40, doc="urn:trustgraph:doc:b"))
        assert not again.removed(meta(41, doc="urn:trustgraph:doc:b"))
        assert again.latest == 100
    finally:
        again.close()


def test_new_loads_are_numbered_above_every_removal() -> None:
    far = 2**62  # a bound from a clock far ahead of this one
    clock = LoadClock(far)
    first = clock.next()
    assert first > far and clock.next() > first
    clock.passed(far * 2)
    assert clock.next() > far * 2
