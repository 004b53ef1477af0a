"""The deterministic claim check: names, numbers, content words, negation, and the cases
that must never count as supported (no citation, evidence gone, empty claim)."""

from __future__ import annotations

import pytest

from trustgraph_flow.verify.heuristic import (
    METHOD,
    check_claim,
    relevance,
    relevant,
    verify_claims,
)

FRANCE = "Paris is the capital of France. It lies on the Seine."
TOWER = "The Eiffel Tower was completed in 1889 and is 330 metres tall."


@pytest.mark.parametrize(
    ("claim", "evidence", "verdict"),
    [
        ("Paris is the capital of France.", [FRANCE], "supported"),
        ("The capital of France is Paris.", [FRANCE], "supported"),
        ("Paris lies on the Seine.", [FRANCE], "supported"),
        ("The Eiffel Tower was completed in 1889.", [TOWER], "supported"),
        ("Paris is the capital of Germany.", [FRANCE], "not-supported"),
        ("Paris is the largest port of Europe.", [FRANCE], "not-supported"),
        ("The Eiffel Tower is 500 metres tall.", [TOWER], "contradicted"),
        ("The Eiffel Tower was completed in 1887.", [TOWER], "contradicted"),
        ("Paris is not the capital of France.", [FRANCE], "contradicted"),
        ("Paris isn't the capital of France.", [FRANCE], "contradicted"),
        ("The tower was completed in 1925 in Lyon.", [FRANCE], "not-supported"),
    ],
)
def test_a_claim_against_its_evidence(claim: str, evidence: list[str], verdict: str) -> None:
    found = check_claim(claim, evidence)
    assert found.verdict == verdict, found
    assert found.method == METHOD == "heuristic"
    assert found.reason
    assert 0.0 <= found.score <= 1.0


def test_number_words_count_as_numbers() -> None:
    found = check_claim(
        "Marie Curie won three Nobel prizes.", ["Marie Curie won two Nobel Prizes."]
    )
    assert found.verdict == "contradicted"
    assert "2" in found.reason and "3" in found.reason


def test_a_claim_citing_nothing_is_never_supported() -> None:
    found = check_claim("Paris is the capital of France.", [])
    assert found.verdict == "not-supported"
    assert found.score == 0.0
    assert "cites no evidence" in found.reason


def test_evidence_gone_is_unverified_not_supported() -> None:
    found = check_claim("Paris is the capital of France.", ["", "  "])
    assert found.verdict == "unverified"
    assert not found.supported


def test_an_empty_claim_is_not_supported() -> None:
    assert check_claim("  ", [FRANCE]).verdict == "not-supported"


def test_verify_claims_pairs_each_claim_with_its_evidence() -> None:
    found = verify_claims(
        ["Paris is the capital of France.", "The tower is 330 metres tall."], [[FRANCE], []]
    )
    assert [a.verdict for a in found] == ["supported", "not-supported"]
    with pytest.raises(ValueError, match="2 claims but evidence for 1"):
        verify_claims(["a.", "b."], [[FRANCE]])
    assert verify_claims([], []) == []


def test_relevance_of_evidence_to_the_question() -> None:
    assert relevant("What is the capital of France?", [FRANCE])
    assert not relevant("What is the boiling point of mercury?", [FRANCE])
    share, missing = relevance("What is the boiling point of mercury?", [FRANCE])
    assert share == 0.0
    assert "mercury" in missing
    assert not relevant("What is the capital of France?", [])
