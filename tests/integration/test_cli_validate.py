"""tg-validate-explain-trace end to end: every golden trace and every trace a real run makes
conforms to the SHACL shapes in docs/shapes/; an unknown trace is a one-line error."""

from __future__ import annotations

import json
from pathlib import Path

from tests.golden import corpus
from tests.golden.golden import invoke
from tests.integration.test_cli_explain_traces import loaded
from tests.support.processors import EVERY
from tests.support.stack import Stack, stack_fixture
from tests.support.traces import AGENT, DOC_RAG, GRAPH_RAG, loaded_and_answered
from trustgraph_flow.store.processor import proc as store

stack = stack_fixture(EVERY)


async def test_every_golden_trace_conforms(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as golden:
        await loaded(golden)
        for stem, trace_id in corpus.GOLDEN_TRACES.items():
            done = await invoke(
                golden.url, "tg-validate-explain-trace", trace_id, "--format", "json"
            )
            result = json.loads(done.stdout)
            assert done.code == 0, (stem, result["violations"])
            assert result["conforms"] is True and result["statements"] > 0


async def test_real_traces_and_their_sources_conform(stack: Stack) -> None:
    await loaded_and_answered(stack.url)
    done = await stack.cli("tg-validate-explain-trace", AGENT)  # the real console script
    assert done.code == 0, done.stdout + done.stderr
    assert done.stdout.startswith("CONFORMS  (")
    for trace_id in (GRAPH_RAG, DOC_RAG):
        checked = await invoke(stack.url, "tg-validate-explain-trace", trace_id, "--format", "json")
        result = json.loads(checked.stdout)
        assert checked.code == 0, result["violations"]
        # the source chain is checked too: pages, chunks and the extractor's activity
        assert result["statements"] > 50


async def test_an_unknown_trace_is_one_line(stack: Stack) -> None:
    done = await invoke(stack.url, "tg-validate-explain-trace", "urn:trustgraph:agent:nope")
    assert done.code == 1
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "nope" in done.stderr
