"""A trace's triples as OTLP spans, with the GenAI and OpenInference attributes (docs/otel.md).

The agent question is ``invoke_agent`` (AGENT), each analysis ``execute_tool`` (TOOL) with a
``chat`` child (LLM) when the step records a model or tokens; a GraphRAG or DocumentRAG
question is a CHAIN span (under the analysis that ran it, for a sub-trace), its exploration
``retrieval`` (RETRIEVER) with each document's id, score and page, its focus and synthesis
``chat`` spans with model and tokens. Every span names its entity (``tg.prov.uri``). A trace
imported from OTLP keeps the ids, names, kinds and times its spans came with.

Times: ``prov:startedAtTime`` of a question; for the stages, when the exporter received them
(each entity is published the moment it is known), less ``tg:llmDurationMs`` (or ``tg:latencyMs``) where recorded.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from datetime import datetime

from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.uris import agent_final_uri, session_id_of, trace_root
from trustgraph_flow.otel import conventions as c
from trustgraph_flow.otel.attributes import (
    OPERATIONS,
    TOOL_KEYS,
    Attrs,
    as_int,
    documents,
    llm_attributes,
    tool_attributes,
)
from trustgraph_flow.otel.spans import Span
from trustgraph_flow.otel.trace import Trace


def span_id(uri: str) -> bytes:
    return hashlib.sha256(uri.encode()).digest()[:8]


def trace_id(root: str) -> bytes:
    """Our trace's OTel id: its session uuid (``urn:trustgraph:agent:{uuid}``), else a hash."""
    try:
        return uuid.UUID(session_id_of(root) or "").bytes
    except ValueError:
        return hashlib.sha256(root.encode()).digest()[:16]


def _ns(timestamp: str | None) -> int | None:
    if not timestamp:
        return None
    try:
        return int(datetime.fromisoformat(timestamp).timestamp() * 1e9)
    except ValueError:
        return None


def spans(trace: Trace) -> list[Span]:
    """Every span of ``trace``."""
    t = trace
    tid = bytes.fromhex(t.one(t.root, TG.otelTraceId.i) or "") or trace_id(t.root)
    return list(_question(t, t.root, tid, b""))


def _question(t: Trace, q: str, tid: bytes, parent: bytes) -> Iterator[Span]:
    """A question's span and its stages' (and sub-traces') spans."""
    stages = sorted(
        (u for u in t.facts if u != q and trace_root(u) == q and _is_stage(t, u)),
        key=lambda u: (t.arrived.get(u, 0), u),
    )
    start = (
        as_int(_otel(t, q).get("startNs"))
        or _ns(t.one(q, PROV.startedAtTime.i))
        or min(t.arrived.values(), default=0)
    )
    qid = _sid(t, q)
    out: list[Span] = []
    cursor = start
    for stage in stages:
        span = _stage(t, q, stage, tid, qid, cursor)
        if span is None:
            continue
        out.extend(span)
        cursor = max(cursor, span[0].end_ns)
        if _otel(t, stage).get("kind") == "RETRIEVER":
            continue  # an imported retriever: its documents are on its own span
        for sub in t.subtraces(stage):
            out.extend(_question(t, sub, tid, span[0].span_id))
        for call in _calls(t, stage):  # several tools called at once: one span each
            attrs = tool_attributes(t, call, None)
            attrs[c.OUTPUT] = attrs[c.TOOL_RESULT] = t.one(call + "/observation", TG.observation.i)
            made = _span(t, call, tid, span[0].span_id, span[0].start_ns, span[0].end_ns, attrs)
            out.append(made)
            for sub in t.subtraces(call):
                out.extend(_question(t, sub, tid, made.span_id))
    end = as_int(_otel(t, q).get("endNs")) or max([s.end_ns for s in out] + [cursor, start])
    yield _span(t, q, tid, parent, start, end, _question_attrs(t, q))
    yield from out


def _calls(t: Trace, step: str) -> list[str]:
    """The tool uses ``{step}/c{k}`` of a step that called several tools at once, in order."""
    found = [u for u in t.facts if u.startswith(step + "/c") and t.has_type(u, TG.ToolUse.i)]
    return sorted(found, key=lambda u: (len(u), u))


OLDER_FIELDS = {  # a trace imported before ``tg:otelSpan``: a triple per field
    "spanId": TG.otelSpanId,
    "parentSpanId": TG.otelParentSpanId,
    "name": TG.otelName,
    "kind": TG.otelKind,
    "startNs": TG.otelStartNs,
    "endNs": TG.otelEndNs,
}


def _otel(t: Trace, uri: str) -> dict[str, str]:
    """The imported span ``uri`` came from (its ``tg:otelSpan``), as text; empty for ours."""
    raw = t.one(uri, TG.otelSpan.i)
    if raw is None:
        if t.one(uri, TG.otelSpanId.i) is None:
            return {}  # one of ours
        return {k: v for k, p in OLDER_FIELDS.items() if (v := t.one(uri, p.i)) is not None}
    try:
        fields = json.loads(raw)
    except ValueError:
        return {}
    return {k: str(v) for k, v in fields.items()} if isinstance(fields, dict) else {}


