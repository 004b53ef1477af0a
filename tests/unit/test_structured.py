"""Structured output: the schemas sent with each parsed reply and the validation of replies."""

from __future__ import annotations

import json

import pytest

from trustgraph_flow.agent.react import Act, Finish, ParseError, StepReply, step_schema
from trustgraph_flow.agent.tools import DEFAULT_TOOLS, load_tools
from trustgraph_flow.extraction import EDGES_SCHEMA, ExtractedEdges
from trustgraph_flow.graph_rag.select import Selection, select_schema
from trustgraph_flow.structured import (
    BadReply,
    parse_json,
    schema_of,
    strict_schema,
    unfenced,
    validate,
)


def objects(node: object) -> list[dict[str, object]]:
    """Every object schema inside ``node``."""
    found: list[dict[str, object]] = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found += objects(value)
    elif isinstance(node, list):
        for item in node:
            found += objects(item)
    return found


@pytest.mark.parametrize("schema", [EDGES_SCHEMA, select_schema(3, 2), step_schema(DEFAULT_TOOLS)])
def test_every_schema_sent_is_strict(schema: dict[str, object]) -> None:
    # What OpenAI's strict mode requires: a root object, closed objects, all fields required,
    # no $ref left to resolve, no oneOf.
    assert schema["type"] == "object"
    text = json.dumps(schema)
    assert "$ref" not in text and "oneOf" not in text and '"title"' not in text
    for obj in objects(schema):
        props = obj.get("properties")
        if props:
            assert obj["additionalProperties"] is False
            assert obj["required"] == list(props)  # type: ignore[call-overload]


def test_strict_schema_inlines_definitions() -> None:
    schema = strict_schema(ExtractedEdges.model_json_schema())
    item = schema["properties"]["edges"]["items"]
    assert item["required"] == ["s", "p", "o", "o_literal", "quote"]  # defaults: still sent


def test_free_strings_are_limited_in_the_schema_only() -> None:
    edge = EDGES_SCHEMA["properties"]["edges"]
    assert edge["maxItems"] == 50
    assert edge["items"]["properties"]["s"] == {"minLength": 1, "type": "string", "maxLength": 80}
    long_label = "x" * 200  # a server that does not enforce the schema may send it: accepted
    reply = validate(json.dumps({"edges": [{"s": long_label, "p": "p", "o": "o"}]}), ExtractedEdges)
    assert reply.edges[0].s == long_label


def test_selection_schema_names_only_the_ids_offered() -> None:
    schema = select_schema(3, 2)
    edges = schema["properties"]["edges"]
    assert edges["maxItems"] == 2
    assert edges["items"]["properties"]["id"] == {"type": "string", "enum": ["e1", "e2", "e3"]}
    assert validate('{"edges": [{"id": 2, "reasoning": null}]}', Selection).edges[0].id == "2"


def test_step_schema_has_one_branch_per_tool_plus_the_final_answer() -> None:
    tools = load_tools(
        json.dumps(
            [
                {
                    "name": "facts",
                    "kind": "knowledge-query",
                    "description": "d",
                    "arguments": [{"name": "query"}, {"name": "depth", "type": "integer"}],
                },
            ]
        )
    )
    schema = step_schema(tools)
    *branches, many = schema["properties"]["next"]["anyOf"]
    assert [b["properties"]["action"]["enum"] for b in branches] == [["facts"], ["final-answer"]]
    # several tools at once: a list of the tool branches (never the final answer)
    assert many == {
        "type": "array",
        "items": {"anyOf": [branches[0]]},
        "minItems": 2,
        "maxItems": 8,
    }
    args = branches[0]["properties"]["arguments"]
    assert args["properties"] == {
        "query": {"type": "string", "maxLength": 500},
        "depth": {"type": "integer"},
    }
    assert args["required"] == ["query", "depth"]
    assert branches[1]["required"] == ["action", "answer"]


def test_final_answer_is_a_reserved_tool_name() -> None:
    with pytest.raises(ValueError, match="reserved"):
        load_tools(
            json.dumps(
                [
                    {
                        "name": "final-answer",
                        "kind": "text-completion",
                        "description": "d",
                        "arguments": [{"name": "q"}],
                    }
                ]
            )
        )


def test_a_json_step_is_an_action_or_the_final_answer() -> None:
    act = validate(
        '{"thought": "look", "next": {"action": "knowledge-query", '
        '"arguments": {"question": "q"}}}',
        StepReply,
    )
    assert act.decision() == Act("look", "knowledge-query", {"question": "q"})
    done = validate(
        '```json\n{"thought": "t", "next": {"action": "final-answer", "answer": " Paris "}}\n```',
        StepReply,
    )
    assert done.decision() == Finish("t", "Paris")
    empty = validate(
        '{"thought": "t", "next": {"action": "final-answer", "answer": ""}}', StepReply
    )
    with pytest.raises(ParseError, match="empty 'answer'") as err:
        empty.decision()
    assert err.value.thought == "t"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Thought: hmm", "not JSON"),
        ('{"thought": "t"}', "next: Field required"),
        ('{"thought": "t", "next": {"arguments": {}}}', "next.action: Field required"),
        ("[1, 2]", "(top)"),
    ],
)
def test_a_reply_that_does_not_validate_says_why_and_keeps_the_text(text: str, says: str) -> None:
    with pytest.raises(BadReply) as err:
        validate(text, StepReply)
    assert says in str(err.value) and err.value.text == text


def test_schema_of_limits_strings_when_asked() -> None:
    assert "maxLength" not in json.dumps(schema_of(StepReply))
    assert schema_of(StepReply, max_length=9)["properties"]["thought"]["maxLength"] == 9


def test_a_bare_newline_inside_a_string_is_tolerated() -> None:
    # llama-cpp-python's length-limited string grammar lets a model write one.
    reply = validate(
        '{"edges": [{"s": "Marie\nCurie", "p": "born in", "o": "Warsaw"}]}', ExtractedEdges
    )
    assert reply.edges[0].s == "Marie Curie"


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "x ``` y"}',
        '  ```json\n{"a": "x ``` y"}\n```  ',
        '```\n{"a": "x ``` y"}',
        '{"a": "x ``` y"}\n```\n',
        '```JSON {"a": "x ``` y"}```',
    ],
)
def test_a_reply_is_read_with_or_without_its_code_fence(text: str) -> None:
    assert parse_json(text) == {"a": "x ``` y"}


def test_a_fence_inside_the_reply_is_kept() -> None:
    assert unfenced("``` one ``` two ```") == "one ``` two"
    assert unfenced("```") == ""
