"""What the agent's conclusion is checked against: the supported claims of its tools'
answers, read from the triples of their sub-traces' explain events."""

from __future__ import annotations

from trustgraph_base.provenance.evidence import ClaimSpec, claim_triples, claim_uri
from trustgraph_base.provenance.verification import (
    ClaimAssessment,
    VerificationRecord,
    verification_triples,
)
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.agent.evidence import ToolEvidence

SYNTHESIS = "urn:trustgraph:question:q1/synthesis"
SAID = ["Paris is the capital of France.", "Lyon is the capital of France."]


def sub_trace(verdicts: list[str]) -> list[Triple]:
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