def _sid(t: Trace, uri: str) -> bytes:
    given = _otel(t, uri).get("spanId")
    return bytes.fromhex(given) if given else span_id(uri)


def _is_stage(t: Trace, uri: str) -> bool:
    return any(
        t.has_type(uri, cls.i)
        for cls in (TG.Analysis, TG.Exploration, TG.Focus, TG.Synthesis, TG.Conclusion)
    )


def _span(
    t: Trace, uri: str, tid: bytes, parent: bytes, start: int, end: int, attrs: Attrs
) -> Span:
    name = _otel(t, uri).get("name") or str(attrs.pop("_name", "span"))
    attrs.pop("_name", None)
    attrs[c.PROV_URI] = uri
    given_parent = _otel(t, uri).get("parentSpanId")
    return Span(
        trace_id=tid,
        span_id=_sid(t, uri),
        name=name,
        start_ns=start,
        end_ns=max(start, end),
        parent_id=bytes.fromhex(given_parent) if given_parent else parent,
        attributes={k: v for k, v in attrs.items() if v is not None and v != ""},
        error=t.one(uri, TG.error.i) or t.one(uri, TG.interrupted.i),
    )


def _question_attrs(t: Trace, q: str) -> Attrs:
    query = t.one(q, TG.query.i) or ""
    if t.has_type(q, TG.AgentQuestion.i):
        attrs: Attrs = {
            "_name": f"invoke_agent {c.SERVICE_NAME}",
            c.OPERATION: "invoke_agent",
            c.AGENT_NAME: c.SERVICE_NAME,
            c.KIND: _otel(t, q).get("kind") or "AGENT",
            c.OUTPUT: t.one(agent_final_uri(q), TG.answer.i) or "",
        }
    else:
        rag = "graph_rag" if t.has_type(q, TG.GraphRagQuestion.i) else "document_rag"
        attrs = {"_name": rag, c.KIND: "CHAIN", c.OUTPUT: t.one(q + "/synthesis", TG.content.i)}
    session = session_id_of(q) or ""
    attrs |= {c.INPUT: query, c.SESSION: session, c.CONVERSATION: session, c.PROV_TRACE: q}
    return attrs | llm_attributes(t, q)


def _stage(t: Trace, q: str, uri: str, tid: bytes, qid: bytes, cursor: int) -> list[Span] | None:
    end = as_int(_otel(t, uri).get("endNs")) or t.arrived.get(uri, cursor)
    latency = t.one(uri, TG.llmDurationMs.i) or t.one(uri, TG.latencyMs.i)
    start = as_int(_otel(t, uri).get("startNs")) or (
        max(cursor, end - int(float(latency) * 1e6)) if latency else cursor
    )
    llm = llm_attributes(t, uri)
    kind = _otel(t, uri).get("kind")
    if t.has_type(uri, TG.Analysis.i):
        attrs = tool_attributes(t, uri, kind)
        if kind == "RETRIEVER":
            attrs |= documents(t, [s + "/exploration" for s in t.subtraces(uri)])
        if kind is not None:  # imported: one span, as it came
            if kind != "TOOL":
                attrs = {k: v for k, v in attrs.items() if not k.startswith(TOOL_KEYS)}
                attrs[c.OPERATION] = OPERATIONS.get(kind)
            return [_span(t, uri, tid, qid, start, end, attrs | llm)]
        tool = _span(t, uri, tid, qid, start, end, attrs)
        if not llm:
            return [tool]
        chat = Span(tid, span_id(uri + "#llm"), str(llm.pop("_name")), start, end, tool.span_id,
                    llm | {c.PROV_URI: uri})  # fmt: skip
        return [tool, chat]
    if t.has_type(uri, TG.Exploration.i):
        attrs = {"_name": "retrieval", c.OPERATION: "retrieval", c.KIND: "RETRIEVER"}
        attrs[c.INPUT] = t.one(q, TG.query.i)
        edges = as_int(t.one(uri, TG.edgeCount.i))
        if edges is not None:
            attrs["tg.edge_count"] = edges
        model = {k: v for k, v in llm.items() if k not in ("_name", c.KIND, c.OPERATION)}
        return [_span(t, uri, tid, qid, start, end, attrs | documents(t, [uri]) | model)]
    if t.has_type(uri, TG.Conclusion.i) and not llm:
        return None  # its answer is the agent span's output
    name = "synthesis" if t.has_type(uri, TG.Synthesis.i) else uri.rsplit("/", 1)[-1]
    answer = t.one(uri, TG.content.i) or t.one(uri, TG.answer.i)
    named = {"_name": name, c.KIND: "LLM" if llm else "CHAIN", c.OUTPUT: answer, "tg.stage": name}
    return [_span(t, uri, tid, qid, start, end, named | llm)]
