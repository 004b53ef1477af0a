"""The verification's triples: an activity that used the claims and their evidence, one
assessment per claim derived from it, the answer's verdict, and an abstention when withheld."""

from __future__ import annotations

from trustgraph_base.provenance import GRAPH_RETRIEVAL, PROV, TG
from trustgraph_base.provenance.verification import (
    VERIFIER,
    ClaimAssessment,
    VerificationRecord,
    abstention_uri,
    assessment_uri,
    verification_triples,
)
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple

S = "urn:trustgraph:question:q1/synthesis"
E1 = "urn:trustgraph:question:q1/focus/e1"


def record(abstention: str | None = None) -> VerificationRecord:
    return VerificationRecord(
        method="heuristic",
        model="offline",
        started_at="2026-01-01T10:00:00.000Z",
        ended_at="2026-01-01T10:00:00.004Z",
        evidence=[E1],
        assessments=[
            ClaimAssessment(f"{S}/claim1", "supported", 1.0, "3 of 3 content words"),
            ClaimAssessment(f"{S}/claim2", "not-supported", 0.0, "it cites no evidence"),
        ],
        answer_verdict="partly-supported" if abstention is None else "unsupported",
        reason="1 of 2 claims supported",
        abstention=abstention,
        relevance=0.5,
    )


def objects(triples: list[Triple], s: str, p: IriTerm) -> list[str]:
    out = []
    for t in triples:
        if t.s.i == s and t.p == p:  # type: ignore[union-attr]
            out.append(t.o.i if isinstance(t.o, IriTerm) else t.o.v)  # type: ignore[union-attr]
    return out


def test_activity_used_claims_and_evidence_and_generated_assessments() -> None:
    triples = verification_triples(S, record())
    act = f"{S}/verification"
    assert all(t.g == GRAPH_RETRIEVAL for t in triples)
    assert set(objects(triples, act, PROV.used)) == {f"{S}/claim1", f"{S}/claim2", E1}
    assert objects(triples, act, TG.method) == ["heuristic"]
    assert objects(triples, act, TG.answerVerdict) == ["partly-supported"]
    assert objects(triples, act, PROV.wasAssociatedWith) == [VERIFIER]
    first = assessment_uri(f"{S}/claim1")
    assert objects(triples, first, PROV.wasGeneratedBy) == [act]
    assert objects(triples, first, PROV.wasDerivedFrom) == [f"{S}/claim1"]
    assert objects(triples, first, TG.verdict) == ["supported"]
    score = next(t.o for t in triples if t.s.i == first and t.p == TG.score)  # type: ignore[union-attr]
    assert isinstance(score, LiteralTerm) and score.dt and score.dt.endswith("#decimal")
    assert objects(triples, assessment_uri(f"{S}/claim2"), TG.verdict) == ["not-supported"]
    assert not objects(triples, abstention_uri(S), TG.content)


def test_an_abstention_derives_from_the_answer_it_replaces() -> None:
    triples = verification_triples(S, record("The documents do not say."))
    uri = abstention_uri(S)
    assert objects(triples, uri, TG.content) == ["The documents do not say."]
    assert objects(triples, uri, PROV.wasDerivedFrom) == [S]
    assert objects(triples, uri, PROV.wasGeneratedBy) == [f"{S}/verification"]
    assert objects(triples, uri, TG.reason) == ["1 of 2 claims supported"]
