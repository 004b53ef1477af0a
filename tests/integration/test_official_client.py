"""The official TrustGraph client (trustgraph-cli 2.11.1) against our gateway, broker and store:
its commands, run as a TrustGraph user runs them, show our data (docs/gateway.md, compatibility).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.integration.test_rag_cli import SAMPLES, stack_processors
from tests.support.official import official_bin, run_official
from tests.support.stack import CliResult, Stack
from trustgraph_flow.agent import processor as agent

pytestmark = pytest.mark.timeout(300)


class World(NamedTuple):
    stack: Stack
    bin: Path
    doc: str
    graph_trace: str
    doc_trace: str

    async def official(self, name: str, *args: str) -> CliResult:
        return await run_official(self.bin, self.stack, name, *args)


@pytest.fixture(scope="module")
async def world(
    pulsar_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[World]:
    """world-facts.pdf loaded, one GraphRAG and one DocumentRAG trace made by our commands."""
    bin_dir = official_bin()
    data = tmp_path_factory.mktemp("official")
    procs = [*stack_processors(), agent.proc]
    async with Stack(pulsar_url, "official" + data.name[-6:], procs, data_dir=data) as stack:
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "world-facts.pdf"))
        assert loaded.code == 0, loaded.stderr
        graph = await stack.cli("tg-invoke-graph-rag", "-q", "What is the capital of France?")
        assert graph.code == 0, graph.stderr
        docs = await stack.cli("tg-invoke-document-rag", "-q", "Where was Marie Curie born?")
        assert docs.code == 0, docs.stderr
        yield World(
            stack,
            bin_dir,
            loaded.stdout.strip().splitlines()[-1],
            trace_of(graph),
            trace_of(docs),
        )


def trace_of(result: CliResult) -> str:
    return next(ln for ln in result.stderr.splitlines() if ln.startswith("trace: ")).removeprefix(
        "trace: "
    )


async def test_graph_commands_show_our_graphs(world: World) -> None:
    source = await world.official("tg-show-graph", "-g", "urn:graph:source")
    assert source.code == 0, source.stderr
    assert f"{world.doc}/p1" in source.stdout and "prov#wasDerivedFrom" in source.stdout
    default = await world.official("tg-show-graph")
    assert default.code == 0, default.stderr
    assert "Paris" in default.stdout and "urn:graph:source" not in default.stdout
    found = await world.official(
        "tg-query-graph", "-s", world.graph_trace, "-g", "urn:graph:retrieval"
    )
    assert found.code == 0, found.stderr
    assert "What is the capital of France?" in found.stdout
    turtle = await world.official("tg-graph-to-turtle")
    assert turtle.code == 0, turtle.stderr
    assert "Paris" in turtle.stdout


async def test_rag_answers_streaming_and_not(world: World) -> None:
    # tg-invoke-graph-rag --no-streaming fails inside the official client itself (2.11.1 passes
    # a 'graph' argument its own REST FlowInstance.graph_rag does not take), before any request.
    graph = await world.official("tg-invoke-graph-rag", "-q", "What is the capital of France?")
    assert graph.code == 0, graph.stderr
    assert "Paris" in graph.stdout
    for mode in ((), ("--no-streaming",)):
        docs = await world.official(
            "tg-invoke-document-rag", *mode, "-q", "Where was Marie Curie born?", "-d", "3"
        )
        assert docs.code == 0, docs.stderr
        assert "Warsaw" in docs.stdout


async def test_explainable_runs_show_each_stage(world: World) -> None:
    graph = await world.official("tg-invoke-graph-rag", "-x", "-q", "What is the capital of France?")
    assert graph.code == 0, graph.stderr
    assert "Paris" in graph.stdout
    assert "[question]" in graph.stderr and "Query: What is the capital of France?" in graph.stderr
    assert "Edges explored: " in graph.stderr  # read from the inline explain_triples
    assert "Edge: (Paris, is the capital of, France)" in graph.stderr
    assert "[synthesis]" in graph.stderr
    docs = await world.official("tg-invoke-document-rag", "-x", "-q", "Where was Marie Curie born?")
    assert docs.code == 0, docs.stderr
    assert "Warsaw" in docs.stdout and "Query: Where was Marie Curie born?" in docs.stderr
    assert "Chunks retrieved: " in docs.stderr and "[synthesis]" in docs.stderr
    asked = await world.official("tg-invoke-agent", "-x", "-q", "What is the capital of France?")
    assert asked.code == 0, asked.stderr
    assert "Paris" in asked.stdout
    assert "[analysis: knowledge-query]" in asked.stderr and "[conclusion]" in asked.stderr
