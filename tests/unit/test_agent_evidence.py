"""What the agent's conclusion is checked against: the supported claims of its tools'
answers, read from the triples of their sub-traces' explain events."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from trustgraph_base.errors import WireError
from trustgraph_base.provenance import RDF, TG
from trustgraph_base.provenance.evidence import ClaimSpec, claim_triples, claim_uri
from trustgraph_base.provenance.verification import (
    ClaimAssessment,
    VerificationRecord,
    verdict_of,
    verification_triples,
)
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema.agent import AgentResponse
from trustgraph_base.schema.rag import GraphRagResponse, RagResponse
from trustgraph_base.wire import decode_pack, encode_pack, from_json, to_json
from trustgraph_cli.read_answers import AgentAnswer, RagAnswer
from trustgraph_flow.agent.evidence import RagReply, ToolEvidence

SYNTHESIS = "urn:trustgraph:question:q1/synthesis"
SAID = ["Paris is the capital of France.", "Lyon is the capital of France."]


def sub_trace(verdicts: list[str], abstention: str | None = None) -> list[Triple]:
    claims = [ClaimSpec(t, 0, len(t), ("urn:e1",)) for t in SAID[: len(verdicts)]]
    record = VerificationRecord(
        method="heuristic",
        model="offline",
        started_at="2026-12-05T00:00:00Z",
        ended_at="2026-12-05T00:00:01Z",
        evidence=["urn:e1"],
        assessments=[
            ClaimAssessment(claim_uri(SYNTHESIS, n), v, 1.0, "why")
            for n, v in enumerate(verdicts, start=1)
        ],
        answer_verdict="partly-supported",
        reason="1 of 2",
        abstention=abstention,
    )
    return claim_triples(SYNTHESIS, claims) + verification_triples(SYNTHESIS, record)


def test_only_the_supported_claims_are_evidence() -> None:
    found = ToolEvidence()
    found.add(sub_trace(["supported", "not-supported"]))
    assert found.verified
    assert found.claims == {claim_uri(SYNTHESIS, 1): SAID[0]}


def test_an_answer_without_verification_is_no_evidence() -> None:
    found = ToolEvidence()
    found.add(claim_triples(SYNTHESIS, [ClaimSpec(SAID[0], 0, 31, ("urn:e1",))]))
    found.add([])
    assert not found.verified and found.claims == {}


def test_a_withheld_answer_is_verified_but_adds_nothing() -> None:
    found = ToolEvidence()
    found.add(sub_trace(["not-supported"]))
    assert found.verified and found.claims == {}


def _replies(triples: list[Triple]) -> bytes:
    """A GraphRAG reply pack as the agent receives it: explain events, then the answer."""
    return encode_pack(
        [
            GraphRagResponse(message_type="explain", explain_id=SYNTHESIS, explain_triples=triples),
            GraphRagResponse(response="Paris.", end_of_session=True),
        ]
    )


def _read(replies: Sequence[RagResponse]) -> tuple[ToolEvidence, object]:
    found = ToolEvidence()
    triples = [t for r in replies for t in r.explain_triples]
    found.add(triples)
    return found, verdict_of(triples)


def test_the_agent_decodes_only_what_it_reads_and_reads_the_same() -> None:
    withheld = sub_trace(["not-supported"], abstention="The documents do not say.")
    for trace in (sub_trace(["supported", "not-supported"]), withheld):
        other = [
            Triple(s=iri(SYNTHESIS), p=RDF.type, o=TG.Synthesis),
            Triple(s=iri(SYNTHESIS), p=TG.promptTemplate, o=lit("Answer {question}")),
            Triple(s=iri("urn:e1"), p=iri("http://ex.org/capitalOf"), o=iri("http://ex.org/F")),
        ]
        data = _replies(other + trace)
        full = decode_pack(GraphRagResponse, data)
        read = decode_pack(RagReply, data)
        assert [r.response for r in read] == ["", "Paris."]
        kept = read[0].explain_triples
        assert 0 < len(kept) < len(trace)  # the trace's own timings and links are not read
        assert set(kept) < set(trace)
        assert _read(read) == _read(full)
        assert _read(read)[1] is not None


def test_a_bad_triple_the_agent_reads_is_still_refused() -> None:
    for bad in (
        b'{"s":{"t":"i","i":"urn:c1"},"p":{"t":"i","i":"%s"},"o":{"t":"l","v":"x","dt":"nope"}}'
        % TG.content.i.encode(),
        b'{"s":{"t":"i","i":"urn:c1"},"p":"not a term","o":{"t":"l","v":"x"}}',
    ):
        data = b'[{"message_type":"explain","explain_triples":[%s]}]' % bad
        with pytest.raises(WireError, match="explain_triples"):
            decode_pack(RagReply, data)


def test_the_commands_validate_only_the_verdict_and_read_the_same() -> None:
    """tg-invoke-agent and the RAG commands show the verdict of an answer's explain events
    (``read_answers``): the rest of the triples are not validated; the verdict is the same,
    and a malformed verdict triple is still refused."""
    Model = type[AgentResponse] | type[RagResponse]
    readers: list[tuple[Model, Model]] = [(AgentResponse, AgentAnswer), (RagResponse, RagAnswer)]
    other = [Triple(s=iri(SYNTHESIS), p=TG.promptTemplate, o=lit("Answer {question}"))]
    for trace in (sub_trace(["supported", "not-supported"]), sub_trace(["x"], abstention="No.")):
        event = {"message_type": "explain", "explain_triples": [to_json(t) for t in other + trace]}
        for full, read in readers:
            shown = from_json(read, event, tolerant=True).explain_triples
            assert 0 < len(shown) < len(trace)
            assert verdict_of(shown) == verdict_of(from_json(full, event).explain_triples)
            assert verdict_of(shown) is not None
    bad = {"s": {"t": "i", "i": "urn:v"}, "p": {"t": "i", "i": TG.answerVerdict.i}, "o": 5}
    with pytest.raises(WireError, match="explain_triples"):
        from_json(AgentAnswer, {"message_type": "explain", "explain_triples": [bad]})
