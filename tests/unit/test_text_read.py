"""A trace's digest read as text from pyoxigraph (``governance/text_read.py``) equals the
digest of its quads read back, for every kind of term TSV writes otherwise than N-Triples;
where the text cannot stand for the quads it says so, and verification reads them back."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from trustgraph_base.integrity.canonical import fingerprint_groups
from trustgraph_flow.store.core.backend import subject_groups
from trustgraph_flow.store.governance import text_read
from trustgraph_flow.store.governance.text_read import VOCABULARY, text_digests
from trustgraph_flow.store.views.lookup import RETRIEVAL

XSD = "http://www.w3.org/2001/XMLSchema#"
S1, S2, S3 = (ox.NamedNode(f"urn:trustgraph:agent:t/i{n}") for n in (1, 2, 3))
P = ox.NamedNode("urn:test:p")


def typed(value: str, kind: str) -> ox.Literal:
    return ox.Literal(value, datatype=ox.NamedNode(XSD + kind))


OBJECTS: list[ox.NamedNode | ox.Literal | ox.Triple] = [
    typed("007", "integer"),
    typed("-12", "integer"),
    typed("1.50", "decimal"),
    typed("2", "decimal"),  # "2" is no decimal short form: written in full
    typed("1.5E3", "double"),
    typed("1e300", "double"),
    typed("10", "double"),
    typed("true", "boolean"),
    typed("0", "boolean"),
    typed("2026-01-01T00:00:00.000Z", "dateTime"),
    typed("5", "int"),
    ox.Literal("12"),
    ox.Literal('a\tb\nc\r"d\\e é 12 )>> \t1\n'),
    ox.Literal("hi", language="EN-gb"),
    ox.Literal("x", datatype=ox.NamedNode("urn:dt")),
    ox.NamedNode("urn:x:é"),
    ox.Triple(S2, P, typed("3", "integer")),
    ox.Triple(S2, P, ox.Triple(S3, P, typed("4.25", "decimal"))),
    ox.Triple(S2, P, ox.Literal("plain")),
]


@pytest.fixture
def store(tmp_path: Path) -> ox.Store:
    s = ox.Store(str(tmp_path / "oxigraph"))
    s.extend(ox.Quad(S1, P, o, RETRIEVAL) for o in OBJECTS)
    s.extend(ox.Quad(S2, P, ox.Literal(f"v{n}"), RETRIEVAL) for n in range(3))
    s.add(ox.Quad(S3, P, S1, RETRIEVAL))
    s.add(ox.Quad(S1, P, ox.Literal("elsewhere"), ox.NamedNode("urn:graph:source")))
    return s


def read_back(store: ox.Store, subjects: list[ox.NamedNode]) -> str:
    return fingerprint_groups(subject_groups(store, subjects, RETRIEVAL)).digest


def test_every_kind_of_term_reads_as_its_quads_do(store: ox.Store) -> None:
    roots = {f"r{n}": [S3.value] for n in range(12)}  # "r1", "r10", "r11": runs side by side
    roots |= {"a": [S1.value, S2.value], "b": [S3.value], "none": ["urn:trustgraph:agent:t/gone"]}
    found = text_digests(store, roots, RETRIEVAL)
    assert found["a"] == read_back(store, [S1, S2])
    assert found["b"] == found["r1"] == found["r11"] == read_back(store, [S3])
    assert found["none"] == read_back(store, [])


def test_entities_read_in_blocks_on_threads_read_as_in_one(
    store: ox.Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of two entities, read two at a time: a root's entities split across blocks
    (and threads) give the digest of its quads read back, and so does every other root."""
    roots = {"a": [S1.value, S2.value, S3.value], "b": [S3.value], "c": [S2.value]}
    whole = text_digests(store, roots, RETRIEVAL)
    monkeypatch.setattr(text_read, "VALUES_MAX", 2)
    assert text_digests(store, roots, RETRIEVAL, threads=2) == whole
    assert text_digests(store, roots, RETRIEVAL, threads=0) == whole  # read on this thread
    assert whole["a"] == read_back(store, [S1, S2, S3])
    assert whole["c"] == read_back(store, [S2]) != whole["b"]
    store.add(ox.Quad(S3, P, ox.BlankNode("b1"), RETRIEVAL))  # one block cannot stand
    assert text_digests(store, roots, RETRIEVAL, threads=2) == {}


@pytest.mark.parametrize(
    "odd",
    [ox.Literal("bell \x07"), ox.BlankNode("b1")],
    ids=["a raw control character", "a blank node"],
)
def test_text_that_cannot_stand_for_the_quads_says_so(
    store: ox.Store, odd: ox.Literal | ox.BlankNode
) -> None:
    store.add(ox.Quad(S2, P, odd, RETRIEVAL))
    assert text_digests(store, {"a": [S1.value, S2.value]}, RETRIEVAL) == {}


def test_roots_with_no_quads_at_all_read_as_empty(store: ox.Store) -> None:
    gone = ["urn:trustgraph:agent:t/gone"]
    assert text_digests(store, {"x": gone, "y": []}, RETRIEVAL) == {
        "x": read_back(store, []),
        "y": read_back(store, []),
    }


def test_vocabulary_terms_read_by_number_stand_for_their_iris(store: ox.Store) -> None:
    """Predicates and objects of the vocabulary are read as numbers and written back as
    IRIs; a literal spelling one (or a number) stays a literal, so the digest changes."""
    a, b, c = (ox.NamedNode(t) for t in VOCABULARY[:3])
    kinds: list[ox.NamedNode | ox.Literal | ox.Triple] = [
        b,
        ox.Literal(b.value),
        ox.Literal("1"),
        typed("1", "integer"),
        ox.NamedNode(b.value + "x"),
        ox.Triple(S1, a, b),
    ]
    store.extend(ox.Quad(S2, a, o, RETRIEVAL) for o in kinds)
    store.add(ox.Quad(S2, P, c, RETRIEVAL))
    store.add(ox.Quad(a, a, b, RETRIEVAL))  # a vocabulary IRI as an entity
    roots = {"a": [S1.value, S2.value], "v": [a.value]}
    found = text_digests(store, roots, RETRIEVAL)
    assert found == {"a": read_back(store, [S1, S2]), "v": read_back(store, [a])}
    # The same text in another term: the digest read is another (and not trusted).
    store.remove(ox.Quad(S2, a, b, RETRIEVAL))
    store.add(ox.Quad(S2, a, ox.Literal(f"<{b.value}>"), RETRIEVAL))
    again = text_digests(store, roots, RETRIEVAL)
    assert again["a"] == read_back(store, [S1, S2]) != found["a"]
