"""The verification step's pure parts: which claims need no judge (nothing cited, evidence
gone), how claims are batched, and the answer's verdict from its claims' verdicts."""

from __future__ import annotations

from trustgraph_base.provenance.evidence import ClaimSpec
from trustgraph_flow.verify.judge import BATCH, judge_offline
from trustgraph_flow.verify.step import _answer_verdict, _prepared, abstention_text


def claim(text: str, *cited: str) -> ClaimSpec:
    return ClaimSpec(text=text, offset=0, length=len(text), cited=cited)


def test_claims_without_citation_or_evidence_are_settled_the_rest_batched() -> None:
    claims = [claim("Cites nothing."), claim("Gone.", "urn:c1"), claim("Kept.", "urn:c2")]
    claims += [claim(f"Claim {n}.", "urn:c2") for n in range(BATCH)]
    settled, batches = _prepared(claims, {"urn:c1": "", "urn:c2": "Kept. Claim 1."})
    assert settled[0] == ("not-supported", 0.0, "it cites no evidence")
    assert settled[1] == ("unverified", 0.0, "the evidence it cites is no longer available")
    assert settled[2:] == [None] * (BATCH + 1)
    assert [len(b.indexes) for b in batches] == [BATCH, 1]
    assert batches[0].items[0] == {"n": 1, "text": "Kept.", "evidence": ["Kept. Claim 1."]}


def test_the_answer_verdict() -> None:
    assert _answer_verdict(["supported"] * 2, True, True, "")[0] == "supported"
    assert _answer_verdict(["supported", "not-supported"], True, True, "") == (
        "partly-supported",
        "1 of 2 claims supported by the evidence they cite",
    )
    assert _answer_verdict(["supported"], True, False, "off topic") == ("unsupported", "off topic")
    assert _answer_verdict(["not-supported"], False, True, "")[1] == "the answer cites no evidence"
    assert _answer_verdict(["unverified"], True, True, "")[1] == (
        "no claim of the answer could be verified"
    )
    assert _answer_verdict([], True, True, "")[0] == "unsupported"
    assert abstention_text("why") == "The documents do not say: why."


def test_the_offline_judge_answers_the_judge_schema() -> None:
    import json

    reply = json.loads(
        judge_offline(
            {
                "question": "What is the capital of France?",
                "claims": [
                    {
                        "n": 1,
                        "text": "Paris is the capital of France.",
                        "evidence": ["Paris is the capital of France."],
                    },
                    {
                        "n": 2,
                        "text": "Paris is the capital of Spain.",
                        "evidence": ["Paris is the capital of France."],
                    },
                ],
            }
        )
    )
    assert reply["relevant"] is True
    assert [c["verdict"] for c in reply["claims"]] == ["supported", "not-supported"]
    assert [c["claim"] for c in reply["claims"]] == [1, 2]
