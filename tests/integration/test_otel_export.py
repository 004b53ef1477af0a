"""OTLP export end to end: the real stack answers (agent, GraphRAG, DocumentRAG on the
offline engine), the exporter processor consumes the trace messages and sends spans to an
OTLP/HTTP receiver on loopback; a collector that is down costs the answers nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.otlp_receiver import OtlpReceiver
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack
from trustgraph_base.messaging.broker import free_port
from trustgraph_flow.otel import exporter
from trustgraph_flow.otel.spans import Span

QUESTION = "What is the capital of France?"


def trace_of(spans: list[Span], uri: str) -> list[Span]:
    """The spans of the trace whose root span names ``uri``."""
    roots = [s for s in spans if s.attributes.get("tg.prov.uri") == uri]
    return [s for s in spans if roots and s.trace_id == roots[0].trace_id]


def explain_id(stderr: str) -> str:
    return stderr.strip().splitlines()[-1].removeprefix("trace: ")


async def test_agent_and_rag_traces_are_sent_as_spans(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with OtlpReceiver() as receiver:
        settings = {
            "otel-export": {
                "otlp_endpoint": receiver.url,
                "otlp_headers": "Authorization=Bearer%20s3cret",
                "otlp_linger": 0.2,
            }
        }
        procs = [*EVERY, exporter.proc]
        async with Stack(pulsar_url, prefix, procs, data_dir=tmp_path, settings=settings) as stack:
            loaded = await stack.cli("tg-load-document", str(SAMPLES / "world-facts.pdf"))
            assert loaded.code == 0, loaded.stderr
            asked = await stack.cli("tg-invoke-agent", "-q", QUESTION)
            assert asked.code == 0 and asked.stdout.startswith("Paris"), asked.stderr
            agent_uri = explain_id(asked.stderr)
            rag = await stack.cli("tg-invoke-document-rag", "-q", QUESTION, "-v")
            assert rag.code == 0, rag.stderr
            spans = await receiver.wait_for(
                lambda got: (
                    any(s.attributes.get("tg.prov.uri") == agent_uri for s in got)
                    and any(s.name == "document_rag" and not s.parent_id for s in got)
                )
            )
    assert receiver.headers[0]["Authorization"] == "Bearer s3cret"
    agent = trace_of(spans, agent_uri)
    by_id = {s.span_id: s for s in agent}
    (root,) = [s for s in agent if not s.parent_id]
    assert root.name == "invoke_agent explaingraph" and root.attributes["input.value"] == QUESTION
    assert root.trace_id.hex() == agent_uri.rsplit(":", 1)[-1].replace("-", "")
    assert str(root.attributes["output.value"]).startswith("Paris")
    tools = [s for s in agent if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    assert tools and all(t.parent_id == root.span_id for t in tools)
    assert tools[0].attributes["gen_ai.tool.name"] == "knowledge-query"
    assert tools[0].attributes["tg.prov.uri"] == agent_uri + "/i1"
    # the GraphRAG the tool ran: a CHAIN under the tool call, its stages under it
    (graph_rag,) = [s for s in agent if s.name == "graph_rag"]
    assert graph_rag.parent_id == tools[0].span_id
    assert str(graph_rag.attributes["tg.prov.uri"]).startswith("urn:trustgraph:question:")
    stages = [s for s in agent if s.parent_id == graph_rag.span_id]
    assert [s.attributes["gen_ai.operation.name"] for s in stages if s.name == "retrieval"] == [
        "retrieval"
    ]
    assert {"focus", "synthesis"} <= {s.attributes.get("tg.stage") for s in stages}
    # GraphRAG's retrieval: each selected edge with the page it was stated on (from the store)
    (explored,) = [s for s in stages if s.name == "retrieval"]
    edge = json.loads(str(explored.attributes["retrieval.documents.0.document.metadata"]))
    assert str(explored.attributes["retrieval.documents.0.document.id"]).endswith("/focus/e1")
    assert edge["page"] >= 1 and edge["chunk"].startswith(edge["document"]) and edge["edge"]
    chats = [s for s in agent if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert chats and all(
        isinstance(s.attributes.get("gen_ai.usage.input_tokens"), int) for s in chats
    )
    assert all(s.attributes.get("llm.token_count.prompt") for s in chats)
    for s in agent:  # every span is a child of one in its trace (or the root) and names its entity
        assert not s.parent_id or s.parent_id in by_id
        assert s.start_ns <= s.end_ns and str(s.attributes["tg.prov.uri"]).startswith(
            "urn:trustgraph:"
        )
    # DocumentRAG: the retrieval carries each chunk with its score and page
    (doc_rag,) = [s for s in spans if s.name == "document_rag" and not s.parent_id]
    (retrieval,) = [s for s in spans if s.parent_id == doc_rag.span_id and s.name == "retrieval"]
    assert retrieval.attributes["openinference.span.kind"] == "RETRIEVER"
    first = retrieval.attributes["retrieval.documents.0.document.id"]
    meta = json.loads(str(retrieval.attributes["retrieval.documents.0.document.metadata"]))
    assert meta["chunk"] == first and isinstance(meta["page"], int) and meta["document"]
    assert isinstance(retrieval.attributes["retrieval.documents.0.document.score"], float)
    listed = json.loads(str(retrieval.attributes["gen_ai.retrieval.documents"]))
    assert listed[0]["id"] == first and listed[0]["page"] == meta["page"]


async def test_a_collector_that_is_down_costs_the_answers_nothing(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    settings = {"otel-export": {"otlp_endpoint": down, "otlp_linger": 0.1}}
    procs = [*EVERY, exporter.proc]
    async with Stack(pulsar_url, prefix, procs, data_dir=tmp_path, settings=settings) as stack:
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
        assert loaded.code == 0, loaded.stderr
        for _ in range(2):
            asked = await stack.cli("tg-invoke-agent", "-q", QUESTION)
            assert asked.code == 0, asked.stderr
        counters = tmp_path / "otel-export" / "otel-export" / "counters.json"

        def read() -> dict[str, int]:
            return json.loads(counters.read_text()) if counters.exists() else {}

        async def now() -> dict[str, int]:
            return read()

        seen = await eventually(now, lambda c: c.get("dropped", 0) > 0, timeout=60)
    assert seen["sent"] == 0 and seen["failed_requests"] >= 1 and seen["traces"] >= 1
