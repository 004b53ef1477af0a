"""Golden wire frames: real JSON round-trips through the one codec."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ValidationError

from trustgraph_base import schema, wire
from trustgraph_base.errors import WireError
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.wire import decode, encode, keep_encoding

# A Triples message as it was written before its triples went as N-Quads text: still read.
OLDER_TRIPLES = (
    '{"metadata":{"id":"m1","user":"alice","collection":"papers"},"triples":['
    '{"s":{"t":"i","i":"urn:trustgraph:question:q1/focus/e1"},'
    '"p":{"t":"i","i":"https://trustgraph.ai/ns/edge"},'
    '"o":{"t":"t","tr":{"s":{"t":"i","i":"urn:trustgraph:entity:paris"},'
    '"p":{"t":"i","i":"urn:trustgraph:rel:is_the_capital_of"},'
    '"o":{"t":"i","i":"urn:trustgraph:entity:france"}}},'
    '"g":"urn:graph:retrieval"},'
    '{"s":{"t":"b","d":"b0"},"p":{"t":"i","i":"http://www.w3.org/2000/01/rdf-schema#label"},'
    '"o":{"t":"l","v":"Paris","ln":"en"}},'
    '{"s":{"t":"i","i":"urn:trustgraph:doc:d/p1"},"p":{"t":"i","i":"https://trustgraph.ai/ns/pageNumber"},'
    '"o":{"t":"l","v":"1","dt":"http://www.w3.org/2001/XMLSchema#integer"},"g":"urn:graph:source"}]}'
)

GOLDEN: list[tuple[type[BaseModel], str]] = [
    (
        schema.Triples,
        '{"metadata":{"id":"m1","user":"alice","collection":"papers"},"nquads":'
        '"<urn:trustgraph:question:q1/focus/e1> <https://trustgraph.ai/ns/edge> '
        "<<( <urn:trustgraph:entity:paris> <urn:trustgraph:rel:is_the_capital_of> "
        "<urn:trustgraph:entity:france> )>> <urn:graph:retrieval> .\\n"
        '_:b0 <http://www.w3.org/2000/01/rdf-schema#label> \\"Paris\\"@en .\\n'
        "<urn:trustgraph:doc:d/p1> <https://trustgraph.ai/ns/pageNumber> "
        '\\"1\\"^^<http://www.w3.org/2001/XMLSchema#integer> <urn:graph:source> .\\n"}',
    ),
    (
        schema.AgentRequest,
        '{"question":"What is the capital of France?","state":"","history":[{"thought":"t",'
        '"action":"knowledge-query","arguments":{"question":"capital of France"},'
        '"observation":"Paris","user":""}],"user":"trustgraph","collection":"default",'
        '"streaming":true,"session_id":"s-1","started_at":""}',
    ),
    (
        schema.AgentResponse,
        '{"end_of_stream":false,"message_type":"thought","content":"I should look it up",'
        '"explain_triples":[]}',
    ),
    (
        schema.AgentResponse,
        '{"end_of_stream":false,"message_type":"explain","content":"",'
        '"explain_id":"urn:trustgraph:agent:s1/i1","explain_graph":"urn:graph:retrieval",'
        '"explain_triples":[{"s":{"t":"i","i":"urn:trustgraph:agent:s1/i1"},'
        '"p":{"t":"i","i":"https://trustgraph.ai/ns/action"},"o":{"t":"l","v":"knowledge-query"},'
        '"g":"urn:graph:retrieval"}]}',
    ),
    (
        schema.GraphRagResponse,
        '{"end_of_stream":true,"message_type":"chunk","response":"Paris.",'
        '"explain_id":"urn:trustgraph:question:q1","explain_graph":"urn:graph:retrieval",'
        '"explain_triples":[],"end_of_session":true}',
    ),
    (
        schema.TriplesQueryRequest,
        '{"user":"u","collection":"c","o":{"t":"t","tr":{"s":{"t":"i","i":"urn:a"},'
        '"p":{"t":"i","i":"urn:b"},"o":{"t":"l","v":"x"}}},"g":"","limit":10,'
        '"streaming":false,"batch-size":20}',
    ),
    (
        schema.TriplesQueryResponse,
        '{"end_of_stream":true,"response":[{"s":{"t":"i","i":"urn:a"},'
        '"p":{"t":"i","i":"urn:b"},"o":{"t":"l","v":"x"},"g":"urn:graph:source"}]}',
    ),
    (
        schema.GraphRagResponse,
        '{"error":{"type":"no-data","message":"collection is empty"},"end_of_stream":true,'
        '"message_type":"chunk","response":"","explain_triples":[],"end_of_session":false}',
    ),
    (
        schema.GraphRagRequest,
        '{"user":"u","collection":"c","query":"q","streaming":true,"parent_uri":"",'
        '"session_id":"","started_at":"","entity-limit":5,"triple-limit":30,'
        '"max-subgraph-size":150,"max-path-length":2,"edge-limit":25}',
    ),
    (
        schema.DocumentRagRequest,
        '{"user":"u","collection":"c","query":"q","streaming":false,"parent_uri":"",'
        '"session_id":"","started_at":"","doc-limit":10}',
    ),
]


@pytest.mark.parametrize(
    ("model", "frame"), GOLDEN, ids=[f"{m.__name__}-{i}" for i, (m, _) in enumerate(GOLDEN)]
)
def test_golden_frame_round_trips(model: type[BaseModel], frame: str) -> None:
    value = decode(model, frame.encode())
    assert json.loads(encode(value)) == json.loads(frame)
    assert decode(model, encode(value)) == value


def test_the_older_triples_form_still_decodes_to_the_same_message() -> None:
    older = decode(schema.Triples, OLDER_TRIPLES.encode())
    assert older == decode(schema.Triples, GOLDEN[0][1].encode())
    read = decode(schema.StoreTriples, OLDER_TRIPLES.encode()).quads
    assert len(read) == 3
    assert read == decode(schema.StoreTriples, encode(older)).quads


def test_messages_from_before_a_field_existed_still_decode() -> None:
    old = decode(schema.AgentRequest, b'{"question":"q","state":"","history":[],"user":"u"}')
    assert old.session_id == ""
    assert old.collection == "default"


def test_unknown_fields_refused_internally_tolerated_at_the_edge() -> None:
    frame = b'{"question":"q","future_field":1}'
    with pytest.raises(WireError, match="future_field"):
        decode(schema.AgentRequest, frame)
    assert decode(schema.AgentRequest, frame, tolerant=True).question == "q"


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (b"{not json", "malformed JSON"),
        (
            b'{"metadata":{"id":"x"},"triples":[{"s":{"t":"i","i":"urn:a b"},"p":{"t":"i","i":"urn:p"},"o":{"t":"l","v":"x"}}]}',
            "forbidden character",
        ),
        (
            b'{"metadata":{"id":"x"},"triples":[{"s":{"t":"i","i":"urn:a"},"p":{"t":"i","i":"urn:p"},"o":{"t":"l","v":"ten","dt":"http://www.w3.org/2001/XMLSchema#integer"}}]}',
            "not a valid xsd:integer",
        ),
        (
            b'{"metadata":{"id":"x"},"triples":[{"s":{"t":"l","v":"lit"},"p":{"t":"i","i":"urn:p"},"o":{"t":"l","v":"x"}}]}',
            "triples.0.s",
        ),
        (
            b'{"metadata":{"id":"x"},"triples":[{"s":{"t":"i","i":"relative"},"p":{"t":"i","i":"urn:p"},"o":{"t":"l","v":"x"}}]}',
            "no scheme",
        ),
    ],
)
def test_bad_frames_name_the_fault(frame: bytes, message: str) -> None:
    with pytest.raises(WireError, match=message):
        decode(schema.Triples, frame)


def _triples_frame(graph: object) -> bytes:
    triple = {
        "s": {"t": "i", "i": "urn:a"},
        "p": {"t": "i", "i": "urn:p"},
        "o": {"t": "l", "v": "x"},
    }
    return json.dumps({"metadata": {"id": "x"}, "triples": [{**triple, "g": graph}]}).encode()


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        ("urn:graph a", "triples.0.g: Value error, IRI contains a forbidden character ' '"),
        ("urn:<g>", "triples.0.g: Value error, IRI contains a forbidden character '<'"),
        ("retrieval", "triples.0.g: Value error, not an absolute IRI \\(no scheme\\): 'retrieval'"),
        (" ", "triples.0.g: Value error, not an absolute IRI"),
        (5, "triples.0.g: Input should be a valid string"),
        (["urn:g"], "triples.0.g: Input should be a valid string"),
    ],
)
def test_a_bad_graph_name_is_refused_naming_the_fault(graph: object, message: str) -> None:
    with pytest.raises(WireError, match=message):
        decode(schema.Triples, _triples_frame(graph))
    pack = b"[" + _triples_frame("urn:g") + b"," + _triples_frame(graph) + b"]"
    with pytest.raises(WireError, match="^1." + message):
        wire.decode_pack(schema.Triples, pack)


def test_a_bad_graph_name_built_in_python_is_refused_with_the_same_reason() -> None:
    parts = {"s": iri("urn:a"), "p": iri("urn:p"), "o": lit("x")}
    with pytest.raises(ValidationError, match="IRI contains a forbidden character ' '"):
        Triple(**parts, g="urn:graph a")
    with pytest.raises(ValidationError, match="no scheme"):
        Triple(**parts, g="retrieval")
    with pytest.raises(ValidationError, match="valid string"):
        Triple(**parts, g=5)


@pytest.mark.parametrize("graph", ["", None])
def test_an_empty_or_null_graph_name_is_the_default_graph(graph: str | None) -> None:
    decoded = decode(schema.Triples, _triples_frame(graph)).triples[0]
    built = Triple(s=iri("urn:a"), p=iri("urn:p"), o=lit("x"), g=graph)
    assert decoded.g is None and built.g is None
    assert decoded == built
    assert "g" not in json.loads(encode(decoded.model_copy()))
    named = decode(schema.Triples, _triples_frame("urn:graph:retrieval")).triples[0]
    assert named.g == "urn:graph:retrieval"


def test_a_kept_wire_form_is_encoded_only_while_its_message_lives() -> None:
    # Earlier tests in this process may have kept forms of messages still alive (or garbage
    # in a reference cycle, such as an error reply held by a traceback): not this test's.
    before = set(wire._KEPT)
    for n in range(50):  # freed messages' ids are reused: a new one must not get old bytes
        resp = schema.ExplainResponse(step_total=n)
        wire_form = encode(resp)
        assert keep_encoding(resp, wire_form) is resp and encode(resp) is wire_form
        del resp
        other = schema.ExplainResponse(step_total=n + 1000)
        assert json.loads(encode(other))["step_total"] == n + 1000
        del other
    # Nothing held once the messages are gone (a gateway keeps every reply).
    assert set(wire._KEPT) <= before
