"""Spans from any instrumented app as PROV traces (graph ``urn:graph:retrieval``), docs/otel.md.

Each OTel trace becomes an agent trace: its question ``urn:trustgraph:agent:{uuid5(trace id)}``
(not one of ours), the root span's input as the query and its output as the conclusion; every other
span an analysis step ``…/i{n}`` by start, derived from its child spans' steps (a leaf from the
question; the conclusion from the root's children: a span's output feeds its parent's); an LLM
span's model and tokens as the step's metrics; a retriever span also a DocumentRAG sub-trace whose
exploration selects each retrieved document (the id itself if an IRI, so our chunk URIs link to
their pages, else ``urn:trustgraph:otel-document:{id,percent-encoded}``). Each entity keeps its
span's ids, name, kind and times (``tg:otelTraceId``, ``tg:otelSpan``).

The agent's triples are made as rows (``rdf.rows``), which the gateway writes as N-Quads
text (``trace_rows``): as models they were a third of its mapping's CPU (docs/performance.md,
session 23); ``to_prov`` gives the models, for readers.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import quote

import pyoxigraph as ox

from trustgraph_base.provenance import GRAPH_RETRIEVAL
from trustgraph_base.provenance.agent import (
    agent_final_rows,
    agent_iteration_rows,
    agent_session_rows,
)
from trustgraph_base.provenance.common import failure_triples, metrics_rows, type_rows
from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.rag import (
    docrag_exploration_rows,
    docrag_question_rows,
    synthesis_rows,
)
from trustgraph_base.provenance.uris import (
    agent_final_uri,
    agent_session_uri,
    docrag_question_uri,
    exploration_uri,
    synthesis_uri,
)
from trustgraph_base.rdf.rows import Row, Stated, row, triples_of
from trustgraph_base.rdf.terms import Triple, check_iri
from trustgraph_flow.otel import conventions as c
from trustgraph_flow.otel.spans import Span
from trustgraph_flow.otel.steps import Steps, step_number

G = GRAPH_RETRIEVAL
IMPORTED = uuid.UUID("0f7e1c2a-5b1d-4c47-9a59-3f1e6d0b8c21")  # uuid5 namespace of imported ids
OTHER_DOCUMENT = "urn:trustgraph:otel-document:"


_NAMESPACED = hashlib.sha1(IMPORTED.bytes)  # uuid5's hash of a name begins with its namespace


def imported_id(name: str) -> str:
    """``str(uuid.uuid5(IMPORTED, name))``, from the namespace's hash begun once: ~2.5 µs
    instead of ~12 (uuid5 makes its hash anew and a ``UUID`` to print)."""
    hashed = _NAMESPACED.copy()
    hashed.update(name.encode())
    b = bytearray(hashed.digest()[:16])
    b[6], b[8] = (b[6] & 0x0F) | 0x50, (b[8] & 0x3F) | 0x80  # version 5, RFC 4122 variant
    x = b.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


def question_uri(trace_id: bytes) -> str:
    """The agent trace an OTel trace becomes (a uuid5 of its id: never one of ours)."""
    return agent_session_uri(imported_id(trace_id.hex()))


def document_uri(doc_id: str) -> str:
    """A document id as an IRI: itself if the schema and pyoxigraph (the store) take it."""
    if ":" in doc_id:
        try:
            return ox.NamedNode(check_iri(doc_id)).value
        except ValueError:
            pass
    return OTHER_DOCUMENT + quote(doc_id, safe="")


def iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def to_prov(spans: list[Span], steps: Steps) -> Iterator[tuple[str, list[Triple]]]:
    """Each trace's triples, one group per trace: ``(question URI, triples)``."""
    for uri, rows in trace_rows(spans, steps):
        yield uri, triples_of(rows)


def trace_rows(spans: list[Span], steps: Steps) -> Iterator[tuple[str, list[Stated]]]:
    """``to_prov``'s groups as rows and models (``nquads_text`` writes both alike)."""
    traces: dict[bytes, list[Span]] = {}
    for s in spans:
        traces.setdefault(s.trace_id, []).append(s)
    for trace_id, group in traces.items():
        q = question_uri(trace_id)
        yield q, _trace(q, trace_id, group, steps)


def _trace(q: str, trace_id: bytes, spans: list[Span], steps: Steps) -> list[Stated]:
    """The trace's triples; the answer rests on the whole span tree (lineage, diffs). Made
    into one list (a generator a step, delegating to the builders', resumed each row)."""
    out: list[Stated] = []
    spans = sorted(spans, key=lambda s: (s.start_ns, s.span_id))
    if all(s.parent_id for s in spans):  # the root comes later: the trace is in progress
        out += type_rows(q, G, PROV.Activity, TG.Question, TG.AgentQuestion)
    out.append(row(q, TG.otelTraceId, trace_id.hex(), G))
    known = steps.number(trace_id, q, spans)
    children: dict[bytes, list[str]] = {}
    for uri, parent in known.values():
        if uri != q:
            children.setdefault(parent, []).append(uri)
    for s in spans:
        uri = known[s.span_id][0]
        used = sorted(children.get(s.span_id, []), key=lambda u: step_number(q, u))
        k = kind(s)  # read once a span: its identity, its step and its metrics use it
        out.append(_identity(uri, s, k))
        if uri == q:
            _root(out, q, s, k, used or q)
        else:
            _step(out, q, uri, s, k, used or q)
    return out


