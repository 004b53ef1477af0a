"""Parsing the LLM's ReAct replies."""

from __future__ import annotations

import pytest

from trustgraph_flow.agent.react import Act, Finish, ParseError, parse_reply


def test_action_with_args() -> None:
    reply = 'Thought: look it up\nAction: knowledge-query\nArgs: {"question": "capital of France?"}'
    assert parse_reply(reply) == Act(
        "look it up", "knowledge-query", {"question": "capital of France?"}
    )


def test_final_answer_spans_lines() -> None:
    reply = "Thought: I know it now.\nFinal Answer: Paris.\nIt is on the Seine."
    assert parse_reply(reply) == Finish("I know it now.", "Paris.\nIt is on the Seine.")


def test_lenient_labels_fences_and_multiline_json() -> None:
    reply = (
        "**Thought:** need docs\n**action:** `document-query`\nargs:\n```json\n"
        '{\n  "question": "who?"\n}\n```\n'
    )
    assert parse_reply(reply) == Act("need docs", "document-query", {"question": "who?"})


def test_invented_observation_and_answer_are_ignored() -> None:
    reply = (
        'Thought: t\nAction: knowledge-query\nArgs: {"question": "q"}\n'
        "Observation: made up\nFinal Answer: made up too"
    )
    assert parse_reply(reply) == Act("t", "knowledge-query", {"question": "q"})


def test_missing_args_means_empty_arguments() -> None:
    assert parse_reply("Thought: t\nAction: text-completion") == Act("t", "text-completion", {})


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        ("I think the answer is Paris.", "neither 'Action:' nor 'Final Answer:'"),
        ("Thought: t\nAction: knowledge-query\nArgs: question=capital", "not valid JSON"),
        ('Thought: t\nAction: knowledge-query\nArgs: ["capital"]', "must be a JSON object"),
        ("Thought: t\nAction:\nArgs: {}", "names no tool"),
        ("Thought: t\nFinal Answer:   ", "is empty"),
    ],
)
def test_bad_replies_say_what_is_wrong(reply: str, says: str) -> None:
    with pytest.raises(ParseError) as err:
        parse_reply(reply)
    assert says in str(err.value)


def test_parse_error_keeps_the_thought() -> None:
    with pytest.raises(ParseError) as err:
        parse_reply("Thought: hmm, tricky\nAnswer: Paris")
    assert err.value.thought == "hmm, tricky\nAnswer: Paris"
