"""Session 18's junk on libjpeg's structure.txt and dpkg's triggers.txt (issue 29): names
joined by '&' or '/' and sizes are one token, a copyright notice's holder keeps an initial and
is no subject for 'It', and an opening that names no subject (a possessive's owner, a name
before a symbol, a reduced passive, an empty 'it') states nothing; an opening preposition, a
condition in the relation, a quantifier or an abbreviation as a label, and a verb after
'designed to' are junk. Each gives no junk edge; the fact beside it is read as before."""

from __future__ import annotations

import pytest

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.extract_notice import is_notice, notice_facts
from trustgraph_flow.llm.extract_tokens import sentence_tokens


def _triples(text: str) -> set[tuple[str, str, str]]:
    return {(e.s, e.p, e.o) for e in extract_edges(text)}


def test_names_with_ampersand_or_slash_and_sizes_are_one_token() -> None:
    assert _triples("AT&T owned U/WIN.") == {("AT&T", "owned", "U/WIN")}
    assert ("block", "is", "8x8 group") in _triples('A "block" is an 8x8 group of samples.')
    assert sentence_tokens("You may copy and/or modify it.")[3:6] == ["and", "/", "or"]


def test_a_notice_keeps_the_holders_initial_and_is_no_subject_for_it() -> None:
    text = (
        "Copyright (C) 1991-2012, Thomas G. Lane, Guido Vollbeding.\n"
        "It was modified by The Qedit Project to include only information.\n"
    )
    assert _triples(text) == {
        ("Thomas G. Lane", "holds", "copyright"),
        ("Thomas G. Lane", "holds copyright dated", "1991-2012"),
    }
    assert is_notice("Copyright (c) YEAR YOUR NAME")
    assert notice_facts("Copyright (c) YEAR YOUR NAME") == []  # a template's placeholder
    assert notice_facts("Copyright (C) 2000 MIT.")[0] == ("MIT", "holds", "copyright", False)


@pytest.mark.parametrize(
    "sentence",
    [
        "The Zedit library's memory manager controls allocation, and it manages arrays.",
        "The standard ITU-T T.81 | ISO/IEC 10918-1 regards it as its input.",
        "Changes made by dpkg to the link count of a file are not noticed.",
        "It is allowed for the functionality relating to a trigger to fail.",
        "It is still possible to set the error callbacks.",
        "In IJG implementations prior to v5, overall control was provided by modules.",
        "Short will be used if samples wider than 8 bits are to be supported.",
        "Lossless Zedit shares little or no code with lossy Zedit.",
        "The Zedit marker reader is designed to cope with suspension.",
        "Trigger processing is supposed to monotonically decrease the set.",
    ],
)
def test_junk_openings_give_no_edge(sentence: str) -> None:
    assert _triples(sentence) == set(), sentence


def test_the_fact_beside_is_still_read() -> None:
    assert ("component", "means", "color channel") in _triples(
        'A "component" means a color channel, e.g., Red or Luminance.'
    )
    assert not any(o == "e.g" for _, _, o in _triples('A "component" means red, e.g., Red.'))
    found = _triples("Hale built the mill. Houses built by Hale were sold.")
    assert ("Hale", "built", "mill") in found
