"""A sentence opening with a description, not a name (``llm/extract_plural``): its first
word is capitalised only because it comes first, and the plural noun after it is no verb."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges

DESCRIPTIONS = (
    "Several archives may be unpacked at once. Seven commands make up the editing core. "
    "Older releases of the tool will refuse long lines. Typical settings are kept in a file. "
    "Shared memory buffers are released on exit.\n"
    "Possible outcomes of a merge:\n"
)


def _triples(text: str) -> set[tuple[str, str, str]]:
    return {(e.s, e.p, e.o) for e in extract_edges(text)}


def test_a_description_with_a_plural_noun_gives_no_edge_of_its_first_word() -> None:
    edges = extract_edges(DESCRIPTIONS)
    firsts = {"Several", "Seven", "Older", "Typical", "Shared memory", "Possible"}
    assert [e for e in edges if e.s in firsts] == []


def test_a_name_and_its_verb_are_read_as_before() -> None:
    text = (
        "Grepper reads its input line by line. Grepper runs under Linux. "
        "Marrowby lies on the River Wear. Zedit supports regular expressions."
    )
    assert _triples(text) >= {
        ("Grepper", "reads", "input line"),
        ("Grepper", "runs under", "Linux"),
        ("Marrowby", "lies on", "River Wear"),
        ("Zedit", "supports", "regular expressions"),
    }


def test_a_name_spelt_as_a_name_keeps_its_verb_before_a_preposition() -> None:
    # "HHsed exits with…": a capital inside the word, a name; "Earlier versions of…" is not.
    assert ("HHsed", "exits with", "error message") in _triples(
        "HHsed exits with an error message."
    )
    assert _triples("Earlier versions of Grepper will stop at the first file.") == set()
    assert _triples("Escape characters on the right side.") == set()
