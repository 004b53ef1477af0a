"""The whole job against a real model: SmolLM2-135M-Instruct on llama-cpp-python's server.

Load the samples, ask each invoke command, list and show the traces — as a user would,
through ``tg-*`` commands. What a tiny model can deliver is asserted (every reply we parse
validates, edges are extracted, the agent reaches a final answer, the traces have SPEC's
shape and the server's own model name and token counts); whether the answers are right is
not. The tests run in order on one stack (each builds on the last).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.realmodel import MODEL_NAME, Call, RealStack, RecordingProxy
from tests.support.stack import CliResult, run_cli
from trustgraph_flow.agent.react import StepReply
from trustgraph_flow.extraction import parse_edges
from trustgraph_flow.graph_rag.select import Selection
from trustgraph_flow.structured import validate

pytestmark = [pytest.mark.realmodel, pytest.mark.timeout(1800)]

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
DOCUMENTS = ["capitals.txt", "scientists.txt", "writers.md", "world-facts.pdf"]
QUESTION = "What is the capital of France?"
SLOW = 900.0  # seconds a command may take: one small model answers every call in turn
MAX_ITERATIONS = 4  # a few steps: each is tens of seconds on a shared 2-core machine

traces: dict[str, str] = {}  # kind → trace id, filled as the questions are asked


async def cli(stack: RealStack, name: str, *args: str) -> CliResult:
    return await run_cli(name, *args, env=stack.env, timeout=SLOW)


def calls_of(proxy: RecordingProxy, name: str) -> list[Call]:
    return [c for c in proxy.calls if c.prompt_type == name or _named(c, name)]


def _named(call: Call, name: str) -> bool:
    """A call made at the json_object level carries no name: tell it by its schema."""
    fmt = call.request.get("response_format") or {}
    props = (fmt.get("schema") or {}).get("properties", {})
    if name == "agent-react":
        return "next" in props
    if name == "extract-edges":
        return "edges" in props and "id" not in json.dumps(props)
    if name == "graph-rag-select":
        return "edges" in props and '"id"' in json.dumps(props)
    return False


async def test_samples_yield_edges_from_validated_replies(
    stack: RealStack, proxy: RecordingProxy
) -> None:
    for name in DOCUMENTS:
        loaded = await cli(stack, "tg-load-document", str(SAMPLES / name))
        assert loaded.code == 0, loaded.stderr
    listed = await cli(stack, "tg-list-documents", "--format", "json")
    docs = json.loads(listed.stdout)
    assert sorted(d["title"] for d in docs) == sorted(DOCUMENTS)
    assert {d["status"] for d in docs} == {"complete"}, docs
    assert [d["error"] for d in docs] == [None] * len(docs), docs  # every reply validated
    assert sum(d["edges"] for d in docs) > 0

    extractions = [c for c in calls_of(proxy, "extract-edges") if c.status == 200]
    assert len(extractions) >= len(DOCUMENTS)
    for call in extractions:
        parse_edges(call.text)  # what the server sent validates on its own
        assert call.request["response_format"]["type"] == "json_object"  # after the fallback
    # llama-cpp-python's server takes no json_schema: the first structured call was refused
    # (HTTP 500 naming response_format), every later one went straight to json_object.
    refused = [c for c in proxy.calls if c.status >= 400]
    assert len(refused) == 1 and refused[0].request["response_format"]["type"] == "json_schema"


async def test_each_invoke_command_answers_from_the_real_model(
    stack: RealStack, proxy: RecordingProxy
) -> None:
    before = len(proxy.calls)
    agent = await cli(
        stack, "tg-invoke-agent", "-v", "-q", QUESTION, "--max-iterations", str(MAX_ITERATIONS)
    )
    assert agent.code == 0, agent.stderr  # a final answer within the limit
    assert agent.stdout.strip()
    steps = [
        c
        for c in calls_of(proxy, "agent-react")[-MAX_ITERATIONS:]
        if proxy.calls.index(c) >= before
    ]
    assert steps and all(c.status == 200 for c in steps)
    for call in steps:
        validate(call.text, StepReply)  # each step the server sent is a valid step
    traces["agent"] = agent.stderr.strip().splitlines()[-1].removeprefix("trace: ")

    # Not streamed: llama-cpp-python's server sends no usage on a stream (the counts would be
    # estimated), and the figures below are to be the server's.
    graph = await cli(stack, "tg-invoke-graph-rag", "--no-streaming", "-q", QUESTION)
    assert graph.code == 0, graph.stderr
    traces["graph-rag"] = graph.stderr.strip().splitlines()[-1].removeprefix("trace: ")
    for call in calls_of(proxy, "graph-rag-select"):
        validate(call.text, Selection)

    docs = await cli(stack, "tg-invoke-document-rag", "--no-streaming", "-q", QUESTION)
    assert docs.code == 0, docs.stderr
    traces["document-rag"] = docs.stderr.strip().splitlines()[-1].removeprefix("trace: ")

    for result in (agent, graph, docs):  # a real model answered: no offline-engine note
        assert "offline engine" not in result.stderr


def stage_figures(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in view["metrics"].items() if v["model"] != "hashing-384"}


async def test_traces_have_the_seed_shape_and_the_servers_figures(
    stack: RealStack, proxy: RecordingProxy
) -> None:
    assert set(traces) == {"agent", "graph-rag", "document-rag"}, "run the whole module"
    listed = await cli(stack, "tg-list-explain-traces", "--format", "json")
    assert listed.code == 0, listed.stderr
    rows = {r["id"]: r for r in json.loads(listed.stdout)}
    assert set(traces.values()) <= set(rows)

    usages = {
        (c.usage.get("prompt_tokens"), c.usage.get("completion_tokens"))
        for c in proxy.calls
        if c.usage
    }
    for kind, trace in traces.items():
        shown = await cli(stack, "tg-show-explain-trace", trace, "--format", "json")
        assert shown.code == 0, shown.stderr
        view = json.loads(shown.stdout)
        assert (view["type"], view["status"], view["error"]) == (kind, "complete", None)
        assert view["question"] == QUESTION and view["answer"]
        if kind == "agent":
            assert view["steps"] is not None and len(view["steps"]) <= MAX_ITERATIONS
        elif kind == "graph-rag":
            assert view["exploration"] and view["focus"] and view["synthesis"]
            assert view["edge_count"] >= len(view["edges"])  # it chose from the edges it explored
        else:
            assert view["exploration"] and view["synthesis"] and view["chunk_count"]
        figures = stage_figures(view)
        assert figures, f"{kind}: no LLM figures in the trace"
        for stage, fig in figures.items():
            assert fig["model"] == MODEL_NAME, (kind, stage, fig)  # the real model's name
            assert fig["latency_ms"] > 0
            # Tokens are the server's usage (a stage retried sums two calls: not checked).
            if kind != "graph-rag" or stage != "focus":
                assert (fig["in_token"], fig["out_token"]) in usages, (kind, stage, fig)
        text = await cli(stack, "tg-show-explain-trace", trace)
        assert text.code == 0 and f"model {MODEL_NAME}" in text.stdout
