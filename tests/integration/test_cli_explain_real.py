"""Golden traces made by the real GraphRAG, DocumentRAG and agent processors on the sample corpus.

Ids and times are fixed through the requests (``session_id``/``started_at``); what a run
cannot fix (an agent's sub-trace uuid and clock, latencies) is masked before comparing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.golden.golden import ENV, check, invoke, normalise
from tests.support.processors import EVERY
from tests.support.stack import Stack
from tests.support.traces import answered_as, load

STARTED = "2026-02-03T04:05:0{}.000Z"  # one second apart: the list order is fixed
ASKS: list[tuple[str, str, dict[str, Any], str]] = [
    (
        "graph-rag",
        "real-graph-rag",
        {"query": "What is the capital of France?"},
        "urn:trustgraph:question:real-graph-rag",
    ),
    (
        "document-rag",
        "real-docrag",
        {"query": "Where was Victor Hugo born?"},
        "urn:trustgraph:docrag:real-docrag",
    ),
    (
        "agent",
        "real-agent",
        {"question": "Which river flows through Cairo?"},
        "urn:trustgraph:agent:real-agent",
    ),
]


async def test_real_traces_render_as_golden(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        for sample in ("world-facts.pdf", "capitals.txt", "writers.md"):
            await load(stack.url, sample)
        for n, (service, session, request, trace) in enumerate(ASKS):
            started = STARTED.format(n)
            view = await answered_as(
                stack.url, service, request, session=session, trace=trace, started=started
            )
            assert (view["id"], view["time"]) == (trace, started)
            stem = f"real_{service.replace('-', '_')}"
            text = await stack.cli("tg-show-explain-trace", trace, "--show-provenance", env=ENV)
            assert text.code == 0, text.stderr
            check(f"{stem}.txt", normalise(text.stdout, started))
            as_json = await invoke(
                stack.url, "tg-show-explain-trace", trace, "--show-provenance", "--format", "json"
            )
            check(f"{stem}.json", normalise(as_json.stdout, started))
            plain = json.loads(
                (await invoke(stack.url, "tg-show-explain-trace", trace, "--format", "json")).stdout
            )
            looked_up = json.loads(as_json.stdout)
            assert all("sources" not in item for item in items(plain))  # not asked for
            assert all(item["sources"] for item in items(looked_up))  # asked for: found
        listed = await invoke(stack.url, "tg-list-explain-traces")
        assert listed.stdout.splitlines()[2].split()[:2] == ["real-agent", "Agent"]
        check("real_list_traces.txt", listed.stdout)


def items(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every edge and chunk of a TraceView's JSON, sub-traces included."""
    found = [*view["edges"], *view["chunks"]]
    for step in view["steps"]:
        for sub in step["subtraces"]:
            found += items(sub)
    return found
