"""The offline engine's answers through ``offline.complete``: the evidence that best supports
an answer (read with what it leans on), one sentence unless another adds to it, and "no
relevant information" when nothing supports one."""

from __future__ import annotations

import json
from typing import Any

from trustgraph_flow.llm import offline
from trustgraph_flow.llm.support import has_kind
from trustgraph_flow.llm.text import stem

CHUNKS = [
    "Marrowby lies on the River Tell. The town was founded by Tobias Wren in 1642.\n\n"
    "The Marrowby Bridge was designed by Casimir Rook in 1871. The bridge has five arches.\n"
    "It was opened by Queen Adela in 1874.",
    "Hester Vane and Jonah Mott founded the Marrowby Society in 1902. The society keeps the "
    "archive. The capital of Skarra is Port Ellis. A point of order was raised.",
]


def doc(question: str) -> dict[str, Any]:
    reply = offline.complete(
        "document-rag-answer", {"question": question, "chunks": CHUNKS}, structured=True
    )
    return dict(json.loads(reply))


def test_a_sentence_is_read_with_the_ones_it_leans_on() -> None:
    assert (
        doc("Who opened the Marrowby Bridge?")["answer"] == "It was opened by Queen Adela in 1874."
    )
    # 'Marrowby' in "the Marrowby Society" is another thing; "The town" is Marrowby.
    reply = doc("Who founded Marrowby?")
    assert reply["answer"] == "The town was founded by Tobias Wren in 1642."
    assert reply["cited"] == [1] and reply["claims"] == [{"text": reply["answer"], "cited": [1]}]


def test_the_answer_is_one_sentence_unless_another_adds_to_it() -> None:
    reply = doc("Who designed the Marrowby Bridge?")
    assert reply["answer"] == "The Marrowby Bridge was designed by Casimir Rook in 1871."


def test_evidence_that_does_not_answer_is_no_answer() -> None:
    for question in (
        "What is the boiling point of mercury?",  # 'point' alone is no answer
        "What is the capital of Australia?",  # a name the evidence never mentions
        "zebras?",
    ):
        reply = doc(question)
        assert reply == {"answer": offline.NO_DOCUMENT_ANSWER, "cited": [], "claims": []}, question
    assert doc("What is the capital of Skarra?")["answer"] == "The capital of Skarra is Port Ellis."


def test_graph_answers_cite_only_edges_that_support_one() -> None:
    edges = [
        {"s": "Hester Vane", "p": "founded", "o": "Marrowby Society"},
        {"s": "Casimir Rook", "p": "designed", "o": "Marrowby Bridge"},
        {"s": "Casimir Rook", "p": "designed Marrowby Bridge in", "o": "1871"},
    ]

    def ask(question: str) -> dict[str, Any]:
        variables = {"question": question, "edges": edges}
        return dict(json.loads(offline.complete("graph-rag-answer", variables, structured=True)))

    reply = ask("When was the Marrowby Bridge designed?")
    assert reply["answer"].startswith("Casimir Rook designed Marrowby Bridge in 1871.")
    assert reply["cited"][0] == 3  # the year it asks for first
    assert ask("What is the boiling point of mercury?")["answer"] == offline.NO_GRAPH_ANSWER
    assert ask("Who founded Rome?")["cited"] == []


def test_a_name_may_be_given_in_part() -> None:
    edges = [
        {"s": "Quist", "p": "received Keller Medal in", "o": "1907"},
        {"s": "Orla Quist", "p": "was born in", "o": "Bergen"},
    ]
    variables = {"question": "Which medal did Orla Quist receive in 1907?", "edges": edges}
    answer = offline.complete("graph-rag-answer", variables)
    assert answer == "Quist received Keller Medal in 1907."


def test_what_kind_of_thing_is_answered_by_what_it_is() -> None:
    edges = [
        {"s": "Tarn Licence", "p": "has version", "o": "3"},
        {"s": "Tarn Licence", "p": "does not permit", "o": "sublicensing"},
        {"s": "Tarn Licence", "p": "is a free", "o": "licence"},
        {"s": "Tarn Licence", "p": "is a", "o": "permissive licence"},
    ]
    variables = {"question": "What kind of licence is the Tarn Licence?", "edges": edges}
    reply = json.loads(offline.complete("graph-rag-answer", variables, structured=True))
    assert reply["cited"] == [3, 4]  # what it is as a licence; not its version or its terms


def _graph(question: str, edges: list[dict[str, str]]) -> dict[str, Any]:
    reply = offline.complete(
        "graph-rag-answer", {"question": question, "edges": edges}, structured=True
    )
    return dict(json.loads(reply))


def test_an_edge_is_read_with_its_sentence_and_its_chunk() -> None:
    bare = {"s": "Bikes", "p": "can be hired at", "o": "quay"}
    read = {
        **bare,
        "quote": "Bikes can be hired at the quay in Tarle.",
        "excerpt": "Visiting Brant. The museum is open in May. "
        "Bikes can be hired at the quay in Tarle.",
    }
    asked = "Where can bikes be hired on Brant?"
    # the island's name is in the chunk the edge was read from, not in the edge
    assert _graph(asked, [bare])["cited"] == []
    said_once = "Bikes can be hired at the quay in Tarle."  # the sentence, not also the edge
    assert _graph(asked, [read]) == {
        "answer": said_once,
        "cited": [1],
        "claims": [{"text": said_once, "cited": [1]}],
    }
    # a word of the question the edge's sentence has earns it credit
    root = {"s": "Root", "p": "is the", "o": "superuser"}
    said = {**root, "quote": "Root is (usually) the superuser.", "excerpt": ""}
    assert _graph("Which account is usually the superuser?", [root])["cited"] == []
    assert _graph("Which account is usually the superuser?", [said])["cited"] == [1]
    # a name the excerpt lacks is still not answered
    assert _graph("Where can bikes be hired on Skye?", [read])["cited"] == []


