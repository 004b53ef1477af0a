"""Explain events' triples written by hand (``rdf.json_text``, ``wire.encode``): the same
bytes as pydantic's serialiser, for every kind of term and every string it escapes; and
from rows (``rdf.rows``, as the agent builds its trace) the same bytes as from models; held
trace messages joined as they are (``joined_triples``) the same bytes as one message."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from trustgraph_base import schema
from trustgraph_base.rdf.json_text import triples_json
from trustgraph_base.rdf.nquads import nquads_text
from trustgraph_base.rdf.rows import Row, Stated, triples_of
from trustgraph_base.rdf.terms import XSD, IriTerm, LiteralTerm, Triple, blank, iri, lit, quoted
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.schema.core import joined_triples
from trustgraph_base.wire import decode, encode
from trustgraph_flow.agent.events import explain
from trustgraph_flow.agent.evidence import RagReply

# Every character pydantic escapes (the control characters, a quote, a backslash) and some
# it does not (DEL, non-ASCII, a line separator, a character outside the BMP, a slash).
AWKWARD = 'a"b\\c\nd\re\tf\bg\fh\x00i\x1fj\x7fk é ✓ \u2028 𝄞 </script>'
S = "urn:trustgraph:agent:s1/i1"
G = "urn:graph:retrieval"

TRIPLES = [
    Triple(s=iri(S), p=iri("https://trustgraph.ai/ns/thought"), o=lit(AWKWARD), g=G),
    Triple(s=iri(S), p=iri("http://www.w3.org/ns/prov#wasDerivedFrom"), o=iri(S + "/x?q=é"), g=G),
    Triple(s=iri(S), p=iri("urn:p:n"), o=lit(7), g=G),
    Triple(s=iri(S), p=iri("urn:p:when"), o=lit("2026-12-06T11:00:00Z", dt=XSD + "dateTime")),
    Triple(
        s=iri(S), p=iri("http://www.w3.org/2000/01/rdf-schema#label"), o=lit("Paris", lang="en")
    ),
    Triple(s=blank("b0"), p=iri("urn:p:q"), o=blank("b1"), g=G),
    Triple(
        s=iri(S),
        p=iri("https://trustgraph.ai/ns/edge"),
        o=quoted(blank("b2"), iri("urn:p:r"), quoted(iri("urn:e:a"), iri("urn:p:s"), lit(AWKWARD))),
        g=G,
    ),
]


def pydantic_form(model: BaseModel) -> bytes:
    return model.model_dump_json(by_alias=True, exclude_none=True).encode()


def test_each_kind_of_triple_is_written_as_pydantic_writes_it() -> None:
    for t in TRIPLES:
        assert triples_json([t]).encode() == b"[" + pydantic_form(t) + b"]"
    assert triples_json([]) == "[]"


@pytest.mark.parametrize(
    "response",
    [
        schema.AgentResponse(
            message_type="explain",
            explain_id=S,
            explain_graph=G,
            explain_triples=TRIPLES,
            end_of_stream=False,
        ),
        # Fields after the triples given: written apart, after them.
        schema.AgentResponse(
            message_type="answer",
            content=AWKWARD,
            explain_id=S,
            explain_triples=TRIPLES,
            model="offline",
            finish_reason="answer",
        ),
        schema.GraphRagResponse(message_type="explain", explain_id=S, explain_triples=TRIPLES),
        # A field after the triples that is never None (end_of_session), and one given.
        schema.DocumentRagResponse(
            message_type="explain",
            explain_id=S,
            explain_triples=TRIPLES,
            end_of_session=True,
            model="offline",
        ),
        schema.GraphRagResponse(explain_triples=[]),
        RagReply(message_type="explain", explain_id=S, explain_triples=TRIPLES),
        schema.AgentResponse(message_type="thought", content=AWKWARD),
    ],
)
def test_a_response_with_triples_encodes_to_pydantics_bytes(response: BaseModel) -> None:
    assert encode(response) == pydantic_form(response)


def test_a_lone_surrogate_fails_as_pydantic_fails() -> None:
    bad = Triple(s=iri(S), p=iri("urn:p:t"), o=lit("x\ud800y"), g=G)
    response = schema.AgentResponse(message_type="explain", explain_triples=[bad])
    with pytest.raises(PydanticSerializationError, match="surrogates not allowed"):
        encode(response)


def as_row(t: Triple) -> Row:
    """The row of a triple on an IRI: a plain literal's text as a ``str``, other terms kept."""
    o = t.o
    assert isinstance(t.s, IriTerm)
    plain = isinstance(o, LiteralTerm) and o.dt is None and o.ln is None
    return (t.s, t.p, o.v if isinstance(o, LiteralTerm) and plain else o, t.g)


ON_IRIS = [t for t in TRIPLES if isinstance(t.s, IriTerm)]
ROWS = [as_row(t) for t in ON_IRIS]


def test_rows_are_written_as_their_models_are() -> None:
    models = triples_of(ROWS)
    assert models == ON_IRIS and [m.model_fields_set for m in models] == [
        {"s", "p", "o", "g"}
    ] * len(models)
    assert triples_json(ROWS).encode() == b"[" + b",".join(map(pydantic_form, models)) + b"]"
    assert nquads_text(ROWS) == nquads_text(models)
    # Rows and models mixed (a conclusion's rows and its checked claims' models)
    mixed: list[Stated] = [*ROWS[:3], *models[3:]]
    assert triples_json(mixed) == triples_json(models) and nquads_text(mixed) == nquads_text(models)


def test_an_explain_event_of_rows_is_the_validated_event_on_the_wire() -> None:
    validated = schema.AgentResponse(
        message_type="explain",
        content="",
        explain_id=S,
        explain_graph=G,
        explain_triples=ON_IRIS,
        end_of_stream=False,
    )
    assert encode(explain(S, ROWS)) == pydantic_form(validated)
    meta = Metadata(id=S, user="u", collection="c")
    message = Triples(metadata=meta, triples=ON_IRIS)
    rows: list[Any] = ROWS  # as the trace writer makes its messages (``TraceWriter._queue``)
    assert encode(Triples.model_construct(metadata=meta, triples=rows)) == encode(message)


def test_a_lone_surrogate_in_a_row_fails_as_pydantic_fails() -> None:
    with pytest.raises(PydanticSerializationError, match="surrogates not allowed"):
        encode(explain(S, [(iri(S), iri("urn:p:t"), "x\ud800y", G)]))


def test_held_trace_messages_join_to_the_bytes_of_one_message_of_their_triples() -> None:
    """Held trace messages (a RAG question with its exploration) go to the broker as one: their
    wire forms joined (``joined_triples``) are the bytes of the one message of all their
    triples under the first's metadata, whatever the literals and names hold (quotes, the
    key's own text, escapes); an empty message joins as nothing."""
    key = '},"nquads":"'
    scopes = [("u", "c"), ('u"' + key, "c\\" + key), ("u", "c")]
    parts: list[list[Any]] = [ROWS[:2], [], [*ROWS[2:], (iri(S), iri("urn:p:k"), key, G)]]
    messages = [
        Triples.model_construct(metadata=Metadata(id=f"{S}/{n}", user=u, collection=c), triples=t)
        for n, ((u, c), t) in enumerate(zip(scopes, parts, strict=True))
    ]
    joined = joined_triples([encode(m) for m in messages])
    every: list[Any] = [t for part in parts for t in part]
    assert joined == encode(Triples.model_construct(metadata=messages[0].metadata, triples=every))
    read = decode(Triples, joined)
    assert read.metadata.id == f"{S}/0" and read.triples == triples_of(every)
