"""Session 22's extraction rules (issue 29), on text written for this test: a release's date
(a versioned name as the subject, a date read whole as the object) and a title page's byline
as authorship; and what they must not read."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges


def _triples(text: str) -> set[tuple[str, str, str, bool]]:
    return {(e.s, e.p, e.o, e.o_literal) for e in extract_edges(text)}


def test_a_release_and_its_date() -> None:
    text = "\nfrobnik-2.7.1 was released on March 4, 2021.  Check the web page for news.\n"
    assert ("frobnik-2.7.1", "was released on", "March 4, 2021", True) in _triples(text)
    text = "Notes.\n\nGNU Frob 5.2 was released on 9 July 2019.\n"
    assert ("GNU Frob 5.2", "was released on", "9 July 2019", True) in _triples(text)


def test_a_date_is_read_whole_in_each_form() -> None:
    text = (
        "The Carne Bridge was opened on 3 May 1871. Wren moved to Leeds in June 1880. "
        "Frobnik reached its end on 2017-12-31."
    )
    found = _triples(text)
    assert ("Carne Bridge", "was opened on", "3 May 1871", True) in found
    assert ("Wren", "moved to", "Leeds", False) in found
    assert ("Wren", "moved to Leeds in", "1880", True) in found  # a year after the object
    assert ("Frobnik", "reached its end on", "2017-12-31", True) in found
    # "May" alone is a modal, no date; a version number after a name is no subject's part
    # unless a verb follows it
    assert ("GNU GPL Version 3.0", "is a", "licence", False) in _triples(
        "Notes.\n\nThe GNU GPL Version 3.0 is a licence."
    )
    assert not any(o == "May" for _, _, o, _ in _triples("Rook said he May come."))


def test_a_byline_under_a_title_states_who_wrote_it() -> None:
    text = "A Short Guide to Sorting\nMethods\nby Ann P. Carr and Tom Wells\n\nIt is short.\n"
    found = {e.s: e for e in extract_edges(text) if e.p == "wrote"}
    assert set(found) == {"Ann P. Carr", "Tom Wells"}
    edge = found["Tom Wells"]
    assert edge.o == "A Short Guide to Sorting Methods"
    assert edge.quote == "A Short Guide to Sorting\nMethods\nby Ann P. Carr and Tom Wells"
    paper = "Fast Hashing on Small Machines\nLena Ruiz1 and Omar Diallo2\n1Acme Inc.\nAbstract\n"
    assert {e.s for e in extract_edges(paper) if e.p == "wrote"} == {"Lena Ruiz", "Omar Diallo"}
    # a specification's title page, as PDFium reads it: the group it is from, with its web
    # address, between the title and the author is no part of the title
    spec = (
        "Shared MIME-info Database\r\nX Desktop Group (http://www.freedesktop.org)\r\n"
        "Thomas Leonard\r\ntal197 at users.sf.net\r\n1. Introduction\r\n"
    )
    found = {e.s: e for e in extract_edges(spec) if e.p == "wrote"}
    assert [(s, e.o) for s, e in found.items()] == [("Thomas Leonard", "Shared MIME-info Database")]
    assert found["Thomas Leonard"].quote.startswith("Shared MIME-info Database")


def test_no_byline_where_no_title_page_is() -> None:
    for text in (
        "Contributors\nJohn Smith and Ann Lee\n",  # a heading over names: no title page
        "This tool sorts files.\nJohn Smith\n",  # a sentence, no title
        "Notes\n\nSee the guide.\nA Short Guide to Sorting Methods\nby Ann Carr\n",  # not at the start
        "A Short Guide to Sorting Methods\nby the authors of frobnik\n",  # no person's name
    ):
        assert not any(e.p == "wrote" for e in extract_edges(text)), text


def test_a_passive_in_a_list_of_predicates() -> None:
    text = (
        "Frobwin is a toolkit. It is owned by Acme, created by David Korn (author of a shell), "
        "and is freely distributed. The mill was designed by Tobias Wren, assisted by Amos Hart."
    )
    found = _triples(text)
    assert ("David Korn", "created", "Frobwin", False) in found
    assert ("Acme", "owned", "Frobwin", False) in found
    assert not any(s == "Amos Hart" for s, _, _, _ in found)  # no list: the agent's helper


def test_this_licence_or_package_is_the_text_its_title_names() -> None:
    licence = (
        "\n          FROBNIK PUBLIC LICENSE\n           Version 2, 4 May 2001\n\n"
        "This License applies to any program. It complements the Frobnik Documentation "
        "License, which covers manuals.\n\nThe Frobnik Public License is short.\n"
    )
    found = _triples(licence)
    assert ("Frobnik Public License", "applies to", "program", False) in found
    assert (
        "Frobnik Public License",
        "complements",
        "Frobnik Documentation License",
        False,
    ) in found
    readme = "Knot Tools\n==========\n\nThis package contains the tie and untie programs.\n"
    assert ("Knot Tools", "contains", "tie", False) in _triples(readme)
    # no title line, or a kind the title does not end with: nothing stands for 'This'
    untitled = "This package contains the tie and untie programs. It also holds knots.\n"
    assert not any(s.startswith(("This", "Knot")) for s, _, _, _ in _triples(untitled))
    other = "Knot Tools\n==========\n\nThis Manual explains knots.\n"
    assert ("Knot Tools", "explains", "knots", False) not in _triples(other)
