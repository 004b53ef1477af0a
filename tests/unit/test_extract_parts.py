"""Words in the wrong part of speech for their place, told by the lexicon (issue 29,
``llm/extract_parts``): a plural noun read as the relation, a lone adjective or a verb as
subject, a word that can only be a verb as object. Each gives no edge; the words the lexicon
does not know (names, code), names it knows as adjectives ('Hale'), gerunds, names inside a
label, an act after 'to', a list's nouns and a term in quotes are read as before."""

from __future__ import annotations

import pytest

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.lexicon import ADJ, NOUN, VERB, can_be, parts_of_speech


def _triples(text: str) -> set[tuple[str, str, str]]:
    return {(e.s, e.p, e.o) for e in extract_edges(text)}


def test_the_lexicon_gives_a_words_parts_of_speech_and_knows_no_name_or_code() -> None:
    assert parts_of_speech("pack") == {NOUN, VERB}
    assert parts_of_speech("Optional") == {ADJ}
    assert can_be("maintain", NOUN, ADJ) is False
    assert can_be("traces", VERB) is True
    # a name, code, a number: unknown, which the rules read as able to be anything
    for word in ("Zedit", "png_read", "32-bit", "1974", ""):
        assert parts_of_speech(word) == frozenset(), word
        assert can_be(word, VERB) is None, word


@pytest.mark.parametrize(
    "sentence",
    [
        # a plural noun read as the relation, the verb after it as the object
        "In practice, Zedit implementations tend to crash on large files.",
        "Qlink core collaborators maintain the Qlink repository.",
        "CSV parsers available from Zedit.",
        # an object that can only be a verb
        "Occasionally Zedit stack traces get the wrong function names.",
        "Zedit will correctly decompress a file which is a concatenation of two files.",
        # a lone adjective as subject, its noun read as the relation
        "Higher numbers result in more output from Zedit.",
        # a list item's description cut from its label by a chunk's start, and the pronoun
        # after it: 'Warlike' was the subject of "They operated…" (the bronze age sample)
        "Warlike yet sophisticated masters of\nthe Greek mainland. They operated from\n"
        "fortified palace complexes at Mycenae.",
        # a subject ending in its own verb
        "Zedit's home page (above) gives links to other sites which help students.",
    ],
)
def test_words_in_the_wrong_part_of_speech_give_no_edge(sentence: str) -> None:
    assert _triples(sentence) == set()


@pytest.mark.parametrize(
    ("sentence", "edge"),
    [
        (
            '"Incorporate" means to publish a Document.',
            ("Incorporate", "means to publish", "Document"),
        ),
        (
            "Permission is granted to distribute this file.",
            ("Permission", "is granted to", "distribute"),
        ),
        (
            "Lee Hale encouraged me to improve Zedit.",
            ("Lee Hale", "encouraged me to improve", "Zedit"),
        ),
        ("Display receives Accept after Manage has been sent.", ("Display", "receives", "Accept")),
        (
            "The Zedit team schedules rebuilds for packages.",
            ("Zedit team", "schedules", "rebuilds"),
        ),
        ("Zedit input includes marker parsing.", ("Zedit input", "includes", "marker parsing")),
        ("Zedit is separate from Qedit.", ("Zedit", "is separate from", "Qedit")),
        # a name the lexicon knows as an adjective; a list's noun it knows only as a verb
        (
            "Hale published a suffix array algorithm.",
            ("Hale", "published", "suffix array algorithm"),
        ),
        ("Strong wrote Zedit in 1974.", ("Strong", "wrote", "Zedit")),
        ("Marrowby exports wool, tin and copper.", ("Marrowby", "exports", "tin")),
    ],
)
def test_names_gerunds_acts_after_to_and_quoted_terms_are_read(
    sentence: str, edge: tuple[str, str, str]
) -> None:
    assert edge in _triples(sentence)
