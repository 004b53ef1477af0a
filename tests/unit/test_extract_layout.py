"""Lines that are layout, not prose (``llm/layout``, issue 29): a contents line, a section
heading, an option and its description, a usage line, a table row, code and a heading
standing alone give no edge; the prose around them gives its edges as before."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.prose import prose_sentences

# Laid out as Debian's bzip2 manual and sed FAQ lay theirs out; each layout line reads,
# word by word, like a name and its verb ("Utility functions summary").
MANUAL = """3.1.3. Utility functions summary . . . . . . . . . . . . . . . . . . 9
3.4.8. Handling embedded compressed data streams
Zedit reads its input from files.
-k --keep
Keep (don't delete) input files during compression or decompression.
zedit [ -cdfk ] [ filenames ... ]
Usage: zedit [OPTION]... Quits lines

   Utility sets and groups

   Getting started with Zedit
       http://www.example.org/zedit.html

   \\dDDD   decimal char, where DDD are 1-3 decimal digits
   GNU Zedit:        no limit

     # Comments supported by Zedit or Qedit.
     /<!--#include file="/ {  # For each include command
"""
LAYOUT_SUBJECTS = {"Utility", "Handling", "Keep input", "Getting", "DDD", "Comments", "GNU Zedit"}


def _triples(text: str) -> set[tuple[str, str, str]]:
    return {(e.s, e.p, e.o) for e in extract_edges(text)}


def test_layout_lines_give_no_edge_and_prose_among_them_does() -> None:
    edges = extract_edges(MANUAL)
    assert {(e.s, e.p, e.o) for e in edges} == {("Zedit", "reads", "input")}, edges
    assert not {e.s for e in edges} & LAYOUT_SUBJECTS


def test_a_heading_ends_its_block_though_it_is_long() -> None:
    # a PDF has no blank lines: a long heading must not run into the next sentence
    text = "3.4.8. Handling embedded compressed data streams\nZedit reads its input.\n"
    assert prose_sentences(text)[-1] == "Zedit reads its input."
    assert _triples(text) == {("Zedit", "reads", "input")}


def test_lines_that_look_like_layout_but_are_prose_are_read() -> None:
    text = (
        "The guide says so.\n"
        "Libpng uses an integer approximation:\n\n"
        "    Y = (6968 * R + 23434 * G + 2366 * B)/32768\n\n"
        "The Zedit specification is available at\n"
        "<https://example.org/spec/>.\n"
        "Hale built 3 mills in 1871, 1872 and 1890.\n"  # digits, and words of prose
        "   *  Covered Software is provided under this License on an as is basis.   *\n"
    )
    assert _triples(text) >= {
        ("Libpng", "uses", "integer approximation"),
        ("Zedit specification", "is", "available"),
        ("Hale", "built", "3 mills"),
        ("Covered Software", "is provided under this", "License"),
    }


def test_a_pronoun_after_a_layout_line_stands_for_nothing_before_it() -> None:
    text = (
        "Zedit is an editor.\n\n"
        "   zedit [ -s ] [ filenames ... ]\n\n"
        "   It is important to get the right version.\n"
    )
    assert {e.s for e in extract_edges(text)} == {"Zedit"}
    assert ("Zedit", "is an", "editor") in _triples(text)


def test_the_first_and_last_lines_of_a_chunk_are_not_taken_for_headings() -> None:
    # a chunk may start or end in mid-sentence, with a deeper line under its first
    text = "Toolkit contains over 100 Unix utilities,\n   including a shell.\nZedit reads its"
    assert ("Toolkit", "contains over", "100 Unix") in _triples(text)


def test_a_numbered_paragraph_whose_sentence_goes_on_is_prose() -> None:
    # MPL-2.0's "5.1. The rights granted… will terminate automatically" / "if You fail…": a
    # numbered line with no full stop is a heading only when the next line starts anew
    text = (
        "5.2. Hale Mill was designed by Casimir Rook in the year\n"
        "1871 and built by local masons.\n"
        "5.3. The rights granted under this License will terminate automatically\n"
        "if You fail to comply with any of its terms.\n"
    )
    assert ("Casimir Rook", "designed", "Hale Mill") in _triples(text)
    assert (
        "The rights granted under this License will terminate automatically\n"
        "if You fail to comply with any of its terms."
    ) in prose_sentences(text)
    contents = "3.1.3. Utility functions summary . . . . . 9\n3.1.4. Other functions . . . 10\n"
    assert _triples(contents) == set()


def test_a_paragraph_set_flush_to_both_margins_is_prose_not_a_table() -> None:
    # FreeType's README justifies its text: spaces spread over every gap, three after a
    # comma, read as a table's columns before ("It is written in C" gave no edge)
    text = (
        "Zedit is a freely available library to render maps.\n\n"
        "It  is  written  in  C,   designed  to  be  small,  efficient,  highly\n"
        "portable  and  quick.\n\n"
        "   \\dDDD   decimal char, where DDD are 1-3 decimal digits\n"
        "   Name   Size   Kind   Owner\n"
    )
    assert _triples(text) == {
        ("Zedit", "is a", "freely available library"),
        ("Zedit", "is written in", "C"),
    }
