"""Real traces made through the gateway for the CLI tests: documents loaded, questions asked
with fixed session ids and times, each waited on until the store holds all of its trace.

``loaded_and_answered`` makes the lineage tests' world: two documents, then a GraphRAG, a
DocumentRAG and an agent trace (``GRAPH_RAG``, ``DOC_RAG``, ``AGENT``), one second apart.
"""

from __future__ import annotations

import json
from typing import Any

from tests.golden.golden import invoke
from tests.support.poll import eventually
from tests.support.processors import SAMPLES
from trustgraph_cli.client import GatewayClient
from trustgraph_cli.options import Gateway


async def load(url: str, sample: str, *args: str) -> str:
    """``tg-load-document`` of a file in samples/; the document's id."""
    done = await invoke(url, "tg-load-document", str(SAMPLES / sample), *args)
    assert done.code == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


async def ask(url: str, service: str, request: dict[str, Any]) -> dict[str, Any]:
    """The gateway's answer to one request of ``service`` (user trustgraph, collection default)."""
    gw = Gateway(url=url, token=None, user="trustgraph", collection="default", debug=False)
    async with GatewayClient(gw, timeout=60) as client:
        body = {**request}
        return await client.request(service, body)


async def settled(url: str, trace: str) -> dict[str, Any]:
    """The trace's JSON once the store has all of it (the last stages land just after the answer)."""

    def done(r: Any) -> bool:
        if r.code != 0:
            return False
        view = json.loads(r.stdout)
        subs = [s for step in view["steps"] for s in step["subtraces"]]
        return all(v["status"] == "complete" for v in [view, *subs])

    result = await eventually(
        lambda: invoke(url, "tg-show-explain-trace", trace, "--format", "json"), done
    )
    assert done(result), result
    view: dict[str, Any] = json.loads(result.stdout)
    return view


async def answered_as(
    url: str, service: str, request: dict[str, Any], *, session: str, trace: str, started: str
) -> dict[str, Any]:
    """Ask ``service`` as session ``session`` started at ``started``; the settled ``trace``."""
    await ask(url, service, {**request, "session_id": session, "started_at": started})
    return await settled(url, trace)


GRAPH_RAG = "urn:trustgraph:question:lin-graph"
DOC_RAG = "urn:trustgraph:docrag:lin-doc"
AGENT = "urn:trustgraph:agent:lin-agent"


async def answered(url: str) -> None:
    """A GraphRAG, a DocumentRAG and an agent answer, one second apart, fully stored."""
    asks: list[tuple[str, str, dict[str, Any], str]] = [
        ("graph-rag", "lin-graph", {"query": "What is the capital of France?"}, GRAPH_RAG),
        ("document-rag", "lin-doc", {"query": "Where was Victor Hugo born?"}, DOC_RAG),
        ("agent", "lin-agent", {"question": "Which river flows through Cairo?"}, AGENT),
    ]
    for n, (service, session, request, trace) in enumerate(asks):
        started = f"2026-03-01T00:00:0{n}.000Z"
        await answered_as(url, service, request, session=session, trace=trace, started=started)


async def loaded_and_answered(url: str) -> tuple[str, str]:
    """world-facts.pdf and capitals.txt loaded, then ``answered``: the two document ids."""
    facts = await load(url, "world-facts.pdf")
    capitals = await load(url, "capitals.txt")
    await answered(url)
    return facts, capitals
