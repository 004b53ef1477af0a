"""Prompt templates: the checks at put, the defaults render today's texts, the store keeps
what was put and answers per user."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustgraph_base.errors import ServiceError
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_flow.agent.prompt import react_request
from trustgraph_flow.agent.tools import DEFAULT_TOOLS
from trustgraph_flow.config.store import ConfigStore
from trustgraph_flow.config.values import check_value, tool_of
from trustgraph_flow.document_rag.prompt import SYSTEM as DOCRAG_SYSTEM
from trustgraph_flow.document_rag.prompt import render_prompt
from trustgraph_flow.extraction import extraction_request
from trustgraph_flow.graph_rag.select import render_answer, render_select
from trustgraph_flow.prompts.catalogue import PROMPTS, prompt_id
from trustgraph_flow.prompts.templates import check, digest, render
from trustgraph_flow.verify.judge import JUDGE_SYSTEM, render_judge


def test_check_names_unknown_and_missing_variables() -> None:
    assert check("{{a}} and {{ b }}", {"a", "b"}) is None
    assert "unknown variable(s) {{c}}" in (check("{{a}} {{b}} {{c}}", {"a", "b"}) or "")
    assert "missing variable(s) {{b}}" in (check("{{a}}", {"a", "b"}) or "")


def test_render_fills_once() -> None:
    assert render("<{{a}}|{{b}}>", {"a": "{{b}}", "b": "x"}) == "<{{b}}|x>"
    assert digest("s", "t") != digest("st", "") and digest("s", "t").startswith("sha256:")


def _filled(request: TextCompletionRequest) -> str:
    spec = PROMPTS[prompt_id(request) or ""]
    return render(spec.template, spec.fill(request))


def test_the_defaults_are_todays_texts() -> None:
    select = {"question": "Q?", "max": 3, "edges": [{"id": "e1", "s": "a", "p": "b", "o": "c"}]}
    request = TextCompletionRequest(prompt="", prompt_type="graph-rag-select", variables=select)
    assert _filled(request) == render_select(select)
    answer = {"question": "Q?", "edges": [{"s": "a", "p": "b", "o": "c"}]}
    request = TextCompletionRequest(prompt="", prompt_type="graph-rag-answer", variables=answer)
    assert _filled(request) == render_answer(answer)
    chunks = {"question": "Q?", "chunks": ["one", "two"]}
    request = TextCompletionRequest(prompt="", prompt_type="document-rag-answer", variables=chunks)
    assert _filled(request) == render_prompt("Q?", ["one", "two"])
    assert PROMPTS["document-rag-answer"].system == DOCRAG_SYSTEM
    extract = extraction_request("Paris is in France.")
    assert _filled(extract) == extract.prompt and PROMPTS["extract-edges"].system == extract.system
    for structured in (False, True):
        step = react_request("Q?", DEFAULT_TOOLS, [], structured=structured)
        spec = PROMPTS[prompt_id(step) or ""]
        assert spec.id == ("agent-react-json" if structured else "agent-react")
        assert _filled(step) == step.prompt and spec.system == step.system
    claims = [
        {"n": 1, "text": "A.", "evidence": ["a", "b"]},
        {"n": 2, "text": "B.", "evidence": []},
    ]
    judged = {"question": "Q?", "claims": claims}
    request = TextCompletionRequest(prompt="", prompt_type="verify-claims", variables=judged)
    assert _filled(request) == render_judge("Q?", claims) and "Claim 2: B." in _filled(request)
    assert PROMPTS["verify-claims"].system == JUDGE_SYSTEM


def test_values_refused_before_anything_changes() -> None:
    with pytest.raises(ServiceError, match="unknown variable"):
        check_value(
            "prompt", "template.graph-rag-answer", '{"prompt": "{{facts}} {{question}} {{x}}"}'
        )
    with pytest.raises(ServiceError, match="must be JSON"):
        check_value("prompt", "template.graph-rag-answer", "{nope")
    with pytest.raises(ServiceError, match="names no service here"):
        tool_of("t", '{"name": "t", "description": "d", "type": "mcp-tool"}')
    with pytest.raises(ServiceError, match="description"):
        tool_of("t", '{"name": "t", "type": "knowledge-query"}')
    tool = tool_of("t", '{"name": "t", "description": "d", "type": "document-query"}')
    assert tool.kind == "document-query" and tool.arguments[0].name == "question"
    check_value("anything", "k", "not json at all")  # other types are kept as given


def test_store_keeps_values_per_user_across_reopening(tmp_path: Path) -> None:
    store = ConfigStore(tmp_path)
    store.put("alice", [("t", "k", "a")])
    store.delete("alice", [("tool", "text-completion")])  # a default, hidden for alice only
    store.close()
    store = ConfigStore(tmp_path)
    assert store.view("alice", "t") == {"k": "a"} and store.view("bob", "t") == {}
    assert "text-completion" not in store.view("alice", "tool")
    assert "text-completion" in store.view("bob", "tool")
    assert store.version("alice") == 2 and store.version("bob") == 0
    store.put(
        "alice", [("prompt", "template.graph-rag-answer", '{"prompt": "{{facts}}{{question}}"}')]
    )
    store.delete("alice", [("prompt", "template.graph-rag-answer")])  # back to the default
    assert (
        store.view("alice", "prompt")["template.graph-rag-answer"]
        == store.view("bob", "prompt")["template.graph-rag-answer"]
    )
    store.close()


def test_a_put_is_all_or_nothing_and_a_user_holds_a_bounded_number_of_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trustgraph_base.schema import ConfigRequest, ConfigValue
    from trustgraph_flow.config import processor

    store = ConfigStore(tmp_path)
    fine = ConfigValue(type="t", key="a", value="1")
    holed = ConfigValue(
        type="prompt", key="template.graph-rag-answer", value='{"prompt": "{{facts}}"}'
    )
    with pytest.raises(ServiceError, match="missing variable"):
        processor.run(store, ConfigRequest(operation="put", values=[fine, holed]))
    assert store.view("trustgraph", "t") == {}  # the good value was not written either
    monkeypatch.setattr(processor, "KEYS_MAX", 2)
    two = [fine, ConfigValue(type="t", key="b", value="2")]
    processor.run(store, ConfigRequest(operation="put", values=two))
    with pytest.raises(ServiceError, match="at most 2 keys per user"):
        processor.run(
            store,
            ConfigRequest(operation="put", values=[ConfigValue(type="t", key="c", value="3")]),
        )
    assert processor.run(store, ConfigRequest(operation="list", type="t")).directory == ["a", "b"]
    store.close()