_text = json.encoder.encode_basestring  # a str as json.dumps(…, ensure_ascii=False) writes it


def _identity(uri: str, s: Span, k: str) -> Row:
    """The span as it came, one JSON literal (``tg:otelSpan``): nothing queries its fields
    one by one and the export reads them together; a triple each made a quarter of an
    import's triples, which the store writes, indexes and signs one by one. Its text is
    ``json.dumps``'s of ``{spanId, parentSpanId (none for a root), name, kind, startNs,
    endNs}``, written by hand: ~1 µs where json.dumps took ~6 (it makes an encoder a call)."""
    parent = f'"parentSpanId": "{s.parent_id.hex()}", ' if s.parent_id else ""
    text = (
        f'{{"spanId": "{s.span_id.hex()}", {parent}"name": {_text(s.name)}, "kind": {_text(k)}, '
        f'"startNs": {s.start_ns}, "endNs": {s.end_ns}}}'
    )
    return row(uri, TG.otelSpan, text, G)


_KINDS = {
    "invoke_agent": "AGENT",
    "create_agent": "AGENT",
    "execute_tool": "TOOL",
    "retrieval": "RETRIEVER",
    "embeddings": "EMBEDDING",
    "chat": "LLM",
    "text_completion": "LLM",
    "generate_content": "LLM",
}


def kind(s: Span) -> str:
    """The span's OpenInference kind, else one its GenAI operation implies, else ``UNKNOWN``."""
    given = s.text(c.KIND)
    if given:
        return given.upper()
    return _KINDS.get(s.text(c.OPERATION) or "", "UNKNOWN")


def _input(s: Span) -> str:
    return s.text(c.INPUT, c.TOOL_ARGUMENTS, c.TOOL_PARAMETERS, c.PROMPT) or ""


def _output(s: Span) -> str:
    return s.text(c.OUTPUT, c.TOOL_RESULT, c.COMPLETION) or ""


def _root(out: list[Stated], q: str, s: Span, k: str, used: str | list[str]) -> None:
    out += agent_session_rows(q, _input(s) or s.name, iso(s.start_ns))
    out += _metrics(q, s, k)
    if s.error is not None:
        out += failure_triples(q, G, s.error or "the span's status is an error")
    else:
        out += agent_final_rows(agent_final_uri(q), used, _output(s))


def _step(out: list[Stated], q: str, uri: str, s: Span, k: str, used: str | list[str]) -> None:
    arguments = _input(s)
    try:  # only a JSON object is kept as it is: text that cannot be one is not parsed (its
        # ValueError cost ~4 µs a span, most of an import's inputs being plain text)
        is_json = arguments.lstrip()[:1] == "{" and isinstance(json.loads(arguments), dict)
    except ValueError:
        is_json = False
    if not is_json:
        arguments = f'{{"input": {_text(arguments)}}}' if arguments else "{}"  # json.dumps's
    action = s.text(c.TOOL_NAME, c.TOOL) or k.lower()
    observation = _output(s) if s.error is None else f"error: {s.error}"
    out += agent_iteration_rows(uri, used, s.name, action, arguments, observation)
    out += _metrics(uri, s, k)
    if k == "RETRIEVER":
        out += _retrieval(q, uri, s)


def _metrics(uri: str, s: Span, k: str) -> list[Row]:
    if k not in ("LLM", "EMBEDDING"):
        return []
    return metrics_rows(
        uri,
        G,
        model=s.text(c.LLM_MODEL, c.EMBEDDING_MODEL, c.RESPONSE_MODEL, c.REQUEST_MODEL),
        embedding=k == "EMBEDDING",  # no LLM call: tg:embeddingModel, tg:latencyMs
        in_token=s.number(c.LLM_PROMPT_TOKENS, c.INPUT_TOKENS),
        out_token=s.number(c.LLM_COMPLETION_TOKENS, c.OUTPUT_TOKENS),
        latency_ms=(s.end_ns - s.start_ns) / 1e6,
    )


def _retrieval(q: str, step: str, s: Span) -> list[Row]:
    """A retriever span's documents as a DocumentRAG sub-trace of its step."""
    sub = docrag_question_uri(imported_id(f"{s.trace_id.hex()}/{s.span_id.hex()}"))
    docs = s.documents()
    uris = [document_uri(d) for d, _ in docs]
    scores = [score for _, score in docs]
    every = all(x is not None for x in scores)
    answer = _output(s) or f"{len(uris)} document{'s' * (len(uris) != 1)} retrieved"
    return [
        *docrag_question_rows(sub, _input(s) or s.name, iso(s.start_ns), step),
        *docrag_exploration_rows(
            exploration_uri(sub), sub, uris, [x or 0.0 for x in scores] if every else None
        ),
        *synthesis_rows(synthesis_uri(sub), exploration_uri(sub), answer),
    ]
