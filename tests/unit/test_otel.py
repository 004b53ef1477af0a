"""OpenTelemetry both ways, the pure parts: OTLP bodies read and checked, spans to PROV and
back (the round trip keeps ids, parents, documents and tokens), traces gathered from messages."""

from __future__ import annotations

import dataclasses
import json

import pyoxigraph as ox
import pytest

from trustgraph_base.provenance import GRAPH_RETRIEVAL
from trustgraph_base.provenance.agent import (
    agent_call_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
)
from trustgraph_base.provenance.common import metrics_triples
from trustgraph_base.provenance.rag import (
    docrag_exploration_triples,
    docrag_question_triples,
    synthesis_triples,
)
from trustgraph_base.rdf.nquads import nquads_text, parse_checked
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.from_prov import spans as exported
from trustgraph_flow.otel.gather import Gathered
from trustgraph_flow.otel.sender import parse_headers, traces_url
from trustgraph_flow.otel.spans import Span
from trustgraph_flow.otel.steps import Steps
from trustgraph_flow.otel.to_prov import question_uri, to_prov
from trustgraph_flow.otel.trace import Trace

T = bytes(range(1, 17))
S0 = 1_700_000_000_000_000_000
CHUNK = "urn:trustgraph:doc:abc/p3/c1"


def app_spans() -> list[Span]:
    """What an instrumented app sends: an agent, a retriever with two documents, an LLM call."""
    root = Span(T, b"\x01" * 8, "answer", S0, S0 + 900_000_000, b"", {
        "openinference.span.kind": "AGENT", "input.value": "Capital of France?",
        "output.value": "Paris"})  # fmt: skip
    retriever = Span(T, b"\x02" * 8, "lookup", S0 + 100, S0 + 200_000_000, b"\x01" * 8, {
        "openinference.span.kind": "RETRIEVER", "input.value": "capital france",
        "retrieval.documents.0.document.id": CHUNK,
        "retrieval.documents.0.document.score": 0.91,
        "retrieval.documents.1.document.id": "faq/42",
        "retrieval.documents.1.document.score": 0.5})  # fmt: skip
    llm = Span(T, b"\x03" * 8, "ChatCompletion", S0 + 300_000_000, S0 + 800_000_000, b"\x01" * 8, {
        "openinference.span.kind": "LLM", "llm.model_name": "gpt-x",
        "llm.token_count.prompt": 42, "llm.token_count.completion": 7,
        "output.value": "Paris"})  # fmt: skip
    return [root, retriever, llm]


def as_trace(groups: list[tuple[str, list[Triple]]]) -> Trace:
    """The triples as the exporter gathers them from the topic (through N-Quads, as sent)."""
    gathered = Gathered()
    for _, triples in groups:
        gathered.add(parse_checked(nquads_text(triples)))
    (trace,) = gathered.flush()
    return trace


def test_protobuf_and_json_bodies_read_the_same() -> None:
    sent = app_spans()
    from_pb = otlp.decode(otlp.encode(sent), otlp.PROTOBUF)
    body = {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "app"}}]},
        "scopeSpans": [{"spans": [{
            "traceId": s.trace_id.hex(), "spanId": s.span_id.hex(),
            "parentSpanId": s.parent_id.hex(), "name": s.name,
            "startTimeUnixNano": str(s.start_ns), "endTimeUnixNano": s.end_ns,
            "attributes": [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int)
                            else {"doubleValue": v} if isinstance(v, float)
                            else {"stringValue": v}} for k, v in s.attributes.items()],
        } for s in sent]}]}]}  # fmt: skip
    from_json = otlp.decode(json.dumps(body).encode(), otlp.JSON)
    for a, b, s in zip(from_pb, from_json, sent, strict=True):
        assert (a.trace_id, a.span_id, a.parent_id, a.name) == (
            s.trace_id,
            s.span_id,
            s.parent_id,
            s.name,
        )
        assert (b.trace_id, b.span_id, b.parent_id, b.start_ns, b.end_ns) == (
            s.trace_id, s.span_id, s.parent_id, s.start_ns, s.end_ns)  # fmt: skip
        assert (
            a.attributes["service.name"] == "explaingraph" and b.attributes["service.name"] == "app"
        )
        assert {k: v for k, v in b.attributes.items() if k != "service.name"} == s.attributes


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda s: Span(s.trace_id, s.span_id, s.name, 0, 0, s.span_id), "its own ancestor"),
        (lambda s: Span(b"\x00" * 16, s.span_id, s.name, 0, 0), "a trace id is 16 bytes"),
        (lambda s: Span(s.trace_id, b"\x01" * 4, s.name, 0, 0), "a span id is 8 bytes"),
        (
            lambda s: Span(s.trace_id, s.span_id, s.name, 0, 0, b"", {"x": "y" * 70_000}),
            "attribute 'x' holds 70000 characters",
        ),
        (lambda s: Span(s.trace_id, s.span_id, "n" * 2000, 0, 0), "name is longer"),
    ],
)
def test_bad_spans_are_refused_in_one_line(change: object, said: str) -> None:
    bad = change(app_spans()[0])  # type: ignore[operator]
    with pytest.raises(otlp.OtlpError, match=said) as caught:
        otlp.decode(otlp.encode([bad]), otlp.PROTOBUF)
    assert "\n" not in str(caught.value)


