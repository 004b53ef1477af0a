"""The offline extractor on forms it did not read before (text written for this test): a
definite description the text names by its kind, asides in brackets, opening adverbs and
subordinate clauses, a lower-case subject before its verb, 'nowhere', a subject with a
phrase of place, and a title block."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(e.s, e.p, e.o) for e in extract_edges(text)]


def test_a_definite_description_stands_for_the_one_name_of_its_kind() -> None:
    later = "The village was founded by Anna Holt in 1710. Elmford is a small village."
    found = triples(later)
    assert ("Anna Holt", "founded", "Elmford") in found
    assert ("Anna Holt", "founded Elmford in", "1710") in found
    before = "Elmford is a small village on the Wey. The village was founded by Anna Holt."
    assert ("Anna Holt", "founded", "Elmford") in triples(before)
    two = later + " Brockley is a village too."
    assert not any(o in ("Elmford", "Brockley") for _, p, o in triples(two) if p == "founded")


def test_asides_opening_adverbs_and_subordinate_openings_are_no_subject() -> None:
    assert triples("Tarn is (usually) the warden.") == [("Tarn", "is the", "warden")]
    assert triples("Historically, Brant was a port.") == [("Brant", "was a", "port")]
    found = triples("Since Brant grew quickly, the harbour closed. While Debian systems use it.")
    assert not any(s.split()[0] in ("Since", "While") for s, _, _ in found), found


def test_a_lower_case_subject_right_before_a_known_verb_in_a_joined_clause() -> None:
    found = triples("Logs are rotated by cron, and nginx runs as user www.")
    assert ("nginx", "runs as", "user www") in found
    # a plural noun after a noun is no verb: no 'attribution | notices from | Source'
    found = triples("You must retain copyright, and attribution notices from the Source.")
    assert not any(s == "attribution" for s, _, _ in found), found


def test_nowhere_states_where_a_thing_is_not_as_a_value() -> None:
    edges = extract_edges("The Holt beetle is found nowhere else in the world.")
    assert [(e.s, e.p, e.o, e.o_literal) for e in edges] == [
        ("Holt beetle", "is found", "nowhere else in the world", True)
    ]
    # before a name, the denial stays in the predicate: never "is found in Europe"
    assert triples("The Holt beetle grows nowhere else in Europe.") == [
        ("Holt beetle", "grows nowhere else in", "Europe")
    ]


def test_a_subject_with_a_phrase_of_place_and_a_coordinated_passive() -> None:
    found = triples("Logs in /var/log are owned and readable by group adm.")
    assert found == [("group adm", "owned", "Logs in /var/log")]
    assert not any(s.startswith("Nothing") for s, _, _ in triples("Nothing in this Licence is "
        "waived by the Author."))  # fmt: skip


def test_a_title_block_states_its_version_and_date() -> None:
    text = (
        "                 ACME WIDGET LICENCE\n"
        "            Version 1.1, 3 March 1999\n\n"
        "The Acme Widget Licence is a permissive licence.\n"
    )
    edges = {(e.s, e.p, e.o): e for e in extract_edges(text)}
    assert ("Acme Widget Licence", "has version", "1.1") in edges
    dated = edges[("Acme Widget Licence", "has version 1.1 dated", "3 March 1999")]
    assert dated.o_literal
    assert dated.quote == "ACME WIDGET LICENCE\n            Version 1.1, 3 March 1999"
    assert dated.quote in text
    # a title with no version line under it, or a version line away from it, states nothing
    assert not any("version" in p for _, p, _ in triples("ACME WIDGET LICENCE\n\nVersion 1.1\n"))
    assert not any("version" in p for _, p, _ in triples("ACME\nVersion one of the manual\n"))
