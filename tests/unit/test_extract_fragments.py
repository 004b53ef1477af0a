"""Sentences the offline extractor misread into junk on Debian's bzip2 manual and sed FAQ
(issue 29): a count as subject, "like" or "plus" as object, a participle after adverbs or
an article, a modal's verb after "no longer", a participle and its agent describing the
subject, a subject that opens with a negated auxiliary, a verb's clause taken for its
object. Each gives no edge; the fact beside it is read as before."""

from __future__ import annotations

import pytest

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.hollow_labels import hollow


def _triples(text: str) -> set[tuple[str, str, str]]:
    return {(e.s, e.p, e.o) for e in extract_edges(text)}


@pytest.mark.parametrize(
    "sentence",
    [
        "Four hyphens separate the two sections.",  # a count, not a name
        "Various packages offer hundreds of utilities.",
        "Zedit works like this: it reads a line.",  # "like" names nothing
        "Regular expressions like these lose their meaning.",
        "Zedit appends a newline, plus the contents of the buffer.",
        "Limits are actually determined by the hardware.",  # a participle, adverbs before it
        "Zedit is a small tool, written by Lee Hale in 1974.",
        "In this state, Zedit will no longer attempt to read data.",  # the modal's verb
        "Zedit is fast, and the actual block size used is 100000 x this figure.",
        "Compressed data created by this version is compatible.",  # ditto, with its agent
        "(3) Doesn't handle multiple commands within braces.",  # no subject at all
        "DOS versions of Zedit require double quotes.",  # 'versions' is no verb
        "The W3C and ISO documents have identical content.",
        "Subsequent work by Ada Hale has produced a faster algorithm.",
        '"t" means the transformation is obtained by png_set_tRNS.',  # a clause, no object
    ],
)
def test_a_misread_sentence_gives_no_junk_edge(sentence: str) -> None:
    junk = {"Four", "Various", "Regular", "Limits", "actual block size", "Compressed data"}
    junk |= {"DOS", "W3C", "ISO", "Subsequent", "t"}
    objects = {"like", "plus", "written", "actually determined", "attempt", "transformation"}
    for s, p, o in _triples(sentence):
        assert s not in junk and o not in objects and not s.startswith("Doesn"), (s, p, o)


def test_a_participle_describing_the_subject_is_not_its_verb() -> None:
    # base-files' README: the packages reach testing; they were not "uploaded for" it
    text = (
        "Packages uploaded for unstable reach testing after ten days, provided they are "
        "built for every released architecture."
    )
    assert not any(p.startswith("uploaded") for _, p, _ in _triples(text)), _triples(text)
    assert ("Wren", "moved to", "Leeds") in _triples("Wren moved to Leeds and built houses.")


def test_the_facts_beside_them_are_read_as_before() -> None:
    text = (
        "Zedit is a small tool, written by Lee Hale in 1974. Zedit appends a newline, plus "
        "the contents of the buffer. Zedit will not produce output until the end. "
        "Hale published a suffix array algorithm. Many people sent patches."
    )
    assert _triples(text) >= {
        ("Zedit", "is a", "small tool"),
        ("Zedit", "appends", "newline"),
        ("Zedit", "will not produce", "output"),
        ("Hale", "published", "suffix array algorithm"),
        ("Many people", "sent", "patches"),
    }


def test_a_count_or_like_names_nothing_wherever_an_edge_comes_from() -> None:
    # GraphRAG's focus applies ``hollow`` to any edge, an LLM's too
    assert hollow("Four", subject=True) and hollow("Various", subject=True)
    assert hollow("like") and not hollow("Four") and not hollow("Four Winds", subject=True)
