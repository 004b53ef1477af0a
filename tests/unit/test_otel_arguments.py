"""An imported span's input as its step's ``tg:arguments``: a JSON object kept as sent, any
other text (a JSON array, broken JSON, plain words) wrapped as ``{"input": …}``."""

from __future__ import annotations

import json

import pytest

from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.rdf.terms import LiteralTerm
from trustgraph_flow.otel.spans import Span
from trustgraph_flow.otel.steps import Steps
from trustgraph_flow.otel.to_prov import to_prov

T = bytes(range(1, 17))
ROOT, STEP = b"\x01" * 8, b"\x02" * 8


def arguments_of(given: str) -> str:
    root = Span(T, ROOT, "agent", 1, 10, b"", {"input.value": "q"})
    tool = Span(
        T, STEP, "tool", 2, 3, ROOT, {"openinference.span.kind": "TOOL", "input.value": given}
    )
    [(_, triples)] = list(to_prov([root, tool], Steps()))
    [found] = [t.o for t in triples if t.p == TG.arguments]
    assert isinstance(found, LiteralTerm)
    return found.v


@pytest.mark.parametrize("given", ['{"city": "Paris"}', ' \n\t{"a": [1, 2]}'])
def test_a_json_object_is_kept_as_sent(given: str) -> None:
    assert arguments_of(given) == given


@pytest.mark.parametrize("given", ["capital of France", "[1, 2]", '{"broken": ', "\u00a0{}", "42"])
def test_other_text_is_wrapped_as_the_input(given: str) -> None:
    assert json.loads(arguments_of(given)) == {"input": given}


def test_no_input_is_an_empty_object() -> None:
    assert arguments_of("") == "{}"
