"""JSON output: the indented dump and the views' one-walk dump are byte for byte json's."""

from __future__ import annotations

import enum
import json
import random
from typing import Any

import pytest

from tests.golden import samples
from trustgraph_base.rdf.terms import LiteralTerm
from trustgraph_base.schema.explain import AgentStepView, EdgeView, StageMetrics, TraceView
from trustgraph_cli.render.jsonout import dumps, sources_not_requested, view_json, view_text

HOSTILE_STRINGS = [
    "",
    'quote " backslash \\ slash /',
    "\n\r\t\b\f\x00\x01\x1f\x7f",
    "é ü 中文 🙂 \u2028\u2029 \ufeff",
    "\ud800 lone surrogate \udfff",
    "</script>",
    "  two  spaces\n  indented next line",
    "null",
]
HOSTILE_NUMBERS = [
    0,
    -1,
    2**70,
    -(2**64),
    0.1,
    -0.0,
    1e16,
    1e-7,
    5e-324,
    1.7976931348623157e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    True,
    False,
    None,
]


class Colour(enum.IntEnum):
    RED = 3


class Name(str):
    pass


def reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def hostile_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON-ready value: nested containers (empty ones too), hostile leaves."""
    kind = rng.random()
    if depth > 3 or kind < 0.45:
        return rng.choice([*HOSTILE_STRINGS, *HOSTILE_NUMBERS])
    size = rng.choice([0, 1, 2, 5])
    if kind < 0.7:
        return [hostile_value(rng, depth + 1) for _ in range(size)]
    return {
        rng.choice(HOSTILE_STRINGS) + str(i): hostile_value(rng, depth + 1) for i in range(size)
    }


@pytest.mark.parametrize("value", [*HOSTILE_STRINGS, *HOSTILE_NUMBERS, [], {}, [[]], {"a": {}}])
def test_dumps_writes_each_leaf_and_empty_container_as_json_does(value: Any) -> None:
    assert dumps(value) == reference(value)
    assert dumps({"k": value, "l": [value, value]}) == reference({"k": value, "l": [value, value]})


def test_dumps_is_json_for_random_nested_documents() -> None:
    rng = random.Random(18)
    for _ in range(500):
        value = hostile_value(rng)
        assert dumps(value) == reference(value)


def test_dumps_takes_what_json_takes_and_refuses_what_it_refuses() -> None:
    odd = {"t": (1, "two", Colour.RED), Name("n"): Name("v"), 1: "int key", None: [2.5, False]}
    assert dumps(odd) == reference(odd)  # tuples, IntEnum, str subclasses, keys json converts
    assert dumps([{"a": {1.5: True}}]) == reference([{"a": {1.5: True}}])
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": [object()]})


def hostile_agent() -> TraceView:
    """An agent trace whose steps hold hostile text, a sub-trace with sourced edges and
    chunks, a literal with a datatype and one with a language (None parts dropped)."""
    rag = samples.graph_rag()
    text = "".join(HOSTILE_STRINGS)
    edges = [
        *rag.edges,
        EdgeView(
            s=rag.edges[0].s,
            p=rag.edges[0].p,
            o=LiteralTerm(v=text, ln="en-GB"),
            reasoning=text,
            sources=[samples.source(2, 3)],
        ),
    ]
    sub = rag.model_copy(update={"edges": edges, "chunks": samples.doc_rag().chunks})
    one = samples.agent()
    steps = [
        AgentStepView(
            uri=f"urn:trustgraph:agent:x/i{i}",
            index=i,
            thought=text * (i % 3),
            arguments=json.dumps({"q": text}),
            observation=None if i == 4 else text,
            subtraces=[sub] if i % 2 else [],
        )
        for i in range(1, 6)
    ]
    metrics = {"synthesis": StageMetrics(model="m", latency_ms=0.1), "é": StageMetrics()}
    return one.model_copy(update={"steps": steps, "metrics": metrics, "answer": text})


@pytest.mark.parametrize("sources", [True, False])
@pytest.mark.parametrize(
    "view", [hostile_agent(), samples.graph_rag(), samples.doc_rag(), samples.failed()]
)
def test_a_views_one_walk_is_view_json_then_json(view: TraceView, sources: bool) -> None:
    data = view_json(view)
    assert view_text(view, sources=sources) == reference(
        data if sources else sources_not_requested(data)
    )
    step_nl = "\n" + " " * 4  # a step printed inside the document's steps list
    for step in view.steps:
        expected = reference(view_json(step) if sources else sources_not_requested(view_json(step)))
        assert view_text(step, sources=sources, newline=step_nl) == expected.replace("\n", step_nl)


def test_sources_are_left_out_only_where_not_asked_for() -> None:
    view = hostile_agent()
    assert '"sources": [\n' in view_text(view, sources=True)
    assert '"sources"' not in view_text(view, sources=False)
    assert '"ln": "en-GB"' in view_text(view, sources=False)
    assert '"dt": null' not in view_text(view, sources=False)  # terms without null parts
