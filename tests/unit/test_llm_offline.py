"""The deterministic offline engine, one prompt type at a time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from trustgraph_flow.llm import offline
from trustgraph_flow.llm.extract import MAX_EDGES, extract_edges
from trustgraph_flow.llm.text import sentences

TOOLS = [
    {"name": "knowledge-query", "description": "ask the graph", "arguments": ["question"]},
    {"name": "document-query", "description": "ask the documents", "arguments": ["question"]},
]


def edges_of(text: str) -> list[tuple[str, str, str, bool]]:
    found = json.loads(offline.complete("extract-edges", {"text": text}))
    return [(e["s"], e["p"], e["o"], e["o_literal"]) for e in found]


def test_extracts_the_documented_examples() -> None:
    assert edges_of("Paris is the capital of France.") == [
        ("Paris", "is the capital of", "France", False)
    ]
    assert edges_of("Marie Curie was born in Warsaw.") == [
        ("Marie Curie", "was born in", "Warsaw", False)
    ]


def test_extraction_variants() -> None:
    text = (
        "In 1903, Marie Curie won the Nobel Prize. She discovered polonium. "
        "The Eiffel Tower is located in Paris. France has a population of 68 million people. "
        "Pierre and Marie were friends."
    )
    assert edges_of(text) == [
        ("Marie Curie", "won", "Nobel Prize", False),
        ("Marie Curie", "discovered", "polonium", False),
        ("Eiffel Tower", "is located in", "Paris", False),
        ("France", "has a population of", "68 million", True),
        ("Pierre", "were", "friends", False),  # a list of subjects: one edge each
        ("Marie", "were", "friends", False),
    ]


@pytest.mark.parametrize(
    "text", ["", "   ", "!!! ?? ...", "lower case only here.", "He went.", "x" * 5000, "{}[]"]
)
def test_extraction_never_crashes_on_odd_text(text: str) -> None:
    assert json.loads(offline.complete("extract-edges", {"text": text})) == []  # no statement in it


def test_extraction_is_capped_and_deduplicated() -> None:
    text = " ".join(f"City{i} is the capital of Country{i}." for i in range(50))
    assert len(extract_edges(text)) == MAX_EDGES
    assert len(extract_edges("Paris is in France. Paris is in France.")) == 1


def test_select_scores_by_question_words() -> None:
    variables = {
        "question": "What is the capital of France?",
        "edges": [
            {"id": "e1", "s": "Marie Curie", "p": "born in", "o": "Warsaw"},
            {"id": "e2", "s": "Paris", "p": "is the capital of", "o": "France"},
            {"id": "e3", "s": "Lyon", "p": "is a city in", "o": "France"},
        ],
        "max": 2,
    }
    picks = json.loads(offline.complete("graph-rag-select", variables))
    # Lyon shares half as many question words as the best edge: not relevant enough.
    assert picks == [
        {"id": "e2", "reasoning": "mentions 'capital', 'france' from the question"},
    ]
    variables["question"] = "Which city is the capital of France?"
    picks = json.loads(offline.complete("graph-rag-select", variables))
    assert [p["id"] for p in picks] == ["e2", "e3"]  # 3 words vs 2: both kept, best first


def test_select_falls_back_to_closest_edges() -> None:
    edges = [{"id": f"e{i}", "s": "A", "p": "b", "o": "C"} for i in range(5)]
    picks = json.loads(
        offline.complete("graph-rag-select", {"question": "zebra?", "edges": edges, "max": 10})
    )
    assert [p["id"] for p in picks] == ["e0", "e1", "e2"]
    assert {p["reasoning"] for p in picks} == {"closest available edge"}
    assert (
        json.loads(offline.complete("graph-rag-select", {"question": "q", "edges": "junk"})) == []
    )


def test_graph_answer_is_extractive() -> None:
    edges = [
        {"s": "Marie Curie", "p": "born in", "o": "Warsaw"},
        {"s": "Paris", "p": "is the capital of", "o": "France"},
    ]
    answer = offline.complete(
        "graph-rag-answer", {"question": "What is the capital of France?", "edges": edges}
    )
    assert answer == "Paris is the capital of France."
    assert (
        offline.complete("graph-rag-answer", {"question": "q", "edges": []})
        == offline.NO_GRAPH_ANSWER
    )


def test_document_answer_picks_best_sentences() -> None:
    chunks = [
        "Warsaw is in Poland. Marie Curie was born in Warsaw in 1867.",
        "She moved to Paris. Curie won two Nobel prizes.",
    ]
    answer = offline.complete(
        "document-rag-answer", {"question": "Where was Marie Curie born?", "chunks": chunks}
    )
    assert answer == "Marie Curie was born in Warsaw in 1867."
    none = offline.complete("document-rag-answer", {"question": "zebras?", "chunks": chunks})
    assert none == offline.NO_DOCUMENT_ANSWER


def react(history: list[dict[str, Any]], tools: list[dict[str, Any]] = TOOLS) -> str:
    return offline.complete(
        "agent-react", {"question": "Who founded X?", "tools": tools, "history": history}
    )


def test_agent_first_step_queries_the_graph() -> None:
    assert react([]) == (
        "Thought: I should look this up in the knowledge graph.\n"
        'Action: knowledge-query\nArgs: {"question": "Who founded X?"}'
    )


def test_agent_answers_from_a_useful_observation() -> None:
    step = {
        "thought": "t",
        "action": "knowledge-query",
        "arguments": {},
        "observation": "Y founded X.",
    }
    assert (
        react([step])
        == "Thought: The observation answers the question.\nFinal Answer: Y founded X."
    )


def test_agent_falls_back_to_documents_then_gives_up() -> None:
    kq = {
        "thought": "t",
        "action": "knowledge-query",
        "arguments": {},
        "observation": offline.NO_GRAPH_ANSWER,
    }
    second = react([kq])
    assert "Action: document-query" in second and "Final Answer" not in second
    dq = {
        "thought": "t",
        "action": "document-query",
        "arguments": {},
        "observation": "Error: timeout",
    }
    assert react([kq, dq]).endswith(
        "Final Answer: The documents do not say: none of my tools found a supported answer to: "
        "Who founded X?"
    )
    # only tools that exist are used
    assert "Final Answer: The documents do not say" in react([kq], tools=TOOLS[:1])
    assert "Final Answer: The documents do not say" in react([], tools=[])


def test_text_and_unknown_types_are_deterministic() -> None:
    assert (
        offline.complete("text", {"question": "Hello there. More."})
        == "Offline engine: Hello there."
    )
    assert offline.complete("mystery", {}, "Prompt text! Rest") == "Offline engine: Prompt text!"
    assert offline.complete("text", {}) == "Offline engine: (empty prompt)"


def test_sentences_split_on_punctuation_and_lines() -> None:
    assert sentences("A b. C d?\nE f") == ["A b.", "C d?", "E f"]


def test_a_line_ending_in_a_passive_without_its_agent_yields_nothing() -> None:
    # a two-column PDF page breaks "was invented by Gutenberg" after "by"
    assert extract_edges("The printing press was invented by") == []
    assert extract_edges("The press was invented by\nGutenberg in Mainz.") == []
