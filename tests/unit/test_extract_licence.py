"""The offline extractor on the forms licences and manuals are written in: a modal before its
verb, a copyright notice, sentence adverbs; and what stays junk there."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(e.s, e.p, e.o) for e in extract_edges(text)]


def test_a_modal_and_its_verb_make_the_predicate() -> None:
    assert triples('"Licensor" shall mean the copyright owner.') == [
        ("Licensor", "shall mean", "copyright owner")
    ]
    assert triples("The Licensor may publish revised versions.") == [
        ("Licensor", "may publish", "revised versions")
    ]
    assert triples("Each Contributor hereby grants a patent license.") == [
        ("Each Contributor", "grants", "patent license")
    ]


def test_a_modal_without_an_object_states_nothing() -> None:
    assert triples("This License will therefore apply, along with any terms.") == []
    assert triples("The Data must suffice to run it.") == []
    assert triples("You may convey verbatim copies.") == []  # 'you' is no subject
    assert triples("A User Product is either a consumer product.") == []


def test_a_copyright_notice_names_its_holder() -> None:
    edges = extract_edges("Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>")
    assert [(e.s, e.p, e.o, e.o_literal) for e in edges] == [
        ("Free Software Foundation", "holds", "copyright", False),
        ("Free Software Foundation", "holds copyright dated", "2007", True),
    ]
    assert edges[0].quote.startswith("Copyright (C) 2007")
    assert triples("Copyright (c) The Regents of the University of California.") == [
        ("Regents of the University of California", "holds", "copyright")
    ]


def test_a_template_notice_names_no_one() -> None:
    assert triples("Copyright (c)  YEAR  YOUR NAME.") == []
    assert triples("Copyright [yyyy] [name of copyright owner]") == []
    assert triples("Copyright (C) <year>  <name of author>") == []
    assert triples("The copyright notice must be kept.") == []


def test_a_term_on_the_line_above_its_definition() -> None:
    edges = extract_edges(
        '1.3.\n"Contribution"\nmeans Covered Software of a particular Contributor.\n'
    )
    assert [(e.s, e.p, e.o) for e in edges] == [("Contribution", "means", "Covered Software")]
    assert edges[0].quote == '"Contribution"\nmeans Covered Software of a particular Contributor.'
    found = triples(
        '"Secondary License"\nmeans either the GNU General Public License, Version 2.0.'
    )
    assert found == [("Secondary License", "means either", "GNU General Public License")]
    assert triples('"Contribution"\n\nmeans Covered Software.') == []  # a paragraph apart


def test_a_possessive_a_wh_ever_word_or_a_linking_adverb_is_junk() -> None:
    assert triples("The Copyright Holder is whoever is named in the notice.") == []
    assert triples("Moreover, Your grants from a particular Contributor are limited.") == []


def test_a_predicate_that_lost_its_verb_to_the_object_states_nothing() -> None:
    """After "does not", "need not", a modal or "to" before a known verb comes the verb: an
    object starting with it is the predicate's own ("This License → does not → grant
    permission"), and a lone participle is no thing ("may publish → revised", cut at
    "and/or"). Seen on GPL-3, Apache-2.0, MPL-2.0 and the users-and-groups guide."""
    assert (
        triples("Corresponding Source need not include anything that users can regenerate.") == []
    )
    assert triples("The Free Software Foundation may publish revised and/or new versions.") == []
    assert (
        triples("Our General Public Licenses are designed to make sure that you have the freedom.")
        == []
    )
    # the same forms with the verb in the predicate still state their fact; since session 20
    # "does not" takes its verb into the predicate as a modal does ('does not support')
    assert triples("This License does not grant permission to use the trade names.") == [
        ("This License", "does not grant", "permission")
    ]
    assert triples("This License does not invalidate such rights.") == [
        ("This License", "does not invalidate", "rights")
    ]
    assert triples("This License does not grant the Hale Works a patent.") == [
        ("This License", "does not grant", "Hale Works")
    ]
    assert triples("The Licensor may publish revised versions.") == [
        ("Licensor", "may publish", "revised versions")
    ]
    assert triples("The Seine flows to the sea.") == [("Seine", "flows to", "sea")]
