"""Answers by their verification (docs/provenance.md, "Verification"): each trace's answer
verdict, the trace list narrowed to one verdict, and a collection's faithfulness over time
(the share of its answers' claims that their evidence supports, per day or hour)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.uris import agent_final_uri, synthesis_uri
from trustgraph_base.provenance.verification import (
    abstention_uri,
    assessment_uri,
    verification_uri,
)
from trustgraph_base.schema.explain import ExplainRequest, FaithfulnessBucket, TraceSummary
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.core.convert import value_of
from trustgraph_flow.store.core.rows import TraceFilter, TraceRow, sort_key
from trustgraph_flow.store.views.explain import gather, rag_props
from trustgraph_flow.store.views.props import Props, text
from trustgraph_flow.store.views.traces import encode_cursor, request_filter, summary_of

SCAN = 200  # rows read from the index per round while narrowing by verdict


@dataclass(frozen=True)
class Judged:
    """A trace's answer verdict, whether it was withheld, and its claims' verdicts."""

    verdict: str
    abstained: bool
    claims: tuple[str, ...]


def _answer_uri(row: TraceRow) -> str:
    return agent_final_uri(row.id) if row.kind == "agent" else synthesis_uri(row.id)


def _assessments(props: Props, act: str, answer: str) -> list[str]:
    """The assessment URIs of the claims of ``answer`` its verification ``act`` used."""
    used = props.get(act, {}).get(PROV.used.i, [])
    claims = (u if isinstance(u, str) else value_of(u) or "" for u in used)
    return [assessment_uri(c) for c in claims if c.startswith(f"{answer}/claim")]


def judged(handle: Handle, rows: list[TraceRow]) -> dict[str, Judged]:
    """Each trace's verification as recorded ("unverified" when it has none)."""
    kept = rag_props(handle, rows)
    out: dict[str, Judged] = {}
    for row in rows:
        answer = _answer_uri(row)
        act = verification_uri(answer)
        props: Props | None = kept.get(row.id)
        if props is None:  # no read model: the store's facts (an agent's: its verification)
            only = [act, abstention_uri(answer)] if row.kind == "agent" else None
            props = gather(handle, row.id, only)
            if only is not None and (assessed := _assessments(props, act, answer)):
                props |= gather(handle, row.id, assessed)  # its claims' assessments too
        claims = tuple(
            v
            for uri in props
            if uri.startswith(f"{answer}/claim") and uri.endswith("/assessment")
            if (v := text(props, uri, TG.verdict)) is not None
        )
        verdict = text(props, act, TG.answerVerdict) or "unverified"
        withheld = text(props, abstention_uri(answer), TG.content) is not None
        out[row.id] = Judged(verdict, withheld, claims)
    return out


def scan(
    handle: Handle, flt: TraceFilter, after: tuple[str, str] | None = None
) -> Iterator[tuple[list[TraceRow], tuple[str, str] | None, tuple[str, str] | None]]:
    """The index's rows in rounds of ``SCAN``: each round's rows, the key it started after,
    and the key of its last row (None at the end)."""
    while True:
        rows, last = handle.index.page(SCAN, flt, after)
        yield rows, after, last
        if last is None or not rows:
            return
        after = last


def page_by_verdict(
    handle: Handle | None, req: ExplainRequest
) -> tuple[list[TraceSummary], str | None]:
    """A page of the trace list whose answers have ``req.verdict``, and the next page's cursor."""
    flt, after = request_filter(req)
    out: list[TraceSummary] = []
    if handle is None:
        return out, None
    for rows, _, last in scan(handle, flt, after):
        found = judged(handle, rows)
        for i, row in enumerate(rows):
            if found[row.id].verdict != req.verdict:
                continue
            out.append(summary_of(row).model_copy(update={"verdict": found[row.id].verdict}))
            if len(out) == req.limit:
                more = i + 1 < len(rows) or last is not None
                return out, (encode_cursor(_key(row)) if more else None)
    return out, None


def _key(row: TraceRow) -> tuple[str, str]:
    return sort_key(row.time), row.id


def faithfulness(handle: Handle | None, req: ExplainRequest) -> list[FaithfulnessBucket]:
    """Per period (``req.by``: day or hour, oldest first) of the listed traces' answers that
    were verified: how many, their claims, the supported ones and their share, the withheld."""
    flt, _ = request_filter(req)
    if handle is None:
        return []
    cut = (
        13 if req.by == "hour" else 10
    )  # of the lexical xsd:dateTime: "YYYY-MM-DDTHH" or "YYYY-MM-DD"
    buckets: dict[str, FaithfulnessBucket] = {}
    for rows, _, _ in scan(handle, flt):
        found = judged(handle, rows)
        for row in rows:
            j = found[row.id]
            if j.verdict == "unverified":
                continue
            key = row.time[:cut]
            b = buckets.get(key) or FaithfulnessBucket(period=key)
            supported = sum(v == "supported" for v in j.claims)
            buckets[key] = b.model_copy(
                update={
                    "answers": b.answers + 1,
                    "claims": b.claims + len(j.claims),
                    "supported": b.supported + supported,
                    "abstained": b.abstained + int(j.abstained),
                }
            )
    return [
        b.model_copy(update={"share": round(b.supported / b.claims, 4) if b.claims else None})
        for _, b in sorted(buckets.items())
    ]
