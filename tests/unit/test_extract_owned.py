"""The offline extractor on subjects named by what owns them and on descriptions of names
said before (text written for this test, not the bench's): a possessive ('Her students
included…'), a genitive ('Ada Byrne's portrait… was bought by…'), a lower-case subject with
a name after 'of' ('The population of Ledbury grew to…'), and a definite description of a
name the text mentioned in a sentence that stated nothing of it."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(e.s, e.p, e.o) for e in extract_edges(text)]


def test_a_possessive_subject_is_named_with_its_owner() -> None:
    found = triples(
        "Nora Vell was a botanist. Her pupils included Ann Ross and Kit Lowe. "
        "Her first book on ferns was printed by the Mere Press in 1901. She died in 1930."
    )
    assert ("Nora Vell's pupils", "included", "Ann Ross") in found
    assert ("Nora Vell's pupils", "included", "Kit Lowe") in found
    assert ("Mere Press", "printed", "Nora Vell's first book on ferns") in found
    # 'she' is still the botanist, not her book
    assert ("Nora Vell", "died in", "1930") in found


def test_its_stays_the_owner_and_a_plural_noun_before_a_verb_is_a_noun() -> None:
    found = triples(
        "Tom Hale was a miller. His younger brothers founded the Hale Bank. "
        "Brant lies on the Wey. Its market is held on Fridays. Its mayor was chosen by the guild."
    )
    assert ("Tom Hale's younger brothers", "founded", "Hale Bank") in found
    assert ("guild", "chose", "Brant's mayor") in found
    assert not any("market's" in s or "market's" in o for s, _, o in found), found


def test_a_genitive_names_the_owner() -> None:
    found = triples("Ada Byrne's portrait of the king was bought by the National Gallery.")
    assert found == [("National Gallery", "bought", "Ada Byrne's portrait of the king")]
    town = triples("Brant is a market town. The town's water comes from Loch Eil.")
    assert ("Brant's water", "comes from", "Loch Eil") in town


def test_a_lower_case_subject_of_a_name_states_what_it_does() -> None:
    found = triples(
        "The parish church of Saint Agnes was consecrated in 1688. "
        "The population of Ledbury grew to 9,000."
    )
    assert ("parish church of Saint Agnes", "was consecrated in", "1688") in found
    assert ("population of Ledbury", "grew to", "9,000") in found


def test_a_description_refers_to_a_name_mentioned_before() -> None:
    found = triples(
        "Walkers often visit the Penrith Museum of Clocks in summer. "
        "The museum was opened by Lord Carr."
    )
    assert ("Lord Carr", "opened", "Penrith Museum of Clocks") in found


def test_no_owner_or_no_verb_gives_no_subject() -> None:
    # two owners: whose students is not said
    found = triples("Ann Ross and Kit Lowe were teachers. Their students included Bo Lind.")
    assert not any("students" in s for s, _, _ in found), found
    assert triples("Its bright red colour.") == []


def test_a_modal_alone_is_no_relation() -> None:
    found = triples('"Setup Data" means the keys of a device. The data must suffice to run it.')
    assert not any(p == "must" for _, p, _ in found), found
