"""Our traces in the real things: a Phoenix and an MLflow server (each from its own venv,
``scripts/otel-server``) take the exporter's spans, and their own APIs give back the agent's
and DocumentRAG's spans with their kinds, parents, retrieved pages and tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.otel_servers import mlflow_server, mlflow_spans, phoenix_server
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.sparql_server import embedded_only
from tests.support.stack import Stack
from trustgraph_flow.otel import exporter

QUESTION = "What is the capital of France?"
# Once per CI run is enough: the exporter reads the topic, not the store, so the store's
# backend changes nothing these servers see (and each server takes ~1 min to start).
pytestmark = [
    embedded_only("the exporter reads the trace topic; the store's backend is not seen"),
    pytest.mark.timeout(600),  # a server's first start (its database made) on a loaded machine
]


async def answered(stack: Stack) -> tuple[str, str]:
    """world-facts.pdf loaded, the agent and DocumentRAG asked: their trace ids (hex)."""
    loaded = await stack.cli("tg-load-document", str(SAMPLES / "world-facts.pdf"))
    assert loaded.code == 0, loaded.stderr
    ids = []
    for command in ("tg-invoke-agent", "tg-invoke-document-rag"):
        asked = await stack.cli(command, "-q", QUESTION, "-v")
        assert asked.code == 0, asked.stderr
        uri = [x for x in asked.stderr.split() if x.startswith("urn:trustgraph:")][-1]
        ids.append(uri.split(":")[3].split("/")[0].replace("-", ""))
    return ids[0], ids[1]


async def phoenix_spans(url: str) -> list[dict[str, Any]]:
    """Every span of Phoenix's default project, through its REST API (paged)."""
    out: list[dict[str, Any]] = []
    cursor = None
    async with aiohttp.ClientSession() as http:
        while True:
            params = {"limit": "1000", **({"cursor": cursor} if cursor else {})}
            async with http.get(url + "/v1/projects/default/spans", params=params) as resp:
                assert resp.status == 200, await resp.text()
                page = await resp.json()
            out += page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                return out


def check_agent(spans: list[dict[str, Any]], kind: Any, parent: Any, attrs: Any) -> None:
    """The agent trace's shape, whatever the backend's names for kind, parent and attributes."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for s in spans:
        by_kind.setdefault(kind(s), []).append(s)
    (root,) = [s for s in spans if not parent(s)]
    assert kind(root) == "AGENT" and attrs(root)["input.value"] == QUESTION
    ids = {s["span_id"] for s in spans}
    assert all(not parent(s) or parent(s) in ids for s in spans)
    (tool, *_) = [s for s in spans if attrs(s).get("gen_ai.operation.name") == "execute_tool"]
    assert parent(tool) == root["span_id"] and attrs(tool)["tool.name"] == "knowledge-query"
    llm = [s for s in spans if attrs(s).get("gen_ai.operation.name") == "chat"]
    assert llm and all(int(attrs(s)["llm.token_count.prompt"]) > 0 for s in llm)
    assert {"AGENT", "TOOL", "CHAIN", "RETRIEVER", "LLM"} <= set(by_kind)
    (explored,) = by_kind["RETRIEVER"]  # GraphRAG's: each edge with the page it was stated on
    edge = first_document(attrs(explored))
    assert int(edge["page"]) >= 1 and edge["edge"] and edge["document"]


def first_document(a: dict[str, Any]) -> dict[str, Any]:
    """The first retrieved document's metadata as the backend gives it back."""
    key = "retrieval.documents.0.document.metadata"
    if key in a:  # as sent, JSON text (MLflow gives it back read)
        return a[key] if isinstance(a[key], dict) else dict(json.loads(a[key]))
    # Phoenix reads the JSON and keeps each field flattened
    return {k.removeprefix(key + "."): v for k, v in a.items() if k.startswith(key + ".")}


def check_doc_rag(spans: list[dict[str, Any]], kind: Any, parent: Any, attrs: Any) -> None:
    (retrieval,) = [s for s in spans if kind(s) == "RETRIEVER"]
    a = attrs(retrieval)
    meta = first_document(a)
    assert meta["page"] >= 1 and a["retrieval.documents.0.document.id"] == meta["chunk"]
    assert float(a["retrieval.documents.0.document.score"]) > 0
    (root,) = [s for s in spans if not parent(s)]
    assert parent(retrieval) == root["span_id"] and str(a["tg.prov.uri"]).endswith("/exploration")


async def test_our_traces_show_in_phoenix(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with phoenix_server(tmp_path) as url:
        settings = {"otel-export": {"otlp_endpoint": url, "otlp_linger": 0.2}}
        procs = [*EVERY, exporter.proc]
        async with Stack(pulsar_url, prefix, procs, data_dir=tmp_path, settings=settings) as stack:
            agent, rag = await answered(stack)
            # Polled while the stack runs, as for MLflow: the exporter may still be reading
            # the last trace's messages when the CLI has printed its answer.
            got = await eventually(
                lambda: phoenix_spans(url),
                lambda spans: {agent, rag} <= {s["context"]["trace_id"] for s in spans},
                timeout=60,
            )

    def kind(s: dict[str, Any]) -> str:
        return str(s["span_kind"])

    def parent(s: dict[str, Any]) -> str | None:
        return str(s["parent_id"]) if s["parent_id"] else None

    def attrs(s: dict[str, Any]) -> dict[str, Any]:
        return dict(s["attributes"])

    for s in got:
        s["span_id"] = s["context"]["span_id"]
    check_agent([s for s in got if s["context"]["trace_id"] == agent], kind, parent, attrs)
    check_doc_rag([s for s in got if s["context"]["trace_id"] == rag], kind, parent, attrs)


async def test_our_traces_show_in_mlflow(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with mlflow_server(tmp_path) as url:
        settings = {
            "otel-export": {
                "otlp_endpoint": url,
                "otlp_headers": "x-mlflow-experiment-id=0",
                "otlp_linger": 0.2,
            }
        }
        procs = [*EVERY, exporter.proc]
        async with Stack(pulsar_url, prefix, procs, data_dir=tmp_path, settings=settings) as stack:
            await answered(stack)
            got = await eventually(
                lambda: mlflow_spans(url), lambda spans: len({s["trace_id"] for s in spans}) >= 2,
                timeout=60,
            )  # fmt: skip
    traces: dict[str, list[dict[str, Any]]] = {}
    for s in got:
        traces.setdefault(str(s["trace_id"]), []).append(s)

    def attrs(s: dict[str, Any]) -> dict[str, Any]:
        return dict(s["attributes"])

    def kind(s: dict[str, Any]) -> str:
        return str(attrs(s).get("openinference.span.kind"))

    def parent(s: dict[str, Any]) -> str | None:
        return str(s["parent_id"]) if s["parent_id"] else None

    by_root = {
        next(attrs(s)["gen_ai.operation.name"] if kind(s) == "AGENT" else kind(s)
             for s in spans if not parent(s)): spans
        for spans in traces.values()
    }  # fmt: skip
    check_agent(by_root["invoke_agent"], kind, parent, attrs)
    check_doc_rag(by_root["CHAIN"], kind, parent, attrs)
