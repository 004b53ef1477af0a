"""The store topic's wire form: triples as N-Quads text, read with the schema's rules.

Whatever a producer writes in ``nquads``, the store either reads every triple of the
message or refuses the whole message with one clear reason (the runtime dead-letters it
alone): nothing of a refused message is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.store import document, handle_of, labels, msg, ox_store
from trustgraph_base.errors import WireError
from trustgraph_base.rdf.terms import LiteralTerm, Triple, blank, iri, lit, quoted
from trustgraph_base.schema import StoreTriples, Triples
from trustgraph_base.wire import decode, encode
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.core.convert import quad_of
from trustgraph_flow.store.service.writer import write_batch

XSD = "http://www.w3.org/2001/XMLSchema#"

ODD = [
    Triple(s=blank("b1"), p=iri("urn:p"), o=LiteralTerm(v='a "quoted"\\ line\nand\r', ln="en-gb")),
    Triple(s=iri("urn:s"), p=iri("urn:p"), o=quoted(blank("b2"), iri("urn:q"), lit(7)), g="urn:g"),
    Triple(s=iri("urn:s"), p=iri("urn:p"), o=lit("2026-12-01T10:00:00Z", dt=XSD + "dateTime")),
    Triple(s=iri("urn:s"), p=iri("urn:p"), o=quoted(iri("urn:a"), iri("urn:b"), quoted(*[iri("urn:c"), iri("urn:d"), iri("urn:e")]))),
]  # fmt: skip


def frame(text: str, **meta: str) -> bytes:
    return json.dumps({"metadata": {"id": "x", **meta}, "nquads": text}).encode()


def test_a_message_reads_as_the_same_quads_in_either_form() -> None:
    message = msg(document() + labels() + ODD)
    wire = json.loads(encode(message))
    assert set(wire) == {"metadata", "nquads"}  # the compact form is what goes out
    read = decode(StoreTriples, encode(message))
    assert read.quads == [quad_of(t) for t in message.triples]
    assert decode(Triples, encode(message)) == message  # and reads back as the producer's
    older = json.dumps(message.model_dump(mode="python", exclude_none=True)).encode()
    assert "triples" in json.loads(older)
    assert decode(StoreTriples, older).quads == read.quads


def test_runs_of_one_subject_read_back_as_written() -> None:
    # nquads_text writes a run's subject once: a subject that changes, comes back, or is a
    # blank node with an IRI's label, and objects of every kind, each read back as given.
    s, b = iri("urn:s"), blank("urn")
    triples = [
        Triple(s=s, p=iri("urn:p"), o=lit('two\nlines, a "quote" and \\'), g="urn:g"),
        Triple(s=s, p=iri("urn:p"), o=iri("urn:o")),
        Triple(s=b, p=iri("urn:p"), o=lit("x", lang="fr"), g="urn:g"),
        Triple(s=iri("urn:s"), p=iri("urn:q"), o=lit(7), g="urn:g"),  # equal, not the same
        Triple(s=s, p=iri("urn:p"), o=blank("b9")),
        *ODD,
    ]
    read = decode(StoreTriples, encode(msg(triples)))
    assert read.quads == [quad_of(t) for t in triples]


GOOD = '<urn:half> <urn:p> "1" .\n'


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("<has space> <urn:p> <urn:o> .", "Invalid IRI code point ' '"),
        ("<http://ex.com/%zz> <urn:p> <urn:o> .", "Invalid IRI percent encoding"),
        ("<rel> <urn:p> <urn:o> .", "No scheme found in an absolute IRI"),
        ('<urn:s> <urn:p> "abc"^^<http://www.w3.org/2001/XMLSchema#integer> .', "not a valid xsd:integer"),
        ('<urn:s> <urn:p> <<( <urn:a> <urn:b> "x"^^<http://www.w3.org/2001/XMLSchema#boolean> )>> .', "not a valid xsd:boolean"),
        ('<urn:s> <urn:p> "x"@en-a .', "extension subtag"),
        ('<urn:s> <urn:p> "x"@en--ltr .', "base direction"),
        ('<urn:s> <urn:p> "x" _:g .', "a graph name is an IRI"),
        ('_:\u00e9 <urn:p> "x" .', "bad blank node id"),
        ("<<( <urn:a> <urn:b> <urn:c> )>> <urn:p> <urn:o> .", "subject of a triple"),
        ('<urn:s> <urn:p> "x" . <urn:s> <urn:p> "y" .', "Only a single triple or quad"),
        ("<urn:s> <urn:p> .", ""),
    ],
)  # fmt: skip
def test_a_refused_term_refuses_the_whole_message_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(WireError) as refused:
        decode(StoreTriples, frame(GOOD + text + "\n"))
    assert str(refused.value).startswith("nquads: ")
    assert reason in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    "data",
    [
        b'{"metadata": {"id": "x"}}',
        b'{"metadata": {"id": "x"}, "nquads": "", "triples": []}',
        b'{"metadata": {"id": "x"}, "nquads": 5}',
        b'{"metadata": {"id": "x", "user": ""}, "nquads": ""}',
    ],
)
def test_a_malformed_message_is_refused(data: bytes) -> None:
    with pytest.raises(WireError):
        decode(StoreTriples, data)


def test_blank_nodes_keep_their_labels_so_a_redelivery_adds_nothing(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "store")
    message = decode(StoreTriples, encode(msg(ODD)))
    for _ in range(2):  # delivered twice
        write_batch(stores, [message])
    found = list(ox_store(handle_of(stores)).quads_for_pattern(None, None, None, None))
    assert len(found) == len(ODD)
    assert ox.BlankNode("b1") in {q.subject for q in found}
    stores.close()