def test_cycles_duplicates_and_wrong_bodies_are_refused() -> None:
    a = Span(T, b"\x01" * 8, "a", 0, 0, b"\x02" * 8)
    b = Span(T, b"\x02" * 8, "b", 0, 0, b"\x01" * 8)
    with pytest.raises(otlp.OtlpError, match="its own ancestor"):
        otlp.decode(otlp.encode([a, b]), otlp.PROTOBUF)
    with pytest.raises(otlp.OtlpError, match="appears twice"):
        otlp.decode(otlp.encode([a, a]), otlp.PROTOBUF)
    with pytest.raises(otlp.OtlpError, match="not OTLP/HTTP"):
        otlp.decode(b"{}", "text/plain")
    with pytest.raises(otlp.OtlpError, match="not an OTLP protobuf"):
        otlp.decode(b"\xff\xff\xff", otlp.PROTOBUF)
    with pytest.raises(otlp.OtlpError, match="malformed JSON"):
        otlp.decode(b"{", otlp.JSON)
    with pytest.raises(otlp.OtlpError, match="more than 2 spans"):
        otlp.decode(otlp.encode(app_spans()), otlp.PROTOBUF, otlp.Limits(spans=2))


def test_spans_become_an_agent_trace_linked_to_chunks() -> None:
    groups = list(to_prov(app_spans(), Steps()))
    (q, triples), *subs = groups
    assert q == question_uri(T) and not subs
    facts = {
        (
            getattr(t.s, "i", ""),
            t.p.i.rsplit("/", 1)[-1],
            getattr(t.o, "i", None) or getattr(t.o, "v", ""),
        )
        for t in triples
    }
    assert (q, "query", "Capital of France?") in facts
    assert (q + "/final", "answer", "Paris") in facts
    span = {s: json.loads(str(o)) for s, p, o in facts if p == "otelSpan"}
    assert span[q + "/i1"]["kind"] == "RETRIEVER" and (q + "/i2", "llmModel", "gpt-x") in facts
    assert (q + "/i2", "inToken", "42") in facts and (q + "/i2", "outToken", "7") in facts
    selected = {o for s, p, o in facts if p == "selectedChunk"}
    assert selected == {CHUNK, "urn:trustgraph:otel-document:faq%2F42"}
    assert not q.endswith(T.hex()) and T.hex() not in q  # never one of our own trace ids


def test_round_trip_keeps_ids_parents_documents_and_tokens() -> None:
    sent = app_spans()
    back = {s.span_id: s for s in exported(as_trace(list(to_prov(sent, Steps()))))}
    assert set(back) == {s.span_id for s in sent}
    for s in sent:
        got = back[s.span_id]
        assert (got.trace_id, got.parent_id, got.name) == (s.trace_id, s.parent_id, s.name)
        assert (got.start_ns, got.end_ns) == (s.start_ns, s.end_ns)
        assert got.attributes["openinference.span.kind"] == s.attributes["openinference.span.kind"]
    retriever, llm = back[b"\x02" * 8].attributes, back[b"\x03" * 8].attributes
    assert retriever["retrieval.documents.0.document.id"] == CHUNK
    assert retriever["retrieval.documents.0.document.score"] == 0.91
    assert json.loads(str(retriever["retrieval.documents.0.document.metadata"]))["page"] == 3
    assert retriever["retrieval.documents.1.document.id"] == "faq/42"
    assert (llm["llm.token_count.prompt"], llm["gen_ai.usage.output_tokens"]) == (42, 7)
    assert llm["gen_ai.operation.name"] == "chat" and llm["llm.model_name"] == "gpt-x"


