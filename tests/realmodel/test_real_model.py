"""The whole job against a real model: SmolLM2-135M-Instruct on llama-cpp-python's server.

Load the samples, ask each invoke command, list and show the traces — as a user would,
through ``tg-*`` commands with their defaults: the samples loaded at once (so several
extraction requests reach the server together, and its refusals of ``json_schema`` come
back together: issue 36 item 2), answers streamed, the agent at its default iteration limit.
What a tiny model can deliver is asserted (every reply we parse validates, every structured
request after the refusals asks for its schema, edges are extracted, each command answers,
the traces have SPEC's shape and the server's own model name and token counts); whether the
answers are right is not. The tests run in order on one stack (each builds on the last).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.realmodel import MODEL_NAME, RealStack
from tests.support.recording_proxy import Call, RecordingProxy
from tests.support.stack import CliResult, run_cli
from trustgraph_flow.agent.react import StepReply
from trustgraph_flow.agent.settings import Settings as AgentSettings
from trustgraph_flow.extraction import parse_edges, salvage
from trustgraph_flow.graph_rag.select import Selection
from trustgraph_flow.partial_json import unclosed
from trustgraph_flow.rag_common import CitedAnswer
from trustgraph_flow.structured import validate

# The model is what this tier tests, not the store: it runs in the embedded run only
# (``no_store``); the server backend has the rest of the suite.
pytestmark = [pytest.mark.realmodel, pytest.mark.no_store, pytest.mark.timeout(1800)]

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
DOCUMENTS = ["capitals.txt", "scientists.txt", "writers.md", "world-facts.pdf"]
QUESTION = "What is the capital of France?"
SLOW = 900.0  # seconds a command may take: one small model answers every call in turn
MAX_ITERATIONS = AgentSettings().max_iterations  # the default: not set on the command line

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
    if name == "rag-answer":
        return "cited" in props
    return False


async def test_samples_loaded_at_once_yield_edges_from_validated_replies(
    stack: RealStack, proxy: RecordingProxy
) -> None:
    loads = [cli(stack, "tg-load-document", str(SAMPLES / name)) for name in DOCUMENTS]
    for loaded in await asyncio.gather(*loads):
        assert loaded.code == 0, loaded.stderr
    listed = await cli(stack, "tg-list-documents", "--format", "json")
    docs = json.loads(listed.stdout)
    assert sorted(d["title"] for d in docs) == sorted(DOCUMENTS)
    assert {d["status"] for d in docs} == {"complete"}, docs
    assert [d["error"] for d in docs] == [None] * len(docs), docs  # every reply validated
    assert sum(d["edges"] for d in docs) >= len(DOCUMENTS), docs

    extractions = [c for c in calls_of(proxy, "extract-edges") if c.status == 200]
    assert len(extractions) >= len(DOCUMENTS)
    # The documents' chunks reached the server together, not one at a time.
    assert any(a.overlaps(b) for a in extractions for b in extractions if a is not b)
    whole = 0
    for call in extractions:
        assert call.request["response_format"]["type"] == "json_object"  # after the fallback
        bound = call.request["max_tokens"]
        assert bound < 2048  # bounded by its chunk
        if call.usage["completion_tokens"] >= bound:  # cut off by it: its whole edges count
            assert unclosed(call.text), call.text
            assert salvage(call.text).edges, call.text  # as the documents' no-error says
        else:
            parse_edges(call.text)  # what the server sent validates on its own
            whole += 1
    assert whole, "every extraction reply ran into its max_tokens"
    # llama-cpp-python's server takes no json_schema: the requests sent before its first
    # refusal came back were refused (HTTP 500 naming response_format), each was sent again
    # at json_object, and the level stayed there: no request went without its schema.
    refused = [c for c in proxy.calls if c.status >= 400]
    assert refused and {c.request["response_format"]["type"] for c in refused} == {"json_schema"}
    assert all(c.request.get("response_format") for c in proxy.calls)


async def test_each_invoke_command_answers_from_the_real_model(
    stack: RealStack, proxy: RecordingProxy
) -> None:
    before = len(proxy.calls)
    agent = await cli(stack, "tg-invoke-agent", "-v", "-q", QUESTION)
    assert agent.code == 0, agent.stderr  # a final answer within the default limit
    assert agent.stdout.strip()
    steps = [c for c in calls_of(proxy, "agent-react") if proxy.calls.index(c) >= before]
    assert 1 <= len(steps) <= MAX_ITERATIONS and all(c.status == 200 for c in steps)
    for call in steps:
        validate(call.text, StepReply)  # each step the server sent is a valid step
    traces["agent"] = agent.stderr.strip().splitlines()[-1].removeprefix("trace: ")

    before = len(proxy.calls)
    graph = await cli(stack, "tg-invoke-graph-rag", "-q", QUESTION)  # streamed: the default
    assert graph.code == 0, graph.stderr
    assert graph.stdout.strip()
    traces["graph-rag"] = graph.stderr.strip().splitlines()[-1].removeprefix("trace: ")
    selections = [c for c in calls_of(proxy, "graph-rag-select") if proxy.calls.index(c) >= before]
    assert selections
    for call in selections:
        validate(call.text, Selection)

    docs = await cli(stack, "tg-invoke-document-rag", "-q", QUESTION)
    assert docs.code == 0, docs.stderr
    assert docs.stdout.strip()
    traces["document-rag"] = docs.stderr.strip().splitlines()[-1].removeprefix("trace: ")

    answers = [c for c in calls_of(proxy, "rag-answer") if proxy.calls.index(c) >= before]
    assert len(answers) >= 2 and not any(c.streamed for c in answers)  # asked whole (rag.md)
    for call in answers:
        validate(call.text, CitedAnswer)  # each answer the server sent is its schema's
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
