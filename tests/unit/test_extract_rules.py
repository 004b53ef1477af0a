"""The offline extractor's reading rules, through ``extract_edges`` on text written here:
passive voice, appositions, lists, negation, junk dropped, hard-wrapped prose read whole."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.prose import prose_sentences


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(e.s, e.p, e.o) for e in extract_edges(text, limit=100)]


def test_a_passive_is_read_as_its_agents_act_with_its_year() -> None:
    found = triples("The Marrowby Bridge was designed by Casimir Rook in 1871.")
    assert found == [
        ("Casimir Rook", "designed", "Marrowby Bridge"),
        ("Casimir Rook", "designed Marrowby Bridge in", "1871"),
    ]
    assert triples("The treatise was written by Orla Quist.") == [
        ("Orla Quist", "wrote", "treatise")
    ]
    assert triples("The old mill has been rebuilt by Hale and Mott.") == [
        ("Hale", "rebuilt", "old mill"),
        ("Mott", "rebuilt", "old mill"),
    ]


def test_a_denied_passive_is_never_read_as_the_act() -> None:
    for text in (
        "The Marrowby Bridge was not designed by Casimir Rook.",
        "The Marrowby Bridge was never designed by Casimir Rook.",
    ):
        assert ("Casimir Rook", "designed", "Marrowby Bridge") not in triples(text)
    assert triples("Rook never designed the Hale Mill.") == [
        ("Rook", "never designed", "Hale Mill")
    ]


def test_an_apposition_states_what_its_subject_is() -> None:
    found = triples("Casimir Rook, an engineer from Leeds, designed the Marrowby Bridge.")
    assert ("Casimir Rook", "is an engineer from", "Leeds") in found
    assert ("Casimir Rook", "designed", "Marrowby Bridge") in found
    found = triples("Orla Quist, a chemist, founded the Hale Works.")
    assert found == [("Orla Quist", "is a", "chemist"), ("Orla Quist", "founded", "Hale Works")]
    found = triples("Rook, who was born in York, studied at the University of Leeds.")
    assert found == [("Rook", "was born in", "York"), ("Rook", "studied at", "University of Leeds")]


def test_lists_of_subjects_and_objects_give_one_edge_each() -> None:
    assert triples("Hale, Mott and Rook founded the Marrowby Society.") == [
        ("Hale", "founded", "Marrowby Society"),
        ("Mott", "founded", "Marrowby Society"),
        ("Rook", "founded", "Marrowby Society"),
    ]
    assert triples("Marrowby exports wool, tin and copper.") == [
        ("Marrowby", "exports", "wool"),
        ("Marrowby", "exports", "tin"),
        ("Marrowby", "exports", "copper"),
    ]
    assert triples(
        "Rook designed the Hale Viaduct, the Corn Exchange and the Marrowby Bridge."
    ) == [
        ("Rook", "designed", "Hale Viaduct"),
        ("Rook", "designed", "Corn Exchange"),
        ("Rook", "designed", "Marrowby Bridge"),
    ]


def test_a_clause_joined_by_and_is_read_and_is_no_list_item() -> None:
    found = triples("Paris is the capital of France, and Berlin is the capital of Germany.")
    assert found == [
        ("Paris", "is the capital of", "France"),
        ("Berlin", "is the capital of", "Germany"),
    ]
    found = triples("Rook studied in Leeds and later designed the Marrowby Bridge.")
    assert found == [("Rook", "studied in", "Leeds"), ("Rook", "designed", "Marrowby Bridge")]


def test_junk_is_dropped() -> None:
    text = (
        "The Marrowby site now belongs to the Trust. Hale is now a town. Chlorine is added. "
        "Everyone is permitted to copy it. Casimir Rook designed Rook. Marrowby is there. "
        "They said this. Mott visited them."
    )
    found = triples(text)
    assert ("Hale", "is a", "town") in found  # the adverb is read past, not kept
    junk = {"now", "there", "it", "them", "this", "added", "everyone", "rook"}
    for s, p, o in found:
        assert s.lower() not in junk and o.lower() not in junk, (s, p, o)
        assert p.split()[0] not in {"site", "now"}, (s, p, o)
    assert triples("Chlorine is added to the water.") == [("Chlorine", "is added to", "water")]


def test_hard_wrapped_prose_is_read_whole_and_its_quote_is_the_text() -> None:
    text = (
        "The tale begins in the north. In the valley below the old moor, Casimir\n"
        "Rook designed the Marrowby Bridge for the town council of Hale, and the\n"
        "bridge was opened by Orla Quist.\n"
        "\n"
        "Chapter 2\n"
        "- Hale is a town\n"
    )
    edges = extract_edges(text)
    found = [(e.s, e.p, e.o) for e in edges]
    assert ("Casimir Rook", "designed", "Marrowby Bridge") in found
    assert ("Hale", "is a", "town") in found
    assert not any(s in ("Rook", "Chapter") for s, _, _ in found)  # no line-long fragments
    for edge in edges:
        assert edge.quote in text  # exactly as the text has it, line breaks and all
    quote = next(e.quote for e in edges if e.s == "Casimir Rook")
    assert quote.startswith("In the valley") and quote.endswith("Orla Quist.")


def test_sentences_of_prose_keep_abbreviations_and_initials() -> None:
    assert prose_sentences("Dr. J. Rook built it. St. Mary's is old.\n- one\n- two") == [
        "Dr. J. Rook built it.",
        "St. Mary's is old.",
        "- one",
        "- two",
    ]


def test_a_large_wrapped_text_yields_edges_throughout() -> None:
    para = (
        "The engineer Casimir Rook worked for many years on the long bridges of the\n"
        "northern valleys, where the rivers run fast in spring. Marrowby lies on the\n"
        "river Hale, and its mills produce wool and cloth for the southern markets.\n"
    )
    text = "\n".join(para.replace("Marrowby", f"Town{n}") for n in range(3000))  # ~700 kB
    chunks = [text[i : i + 1000] for i in range(0, len(text), 900)]
    with_edges = sum(1 for chunk in chunks if extract_edges(chunk))
    assert with_edges >= 0.9 * len(chunks)


def test_subjects_found_past_descriptions_and_pronouns_kept_apart() -> None:
    text = (
        "Casimir Rook designed the Marrowby Bridge. The bridge has five arches and is 212 "
        "metres long. It was opened by Queen Adela. Orla Quist received the Keller Medal. "
        "The medal is awarded by the Northern Society. She retired to Skarra."
    )
    found = triples(text)
    assert ("Marrowby Bridge", "is", "212 metres") in found  # "The bridge": the name before
    assert ("Queen Adela", "opened", "Marrowby Bridge") in found  # "It": that bridge
    assert ("Northern Society", "awarded", "Keller Medal") in found
    assert ("Orla Quist", "retired to", "Skarra") in found  # "She": a person, not the medal
    assert ("Queen Adela", "opened", "Casimir Rook") not in found


def test_sentences_without_a_name_first_still_state_facts() -> None:
    assert triples("The capital of Skarra is Port Ellis.") == [
        ("Port Ellis", "is the capital of", "Skarra")
    ]
    assert triples("The height of Ben Corra is 487 metres.") == [
        ("Ben Corra", "has height of", "487 metres")
    ]
    assert ("monks from Iona", "built", "chapel of Saint Ronan") in triples(
        "The chapel of Saint Ronan was built by monks from Iona in 1104."
    )
    assert triples("Its highest hill, Ben Corra, rises to 487 metres.") == [
        ("Ben Corra", "rises to", "487 metres")
    ]
    assert triples("The Skarra vole lives on Skarra.") == [("Skarra vole", "lives on", "Skarra")]


def test_clauses_after_a_comma_and_an_opening_year_are_read() -> None:
    found = triples("In 1899 Quist moved to Glasgow, where she taught at the Anderson College.")
    assert found == [("Quist", "moved to", "Glasgow"), ("Quist", "taught at", "Anderson College")]
    found = triples("The tin comes from the Brack Hills, where the Penhale Mine was dug in 1790.")
    assert ("Penhale Mine", "was dug in", "1790") in found
    assert triples("In 1886 she discovered a pale blue salt.") == []  # no one to stand for


def test_a_clause_joined_by_and_with_only_adverbs_after_it_is_read_without_failing() -> None:
    """'…for Windows Vista and later:' (curl's changelog, a list item): 'and' then only an
    adverb to the sentence's end raised IndexError in the extractor, which lost the chunk."""
    assert triples("Hale built the mill and later.") == [("Hale", "built", "mill")]
