"""Explain events' triples written by hand (``rdf.json_text``, ``wire.encode``): the same
bytes as pydantic's serialiser, for every kind of term and every string it escapes."""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from trustgraph_base import schema
from trustgraph_base.rdf.json_text import triples_json
from trustgraph_base.rdf.terms import XSD, Triple, blank, iri, lit, quoted
from trustgraph_base.wire import encode
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
        # Fields after the triples given: the whole message is pydantic's.
        schema.AgentResponse(
            message_type="answer",
            content=AWKWARD,
            explain_id=S,
            explain_triples=TRIPLES,
            model="offline",
            finish_reason="answer",
        ),
        schema.GraphRagResponse(message_type="explain", explain_id=S, explain_triples=TRIPLES),
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
