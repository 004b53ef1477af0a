"""Tool configuration, group selection and the rendered ReAct prompt."""

from __future__ import annotations

import json

import pytest

from trustgraph_flow.agent.prompt import Step, react_request, render_prompt
from trustgraph_flow.agent.tools import (
    DEFAULT_TOOLS,
    ToolFailure,
    load_tools,
    select_tools,
    tool_input,
)

CUSTOM = [
    {
        "name": "facts",
        "kind": "knowledge-query",
        "description": "Facts from the graph.",
        "arguments": [{"name": "query", "description": "what to ask"}],
        "groups": ["research"],
    },
    {
        "name": "chat",
        "kind": "text-completion",
        "description": "Just the LLM.",
        "arguments": [{"name": "question"}],
    },
]


def test_defaults_when_setting_is_empty() -> None:
    assert [t.name for t in load_tools("")] == [
        "knowledge-query",
        "document-query",
        "text-completion",
    ]


def test_custom_tools_and_groups() -> None:
    tools = load_tools(json.dumps(CUSTOM))
    assert [t.name for t in tools] == ["facts", "chat"]
    assert [t.name for t in select_tools(tools, None)] == ["facts", "chat"]
    assert [t.name for t in select_tools(tools, ["research"])] == ["facts"]
    assert [t.name for t in select_tools(tools, ["chat"])] == ["chat"]
    assert select_tools(tools, ["nothing"]) == []


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("not json", "bad tools setting"),
        (
            '[{"name": "x", "kind": "web-search", "description": "d", "arguments": [{"name": "q"}]}]',
            "kind",
        ),
        (json.dumps([CUSTOM[1], CUSTOM[1]]), "duplicate tool names ['chat']"),
        (
            '[{"name": "x", "kind": "text-completion", "description": "d", "arguments": []}]',
            "arguments",
        ),
    ],
)
def test_bad_tool_settings_are_refused(raw: str, says: str) -> None:
    with pytest.raises(ValueError) as err:
        load_tools(raw)
    assert says in str(err.value)


def test_tool_input_is_the_first_argument() -> None:
    facts = load_tools(json.dumps(CUSTOM))[0]
    assert tool_input(facts, {"query": "who?"}) == "who?"
    with pytest.raises(ToolFailure) as err:
        tool_input(facts, {"question": "who?"})
    assert "needs the argument 'query'" in str(err.value)


def test_prompt_lists_tools_and_history() -> None:
    history = [Step("look", "knowledge-query", {"question": "q"}, "Paris is the capital.")]
    text = render_prompt("What is the capital?", DEFAULT_TOOLS, history)
    assert "- knowledge-query: Answer a question from the knowledge graph" in text
    assert "Question: What is the capital?" in text
    assert (
        'Action: knowledge-query\nArgs: {"question": "q"}\nObservation: Paris is the capital.'
        in text
    )


def test_offline_variables() -> None:
    req = react_request(
        "Q?", DEFAULT_TOOLS[:1], [Step("t", "knowledge-query", {"question": "Q?"}, "obs")]
    )
    assert req.prompt_type == "agent-react"
    assert req.variables["question"] == "Q?"
    assert req.variables["tools"][0]["name"] == "knowledge-query"
    assert req.variables["tools"][0]["arguments"][0]["name"] == "question"
    assert req.variables["history"] == [
        {
            "thought": "t",
            "action": "knowledge-query",
            "arguments": {"question": "Q?"},
            "observation": "obs",
        }
    ]
    assert "Final Answer" in req.system