def test_a_page_number_past_what_int_reads_exports_as_a_document_without_a_page() -> None:
    """A document id shaped as a chunk's with a page of 4,400 digits (past int()'s 4,300) is
    kept, and its trace exports, the page left out of the metadata (it raised before)."""
    long_page = "urn:trustgraph:doc:abc/p" + "7" * 4400 + "/c1"
    sent = app_spans()
    sent[1] = dataclasses.replace(
        sent[1], attributes={**sent[1].attributes, "retrieval.documents.0.document.id": long_page}
    )
    back = {s.span_id: s for s in exported(as_trace(list(to_prov(sent, Steps()))))}
    retriever = back[b"\x02" * 8].attributes
    assert retriever["retrieval.documents.0.document.id"] == long_page
    meta = json.loads(str(retriever["retrieval.documents.0.document.metadata"]))
    assert "page" not in meta and meta["document"] == long_page.rsplit("/", 1)[0]


def test_spans_sent_in_several_requests_continue_one_trace() -> None:
    root, retriever, llm = app_spans()
    steps = Steps()
    first = list(to_prov([retriever, llm], steps))  # children end (and are sent) first
    second = list(to_prov([root], steps))
    back = {s.span_id: s for s in exported(as_trace(first + second))}
    assert (
        back[b"\x02" * 8].parent_id == root.span_id and back[b"\x03" * 8].parent_id == root.span_id
    )
    uris = {str(s.attributes["tg.prov.uri"]) for s in back.values()}
    q = question_uri(T)
    assert uris == {q, q + "/i1", q + "/i2"}


def our_agent_trace(session: str) -> list[list[Triple]]:
    q = f"urn:trustgraph:agent:{session}"
    sub = "urn:trustgraph:docrag:5b9f4f0e-27e3-4b3e-9b2f-0d6f3c2a1e77"
    return [
        agent_session_triples(q, "Capital of France?", "2026-12-01T10:00:00.000Z"),
        docrag_question_triples(sub, "capital", "2026-12-01T10:00:00.100Z", q + "/i1"),
        docrag_exploration_triples(sub + "/exploration", sub, [CHUNK], [0.8]),
        [
            *synthesis_triples(sub + "/synthesis", sub + "/exploration", "Paris"),
            *metrics_triples(
                sub + "/synthesis", GRAPH_RETRIEVAL, model="m", in_token=30, out_token=2
            ),
        ],
        [
            *agent_iteration_triples(q + "/i1", q, "look", "document-query", {"q": "x"}, "Paris"),
            *metrics_triples(q + "/i1", GRAPH_RETRIEVAL, model="m", in_token=100, out_token=9),
        ],
        agent_final_triples(q + "/final", q + "/i1", "Paris"),
    ]


