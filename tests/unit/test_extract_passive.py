"""The offline extractor on passives and openings it did not read before (text written for
this test): a date between the participle and its agent, an opening year before 'the', and
a lower-case subject with a place name ('The first school in Brant')."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(e.s, e.p, e.o) for e in extract_edges(text)]


def test_a_date_between_the_participle_and_its_agent() -> None:
    found = triples("The Carne Bridge was designed in 1871 by Casimir Rook.")
    assert found == [
        ("Casimir Rook", "designed", "Carne Bridge"),
        ("Casimir Rook", "designed Carne Bridge in", "1871"),
    ]
    # 'by' a year is no agent
    assert triples("The Carne Bridge was finished by 1871.") == [
        ("Carne Bridge", "was finished by", "1871")
    ]


def test_an_opening_year_before_the() -> None:
    found = triples("In 1871 the Carne Bridge was designed by Casimir Rook.")
    assert found == [("Casimir Rook", "designed", "Carne Bridge")]


def test_a_lower_case_subject_with_a_place_name() -> None:
    found = triples("The first school in Brant was opened by the Methodists in 1820.")
    assert ("Methodists", "opened", "first school in Brant") in found
    assert triples("The first school in Brant closed in 1950.") == [
        ("first school in Brant", "closed in", "1950")
    ]


def test_a_participle_aside_and_a_clause_joined_after_a_year() -> None:
    found = triples("The Carne Organ, built by Henry Willis in 1880, is the largest in Brant.")
    assert ("Henry Willis", "built", "Carne Organ") in found
    assert ("Carne Organ", "is the largest in", "Brant") in found
    found = triples("Ada Byrne moved to Paris in 1890 and died there in 1921.")
    assert ("Ada Byrne", "died in", "1921") in found


def test_an_agent_after_a_role_and_a_passive_joined_to_a_passive() -> None:
    found = triples(
        "Brant Hall was designed by the London architect Amos Hart and built by local masons."
    )
    assert found == [
        ("Amos Hart", "designed", "Brant Hall"),
        ("local masons", "built", "Brant Hall"),
    ]
    found = triples("Ada Byrne was elected by the members of the Wey Society.")
    assert found == [("members of Wey Society", "elected", "Ada Byrne")]
    found = triples("The Brant Prize is awarded every year by the Wey Society.")
    assert found == [("Wey Society", "awarded", "Brant Prize")]


def test_a_long_apposition_a_participle_aside_without_agent_and_a_decade() -> None:
    found = triples(
        "Brant Hall, a house of forty rooms on the edge of the moor, was bought by the Wey Trust."
    )
    assert ("Wey Trust", "bought", "Brant Hall") in found
    found = triples("The Brant Bell, cast in 1620 and hung in the tower, was sold to Amos Hart.")
    assert ("Brant Bell", "was sold to", "Amos Hart") in found
    found = triples("Brant Hall was built in the 1780s by Amos Hart.")
    assert ("Amos Hart", "built", "Brant Hall") in found


def test_a_defined_term() -> None:
    found = triples('"Kit" refers to the set of parts sold by the Maker.')
    assert ("Kit", "refers to", "set") in found
    assert triples('"Source" form shall mean the preferred form.') == [
        ("Source form", "shall mean", "preferred form")
    ]
    assert triples('A "covered work" means the Program.') == [("covered work", "means", "Program")]
    assert ("Copyright", "means", "copyright-like laws") in triples(
        '"Copyright" also means copyright-like laws.'
    )
    assert ("Covered Work", "means", "Program") in triples(
        "“Covered Work” means the Program or a work based on it."
    )
