"""Parsing the LLM's ReAct replies."""

from __future__ import annotations

import pytest

from trustgraph_flow.agent.react import Act, Finish, ParseError, parse_reply


@pytest.mark.parametrize(
    ("reply", "step"),
    [
        pytest.param(
            'Thought: look it up\nAction: knowledge-query\nArgs: {"question": "capital of France?"}',
            Act("look it up", "knowledge-query", {"question": "capital of France?"}),
            id="action-with-args",
        ),
        pytest.param(
            "Thought: I know it now.\nFinal Answer: Paris.\nIt is on the Seine.",
            Finish("I know it now.", "Paris.\nIt is on the Seine."),
            id="final-answer-spans-lines",
        ),
        pytest.param(
            "**Thought:** need docs\n**action:** `document-query`\nargs:\n```json\n"
            '{\n  "question": "who?"\n}\n```\n',
            Act("need docs", "document-query", {"question": "who?"}),
            id="lenient-labels-fences-and-multiline-json",
        ),
        pytest.param(
            'Thought: t\nAction: knowledge-query\nArgs: {"question": "q"}\n'
            "Observation: made up\nFinal Answer: made up too",
            Act("t", "knowledge-query", {"question": "q"}),
            id="invented-observation-and-answer-are-ignored",
        ),
        pytest.param(
            "Thought: t\nAction: text-completion",
            Act("t", "text-completion", {}),
            id="missing-args-means-empty-arguments",
        ),
    ],
)
def test_a_reply_parses_to_its_step(reply: str, step: Act | Finish) -> None:
    assert parse_reply(reply) == step


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