def test_our_agent_trace_exports_with_both_conventions() -> None:
    session = "0b7c2a59-4c7e-4a47-8d6e-0f1f0e3a9b10"
    gathered = Gathered(linger=0.5)
    messages = our_agent_trace(session)
    for i, triples in enumerate(messages):
        gathered.add(parse_checked(nquads_text(triples)), now=float(i))
        assert gathered.ready(now=float(i) + 0.1) == []  # not before its last stage lingered
    (trace,) = gathered.ready(now=10.0)
    assert trace.root == f"urn:trustgraph:agent:{session}"
    made = exported(trace)
    by_op: dict[object, list[Span]] = {}
    for s in made:
        by_op.setdefault(s.attributes.get("gen_ai.operation.name"), []).append(s)
        assert s.trace_id.hex() == session.replace("-", "")  # our session id is the trace id
        assert str(s.attributes["tg.prov.uri"]).startswith(
            ("urn:trustgraph:agent:", "urn:trustgraph:docrag:")
        )
    (agent,) = by_op["invoke_agent"]
    (tool,) = by_op["execute_tool"]
    (retrieval,) = by_op["retrieval"]
    assert agent.parent_id == b"" and tool.parent_id == agent.span_id
    assert (
        agent.attributes["openinference.span.kind"] == "AGENT"
        and agent.attributes["output.value"] == "Paris"
    )
    assert (
        tool.attributes["gen_ai.tool.name"] == "document-query"
        and tool.attributes["tool.name"] == "document-query"
    )
    chains = [s for s in made if s.attributes.get("openinference.span.kind") == "CHAIN"]
    assert [c.parent_id for c in chains] == [tool.span_id]  # the sub-trace under its tool call
    assert retrieval.parent_id == chains[0].span_id
    assert retrieval.attributes["retrieval.documents.0.document.id"] == CHUNK
    meta = json.loads(str(retrieval.attributes["retrieval.documents.0.document.metadata"]))
    assert meta == {"document": "urn:trustgraph:doc:abc", "page": 3, "chunk": CHUNK}
    tokens = sorted((s.attributes["gen_ai.usage.input_tokens"], s.parent_id) for s in by_op["chat"])
    assert tokens == sorted([(100, tool.span_id), (30, chains[0].span_id)])


def test_tools_called_at_once_are_a_span_each_under_their_step() -> None:
    q = "urn:trustgraph:agent:7d0e3c59-4c7e-4a47-8d6e-0f1f0e3a9b10"
    messages = [
        agent_session_triples(q, "Two things?", "2026-12-01T10:00:00.000Z"),
        [
            *agent_iteration_triples(q + "/i1", q, "both", "several", "{}", "a; b"),
            *agent_call_triples(q + "/i1/c1", q + "/i1", "knowledge-query", {"q": "a"}, "A"),
            *agent_call_triples(q + "/i1/c2", q + "/i1", "document-query", {"q": "b"}, "B"),
        ],
        agent_final_triples(q + "/final", q + "/i1", "A and B"),
    ]
    gathered = Gathered()
    for triples in messages:
        gathered.add(parse_checked(nquads_text(triples)))
    (trace,) = gathered.flush()
    made = exported(trace)
    (step,) = [s for s in made if s.attributes.get("tg.prov.uri") == q + "/i1"]
    calls = [s for s in made if s.parent_id == step.span_id]
    assert [(c.attributes["gen_ai.tool.name"], c.attributes["output.value"]) for c in calls] == [
        ("knowledge-query", "A"),
        ("document-query", "B"),
    ]
    assert all(c.attributes["gen_ai.operation.name"] == "execute_tool" for c in calls)


def test_the_buffer_is_bounded_and_counts_what_it_gives_up() -> None:
    gathered = Gathered(limit=2, idle=5.0)
    for n in range(3):
        q = f"urn:trustgraph:agent:00000000-0000-0000-0000-00000000000{n}"
        gathered.add(
            parse_checked(nquads_text(agent_session_triples(q, "q", "2026-01-01T00:00:00Z"))),
            now=0.0,
        )
    assert gathered.given_up == 1 and len(gathered.traces) == 2
    assert gathered.ready(now=1.0) == [] and len(gathered.ready(now=6.0)) == 2  # idle: sent as is
    other = ox.Quad(
        ox.NamedNode("urn:x"),
        ox.NamedNode("urn:p"),
        ox.Literal("o"),
        ox.NamedNode("urn:graph:source"),
    )
    gathered.add([other])
    assert gathered.traces == {}


def test_endpoint_and_headers_settings() -> None:
    assert traces_url("http://h:6006") == "http://h:6006/v1/traces"
    assert traces_url("http://h:5000/v1/traces") == "http://h:5000/v1/traces"
    assert parse_headers("Authorization=Basic%20abc, x-mlflow-experiment-id=0") == {
        "Authorization": "Basic abc",
        "x-mlflow-experiment-id": "0",
    }
    with pytest.raises(ValueError, match="'oops' is not key=value"):
        parse_headers("a=b,oops")
