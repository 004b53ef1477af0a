"""What the offline engine's answers claim, through ``offline.complete`` and the offline
verification (issue 29). A *who made it* question answered from a title page's byline: the
answer says the act ("Ann Carr wrote …"), each claim is supported by the evidence it cites
(a name's footnote mark there is no other name), and the answer addresses the question; when
a piece says who did it, only such a piece answers, and it needs the thing's name, not every
word the question describes it with. An answer quoting one sentence of a quotation ends on
no stray mark."""

from __future__ import annotations

import json
from typing import Any

from trustgraph_flow.llm import offline
from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.verify.addressing import unaddressed
from trustgraph_flow.verify.heuristic import check_claim

TITLE_PAGE = (
    "Knots of the Skarra Coast and\n"
    "Their Uses at Sea\n"
    "Ann Carr1 and Tom Hale2\n"
    "1Skarra Museum\n"
    "2Marrowby College\n"
    "Abstract\n"
    "This paper describes the knots of the Skarra coast in 42 drawings.\n"
    "This paper also lists which knots the Skarra fishermen tie.\n"
)


def _graph(question: str, edges: list[dict[str, Any]]) -> dict[str, Any]:
    reply = offline.complete(
        "graph-rag-answer", {"question": question, "edges": edges}, structured=True
    )
    return dict(json.loads(reply))


def test_a_byline_answers_who_wrote_the_paper_and_says_the_act() -> None:
    edges = [
        {"s": e.s, "p": e.p, "o": e.o, "quote": e.quote, "excerpt": TITLE_PAGE}
        for e in extract_edges(TITLE_PAGE)
    ]
    assert {(e["s"], e["p"]) for e in edges} >= {("Ann Carr", "wrote"), ("Tom Hale", "wrote")}
    question = "Who wrote the paper on the Skarra coast?"
    reply = _graph(question, edges)
    # not "This paper describes the knots…": it says no one wrote anything
    assert reply["answer"].startswith("Ann Carr wrote Knots of the Skarra Coast"), reply
    assert "Tom Hale wrote" in reply["answer"]
    for claim in reply["claims"]:
        edge = edges[claim["cited"][0] - 1]
        assessment = check_claim(claim["text"], [edge["quote"], TITLE_PAGE])
        assert assessment.supported, (claim, assessment)  # 'Carr1' holds Carr
    assert unaddressed(question, [c["text"] for c in reply["claims"]]) is None


def test_who_made_a_thing_is_answered_by_its_name_not_every_word_describing_it() -> None:
    chunk = (
        "The Carne Bridge spans the Tell in five arches. "
        "The Carne Bridge was designed by Amos Hart in 1871."
    )
    edges = [
        {"s": "Carne Bridge", "p": "spans", "o": "Tell", "excerpt": chunk},
        {"s": "Amos Hart", "p": "designed", "o": "Carne Bridge", "excerpt": chunk},
    ]
    # 'arches' is only where no one is said to design anything
    reply = _graph("Who designed the arches of the Carne Bridge?", edges)
    assert reply["answer"] == "The Carne Bridge was designed by Amos Hart in 1871.", reply
    # another bridge's designer still answers nothing
    assert _graph("Who designed the Eiffel Tower?", edges)["answer"] == offline.NO_GRAPH_ANSWER


def _document(question: str, chunks: list[str]) -> dict[str, Any]:
    reply = offline.complete(
        "document-rag-answer", {"question": question, "chunks": chunks}, structured=True
    )
    return dict(json.loads(reply))


def _withheld(question: str, reply: dict[str, Any]) -> bool:
    """The answer is none, or one the verification withholds: it says no one did it."""
    if reply["answer"] in (offline.NO_GRAPH_ANSWER, offline.NO_DOCUMENT_ANSWER):
        return True
    return unaddressed(question, [c["text"] for c in reply["claims"]]) is not None


def test_a_by_phrase_that_words_no_act_needs_every_word_describing_the_thing() -> None:
    bridge = (
        "The Carne Bridge spans the Tell in five arches. "
        "The Carne Bridge is copyright by the Skarra Trust. "
        "The Tell Walk guide lists each bridge on the river."
    )
    # who holds the bridge's copyright is not who wrote a guide to it: the 'by' words no
    # act, so the piece needs 'guide' as well as the bridge's name
    question = "Who wrote the Carne Bridge guide?"
    assert _document(question, [bridge])["answer"] == offline.NO_DOCUMENT_ANSWER
    edges = [
        {"s": "Carne Bridge", "p": "spans", "o": "Tell", "excerpt": bridge},
        {"s": "Carne Bridge", "p": "is copyright by", "o": "Skarra Trust", "excerpt": bridge},
        {"s": "Tell Walk guide", "p": "lists", "o": "each bridge", "excerpt": bridge},
    ]
    assert _graph(question, edges)["answer"] == offline.NO_GRAPH_ANSWER
    # a thing named with a word of the act ('Build') is not the act done
    tool = (
        "Skarra Build compiles knot charts into drawings. "
        "Skarra Build is copyright by the Marrowby Trust. "
        "Skarra Build development is hosted by Tellhub, the Trust's online service. "
        "The Skarra Build guide is in the docs folder of the source."
    )
    question = "Who wrote the Skarra Build guide?"
    reply = _document(question, [tool])
    assert "copyright" not in reply["answer"] and "Tellhub" not in reply["answer"], reply
    assert _withheld(question, reply), reply


def test_no_answer_ends_on_a_quotation_mark_it_did_not_open() -> None:
    chunks = ['The guide says: "Skarra has one road. The road runs to Port Ellis." It is short.']
    reply = offline.complete(
        "document-rag-answer",
        {"question": "Where does the road on Skarra run to?", "chunks": chunks},
        structured=True,
    )
    assert json.loads(reply)["answer"] == "The road runs to Port Ellis."
    assert json.loads(reply)["claims"] == [{"text": "The road runs to Port Ellis.", "cited": [1]}]


def test_an_answer_from_a_list_item_says_the_item_without_its_bullet() -> None:
    # a PDF's list, as PDFium reads it: each item a line with its bullet
    page = (
        "The magic file holds two kinds of element:\n"
        "• magic elements contain a list of match elements, any of which may match.\n"
        "• treemagic elements contain a list of treematch elements.\n"
    )
    reply = _document("What do magic elements contain?", [page])
    said = "magic elements contain a list of match elements, any of which may match."
    assert reply["answer"] == said, reply
    assert reply["claims"] == [{"text": said, "cited": [1]}]
