"""tg-delete-explain-trace removes the whole trace: every entity under the question's URI,
the GraphRAG grounding (it holds the question's text) and the DocumentRAG claims' spans
included, on the real pipeline; nothing of the deleted traces is left to a SPARQL query."""

from __future__ import annotations

import json
from pathlib import Path

from tests.golden.golden import invoke
from tests.support.processors import RAG
from tests.support.stack import Stack
from tests.support.traces import DOC_RAG, GRAPH_RAG, answered_as, load
from trustgraph_base.provenance.uris import SELECTION_PREFIX, grounding_uri, session_id_of

LEFT = (
    "SELECT DISTINCT ?s WHERE {{ GRAPH <urn:graph:retrieval> {{ ?s ?p ?o }} "
    'FILTER(STR(?s) = "{0}" || STRSTARTS(STR(?s), "{0}/") || STR(?s) = "{1}"'
    ' || STRSTARTS(STR(?s), "{2}")) }} ORDER BY ?s'
)


async def entities(url: str, trace: str) -> list[str]:
    """The trace's entities: named under its question's URI, its grounding (GraphRAG's is
    named by its session id: ``urn:trustgraph:prov:grounding:{id}``) and DocumentRAG's chunk
    selections (``urn:trustgraph:prov:chunk:{id}:{index}``)."""
    selections = f"{SELECTION_PREFIX}{session_id_of(trace)}:"
    query = LEFT.format(trace, grounding_uri(trace), selections)
    found = await invoke(url, "tg-sparql", query, "--format", "json")
    assert found.code == 0, found.stderr
    return [row["s"]["value"] for row in json.loads(found.stdout)["results"]["bindings"]]


async def test_a_deleted_rag_trace_leaves_nothing_behind(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        await load(stack.url, "world-facts.pdf")
        await load(stack.url, "capitals.txt")
        for service, request, trace in (
            ("graph-rag", {"query": "What is the capital of France?"}, GRAPH_RAG),
            ("document-rag", {"query": "Where was Victor Hugo born?"}, DOC_RAG),
        ):
            session = trace.rsplit(":", 1)[1]
            started = "2026-03-01T00:00:00.000Z"
            await answered_as(
                stack.url, service, request, session=session, trace=trace, started=started
            )
        held = {trace: await entities(stack.url, trace) for trace in (GRAPH_RAG, DOC_RAG)}
        assert grounding_uri(GRAPH_RAG) in held[GRAPH_RAG]
        assert any(e.startswith(SELECTION_PREFIX) for e in held[DOC_RAG])
        assert any("/claim" in e and e.rsplit("/", 1)[1].startswith("in") for e in held[DOC_RAG])
        for trace in (GRAPH_RAG, DOC_RAG):
            gone = await stack.cli("tg-delete-explain-trace", trace)
            assert gone.code == 0, gone.stderr
            assert await entities(stack.url, trace) == []
