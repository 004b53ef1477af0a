"""What a piece of evidence must hold to answer a question at all (issue 29, abstention):
the question's most distinctive words and names, weighed by how few sentences of the
evidence hold them. A sentence on another country's capital does not answer "What is the
capital of Peru?", nor one naming Peru for something else; a sentence on the Eiffel Tower's
height does not answer who designed it."""

from __future__ import annotations

import json
from typing import Any

from trustgraph_flow.llm import offline
from trustgraph_flow.llm.question_keys import (
    Evidence,
    answer_kinds,
    distinct_enough,
    question_keys,
)

TOUR = (
    "Paris is the capital of France. Madrid is the capital of Spain. Lisbon is the capital "
    "of Portugal. Our guide in Lisbon had grown up in Peru and spoke four languages.\n\n"
    "The Eiffel Tower stands on the Champ de Mars in Paris. It was finished in 1889.\n\n"
    "The Blackpool Tower was designed by Maxwell and Tuke. It opened in 1894."
)


def doc(question: str, chunks: list[str]) -> dict[str, Any]:
    variables = {"question": question, "chunks": chunks}
    return dict(json.loads(offline.complete("document-rag-answer", variables, structured=True)))


def graph(question: str, edges: list[dict[str, str]]) -> dict[str, Any]:
    variables = {"question": question, "edges": edges}
    return dict(json.loads(offline.complete("graph-rag-answer", variables, structured=True)))


def test_another_capital_or_another_mention_does_not_answer() -> None:
    assert doc("What is the capital of Peru?", [TOUR])["cited"] == []
    assert doc("Who designed the Eiffel Tower?", [TOUR])["cited"] == []
    # the same shapes the evidence does answer
    assert doc("What is the capital of Portugal?", [TOUR])["answer"] == (
        "Lisbon is the capital of Portugal."
    )
    assert doc("Who designed the Blackpool Tower?", [TOUR])["answer"] == (
        "The Blackpool Tower was designed by Maxwell and Tuke."
    )
    assert doc("When was the Eiffel Tower finished?", [TOUR])["answer"] == (
        "It was finished in 1889."
    )


def _edge(s: str, p: str, o: str, quote: str) -> dict[str, str]:
    return {"s": s, "p": p, "o": o, "quote": quote, "excerpt": TOUR}


EDGES = [
    _edge("Lisbon", "is the capital of", "Portugal", "Lisbon is the capital of Portugal."),
    _edge("Paris", "is the capital of", "France", "Paris is the capital of France."),
    _edge(
        "Eiffel Tower",
        "stands on",
        "Champ de Mars",
        "The Eiffel Tower stands on the Champ de Mars in Paris.",
    ),
    _edge(
        "Maxwell",
        "designed",
        "Blackpool Tower",
        "The Blackpool Tower was designed by Maxwell and Tuke.",
    ),
]


def test_graph_answers_hold_what_the_question_asks_of_its_subject() -> None:
    # Peru is only in the chunk the edges were read from, named there for something else
    assert graph("What is the capital of Peru?", EDGES)["cited"] == []
    assert graph("Who designed the Eiffel Tower?", EDGES)["cited"] == []
    assert graph("What is the capital of France?", EDGES)["cited"] == [2]
    assert graph("Who designed the Blackpool Tower?", EDGES)["cited"] == [4]


def test_a_name_common_in_the_evidence_may_be_left_to_it() -> None:
    licence = (
        "The Tarn Public Licence is a licence for software. This Licence may be copied. "
        "Tarn Foundation is the licence steward. Versions of the Tarn Public Licence are "
        "numbered. The Tarn Public Licence applies to the Covered Software."
    )
    steward = "Tarn Foundation is the licence steward."
    edges = [
        {"s": "Tarn Foundation", "p": "is", "o": "licence steward", "quote": steward},
        {"s": "Tarn Public Licence", "p": "is a licence for", "o": "software"},
    ]
    edges = [{**e, "excerpt": licence} for e in edges]
    reply = graph("Who is the licence steward of the Tarn Public Licence?", edges)
    assert reply["cited"] == [1]


def test_what_kind_of_answer_is_wanted_need_not_be_repeated() -> None:
    assert answer_kinds("Which animal is found only on Skarra?") == {"animal"}
    assert answer_kinds("How high is Ben Corra?") == {"high"}
    assert answer_kinds("What kind of licence is it?") == {"kind"}
    assert answer_kinds("What is the capital of Peru?") == set()  # 'is': no kind
    chunk = "Puffins nest on the cliffs. The Skarra vole is found nowhere else."
    reply = doc("Which animal is found only on Skarra?", [chunk])
    assert reply["answer"] == "The Skarra vole is found nowhere else."


def test_keys_are_weighed_by_how_few_sentences_hold_them() -> None:
    said = ("A is the capital of B.", "C is the capital of D.", "E in F.", "G is a port.", "H.")
    sentences = [(s, "") for s in said]
    question = "What is the capital of F?"
    keys = question_keys(question, ["capital", "f"], Evidence([("f",)], sentences))
    assert keys[("f",)] > keys["capital"] > 0  # F: one sentence; capital: two
    evidence = Evidence([("f",)], sentences)
    assert not distinct_enough(keys, evidence.of("A is the capital of B."))
    assert not distinct_enough(keys, evidence.of("E in F."))
    assert distinct_enough(keys, evidence.of("G is the capital of F."))
    # a second key half the sentences hold is what the evidence is about: not needed
    topic = [(s, "") for s in ("T is a licence.", "T may be copied.", "U is the steward.")]
    evidence = Evidence([("t",)], topic)
    about = question_keys("Who is the steward of T?", ["steward", "t"], evidence)
    assert distinct_enough(about, evidence.of("U is the steward."))
    assert not distinct_enough(about, evidence.of("T may be copied."))
    # words no sentence holds are left out: a relation may be worded otherwise
    assert question_keys("Who owns E?", ["owns", "e"], Evidence([("e",)], sentences)) == {
        ("e",): keys[("f",)]
    }
