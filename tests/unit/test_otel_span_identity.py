"""An imported span's identity (ids, name, kind, times) is one ``tg:otelSpan`` literal per
entity, and a trace imported before that (a triple per field) still exports as it came."""

from __future__ import annotations

import json

from tests.unit.test_otel import T, app_spans, as_trace
from trustgraph_base.provenance.common import integer_literal, text, triple
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.rdf.terms import LiteralTerm, Triple
from trustgraph_flow.otel.from_prov import OLDER_FIELDS
from trustgraph_flow.otel.from_prov import spans as exported
from trustgraph_flow.otel.steps import Steps
from trustgraph_flow.otel.to_prov import question_uri, to_prov


def test_each_span_is_one_identity_triple() -> None:
    sent = app_spans()
    ((_, triples),) = to_prov(sent, Steps())
    # every tg:otel* predicate but the trace id's (tg:otelSpanId and the others too)
    identity = [t for t in triples if t.p.i.startswith(TG.otelSpan.i)]
    assert len(identity) == len(sent) and {t.p for t in identity} == {TG.otelSpan}
    fields = {getattr(t.s, "i", ""): json.loads(getattr(t.o, "v", "")) for t in identity}
    root = fields[question_uri(T)]
    assert root == {
        "spanId": "01" * 8,
        "name": "answer",
        "kind": "AGENT",
        "startNs": sent[0].start_ns,
        "endNs": sent[0].end_ns,
    }  # a root has no parent id


def older_form(triples: list[Triple]) -> list[Triple]:
    """``triples`` as the import wrote them before: each ``tg:otelSpan`` a triple per field."""
    out = []
    for t in triples:
        if t.p != TG.otelSpan or not isinstance(t.o, LiteralTerm):
            out.append(t)
            continue
        for key, value in json.loads(t.o.v).items():
            o = integer_literal(value) if isinstance(value, int) else text(value)
            out.append(triple(t.s.i, OLDER_FIELDS[key], o, t.g))  # type: ignore[union-attr]
    return out


def test_a_trace_imported_in_the_older_form_exports_as_it_came() -> None:
    sent = app_spans()
    groups = [(q, older_form(triples)) for q, triples in to_prov(sent, Steps())]
    assert not any(t.p == TG.otelSpan for _, ts in groups for t in ts)
    back = {s.span_id: s for s in exported(as_trace(groups))}
    assert set(back) == {s.span_id for s in sent}
    for s in sent:
        got = back[s.span_id]
        assert (got.parent_id, got.name, got.start_ns, got.end_ns) == (
            s.parent_id,
            s.name,
            s.start_ns,
            s.end_ns,
        )
        assert got.attributes["openinference.span.kind"] == s.attributes["openinference.span.kind"]
