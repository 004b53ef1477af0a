"""The attributes of an exported span, in both conventions (GenAI and OpenInference)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.uris import is_exploration_chunk_uri
from trustgraph_flow.otel import conventions as c
from trustgraph_flow.otel.spans import COUNT_DIGITS
from trustgraph_flow.otel.to_prov import OTHER_DOCUMENT
from trustgraph_flow.otel.trace import Trace

Attrs = dict[str, Any]  # a span's attributes while made (None: left out)


def as_int(value: str | None) -> int | None:
    """An integer stored as text, as long as OTLP's int64 writes one (``spans.COUNT_DIGITS``;
    ``isdecimal``: a superscript '²' is a digit to ``isdigit`` and no number to ``int()``)."""
    return int(value) if value is not None and _decimal(value.removeprefix("-")) else None


def _decimal(text: str) -> bool:
    return text.isdecimal() and len(text) <= COUNT_DIGITS


TOOL_KEYS = ("gen_ai.tool.", "tool.")
OPERATIONS = {
    "LLM": "chat",
    "RETRIEVER": "retrieval",
    "AGENT": "invoke_agent",
    "EMBEDDING": "embeddings",
}


def tool_attributes(t: Trace, uri: str, kind: str | None) -> Attrs:
    action = t.one(uri, TG.action.i) or ""
    arguments = t.one(uri, TG.arguments.i) or ""
    observation = t.one(uri, TG.observation.i) or ""
    return {
        "_name": f"execute_tool {action}",
        c.OPERATION: "execute_tool",
        c.KIND: kind or "TOOL",
        c.TOOL: action,
        c.TOOL_NAME: action,
        c.TOOL_ARGUMENTS: arguments,
        c.TOOL_PARAMETERS: arguments,
        c.TOOL_RESULT: observation,
        c.INPUT: arguments,
        c.OUTPUT: observation,
        "tg.thought": t.one(uri, TG.thought.i),
        c.PROV_DERIVED: t.facts.get(uri, {}).get(PROV.wasDerivedFrom.i, []),
    }


def llm_attributes(t: Trace, uri: str) -> Attrs:
    """A stage's model (its LLM's, or an exploration's embeddings model) and tokens, in both
    conventions (empty when it records none)."""
    model = t.one(uri, TG.llmModel.i) or t.one(uri, TG.embeddingModel.i)
    tin, tout = as_int(t.one(uri, TG.inToken.i)), as_int(t.one(uri, TG.outToken.i))
    if model is None and tin is None and tout is None:
        return {}
    attrs: Attrs = {"_name": f"chat {model or ''}".strip(), c.OPERATION: "chat"}
    attrs |= {c.KIND: "LLM", c.LLM_MODEL: model, c.REQUEST_MODEL: model, c.RESPONSE_MODEL: model}
    if tin is not None:
        attrs |= {c.INPUT_TOKENS: tin, c.LLM_PROMPT_TOKENS: tin}
    if tout is not None:
        attrs |= {c.OUTPUT_TOKENS: tout, c.LLM_COMPLETION_TOKENS: tout}
    if tin is not None and tout is not None:
        attrs[c.LLM_TOTAL_TOKENS] = tin + tout
    return attrs


def documents(t: Trace, explorations: list[str]) -> Attrs:
    """The selected chunks (in rank order) with id, score, page and document."""
    docs: list[dict[str, object]] = []
    for e in explorations:
        chunks = t.facts.get(e, {}).get(TG.selectedChunk.i, [])
        scores = {}
        for u, objects in t.facts.items():
            rank = as_int((objects.get(TG.rank.i) or [""])[0])
            if is_exploration_chunk_uri(e, u) and rank:
                scores[rank] = float((objects.get(TG.score.i) or ["nan"])[0])
        for rank, chunk in enumerate(chunks, start=1):
            docs.append({"id": _document_id(chunk), "score": scores.get(rank)} | _place(chunk))
    for e in explorations:
        docs.extend(t.edges.get(e, []))
    attrs: Attrs = {}
    for i, d in enumerate(docs):
        key = f"{c.DOCS}.{i}.document"
        attrs[f"{key}.id"] = str(d["id"])
        if d["score"] is not None:
            attrs[f"{key}.score"] = float(str(d["score"]))
        meta = {k: v for k, v in d.items() if k not in ("id", "score")}
        attrs[f"{key}.metadata"] = json.dumps(meta)
    if docs:
        attrs[c.RETRIEVAL_DOCUMENTS] = json.dumps(docs)
    return attrs


def _document_id(chunk: str) -> str:
    return unquote(chunk[len(OTHER_DOCUMENT) :]) if chunk.startswith(OTHER_DOCUMENT) else chunk


def _place(chunk: str) -> dict[str, object]:
    """A chunk URI's document and page (``{doc}/p{n}/c{m}``, or ``{doc}/c{m}`` without pages)."""
    head, _, last = chunk.rpartition("/")
    if not (last.startswith("c") and last[1:].isdecimal()):
        return {}
    doc, _, page = head.rpartition("/")
    if page.startswith("p") and _decimal(page[1:]):
        return {"document": doc, "page": int(page[1:]), "chunk": chunk}
    return {"document": head, "chunk": chunk}