def test_a_sentence_of_an_edges_chunk_answers_what_no_edge_says() -> None:
    chunk = (
        "Tarle Observatory stands on Brant Hill above the town of Tarle. "
        "Its great telescope was built in 1901 by Mira Holt.\n"
        "Of the dome, much was paid for by gifts from the Lorne family, who farmed below "
        "the hill. Visitors may climb the hill on Sundays."
    )
    hill = {
        "s": "Tarle Observatory",
        "p": "stands on",
        "o": "Brant Hill",
        "quote": "Tarle Observatory stands on Brant Hill above the town of Tarle.",
        "excerpt": chunk,
    }
    sundays = {
        "s": "Visitors",
        "p": "may climb the hill on",
        "o": "Sundays",
        "quote": "Visitors may climb the hill on Sundays.",
        "excerpt": chunk,
    }
    paid = (
        "Of the dome, much was paid for by gifts from the Lorne family, who farmed below the hill."
    )
    # no edge says who paid: the sentence of their chunk does, cited as the first edge of it
    reply = _graph("Who paid for the dome of Tarle Observatory?", [hill, sundays])
    assert reply == {"answer": paid, "cited": [1], "claims": [{"text": paid, "cited": [1]}]}
    # a sentence an edge was read from is cited as that edge
    climb = _graph("When may visitors climb the hill?", [hill, sundays])
    assert climb["cited"] == [2]
    assert len(climb["claims"]) == 1  # the edge or its sentence, never both
    # two edges read from one sentence: the sentence is said by either, not again
    both = "The tower has two arches and is 40 metres high."
    chunk = f"The Brant Tower stands on Brant Hill above Tarle. {both}"
    arches = {"s": "Brant Tower", "p": "has", "o": "two arches", "quote": both, "excerpt": chunk}
    span = {**arches, "p": "is", "o": "40 metres"}
    high = _graph("How high is the Brant Tower?", [arches, span])
    assert [c["text"] for c in high["claims"]] == ["Brant Tower is 40 metres."]


def test_a_short_past_tense_meets_its_verb_in_any_order() -> None:
    # 'died' meets 'die' (and 'used' 'use'): the died edges are picked first and answer,
    # wherever the store returned them among twenty that all name her
    facts = [
        ("was born in Hull in", "1840"),
        ("moved to Leeds in", "1860"),
        ("married Tom Hale in", "1862"),
        ("opened Kirk School in", "1865"),
        ("visited Bergen in", "1870"),
        ("founded Voss Trust in", "1875"),
        ("sold Kirk School in", "1885"),
        ("retired to Whitby in", "1890"),
        ("met Clara Went in", "1895"),
        ("wrote Kirk Primer in", "1900"),
        ("died in Whitby in", "1911"),
    ]
    edges = [{"id": f"e{n}", "s": "Ada Voss", "p": p, "o": o} for n, (p, o) in enumerate(facts, 1)]
    picked = offline.complete(
        "graph-rag-select",
        {"question": "When did Ada Voss die?", "edges": edges, "max": 10},
        structured=True,
    )
    ids = [e["id"] for e in json.loads(picked)["edges"]]
    assert ids[0] == "e11" and len(ids) == 10, ids
    focus = [{"s": "Ada Voss", "p": p, "o": o} for p, o in facts]
    answer = offline.complete(
        "graph-rag-answer", {"question": "When did Ada Voss die?", "edges": focus}, structured=True
    )
    assert json.loads(answer)["answer"] == "Ada Voss died in Whitby in 1911."


MANUAL = (
    "bzip2, bunzip2 - a block-sorting file compressor, v1.0.8\n"
    "bzip2recover - recovers data from damaged bzip2 files\n\n"
    "• bzip2 [ -cdfkqstvzVL123456789 ] [ filenames ...\n"
    "• bzcat [ -s ] [ filenames ...\n\n"
    "bzcat (or bzip2 -dc) decompresses all specified files to the standard output."
)


def test_among_tied_pieces_a_sentence_answers_before_a_usage_line() -> None:
    # Both pieces have the question's one word; the synopsis comes first in the excerpt.
    reply = offline.complete(
        "document-rag-answer",
        {"question": "What does bzcat do?", "chunks": [MANUAL]},
        structured=True,
    )
    answer = json.loads(reply)["answer"]
    assert answer.startswith("bzcat (or bzip2 -dc) decompresses all specified files"), answer


def test_a_usage_line_still_answers_when_it_matches_better() -> None:
    # The tie-break never outranks a piece holding more of the question's words.
    reply = offline.complete(
        "document-rag-answer",
        {"question": "Which filenames does bzcat take?", "chunks": [MANUAL]},
        structured=True,
    )
    assert json.loads(reply)["answer"].startswith("bzcat [ -s ] [ filenames"), reply  # no bullet


def test_a_place_after_within_answers_where_as_a_name_does() -> None:
    """'Where is the cmake project generator provided?' (bench_answers dev19): the piece
    'is provided within build/cmake' names no capitalised name, so 'can generate Makefiles'
    got the bonus a where-question gives an answer of its kind and outranked it once the
    README's cmake sentences gave edges. A place after a preposition of place is that kind
    too, as the answer check (verify/addressing) has it."""
    asked = {stem(w) for w in ("cmake", "project", "generator", "provided")}
    text = "Cmake project generator is provided within build/cmake."
    assert has_kind("name", text, asked, where=True)
    assert not has_kind("name", text, asked)  # a who-question wants a name
    assert not has_kind("name", "It is provided within the cmake project.", asked, where=True)
