"""The claims of a RAG answer (``tg:Claim``, docs/provenance.md) from a trace's facts."""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.provenance.verification import (
    abstention_uri,
    assessment_uri,
    verification_uri,
)
from trustgraph_base.schema.explain import ClaimView, VerificationView
from trustgraph_flow.store.core.convert import OxObject, value_of

Props = dict[str, dict[str, list[OxObject | str]]]


def _first(by_pred: dict[str, list[OxObject | str]], pred: str) -> str | None:
    values = by_pred.get(pred, [])
    if not values:
        return None
    first = values[0]
    return first if isinstance(first, str) else value_of(first)


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def verification_view(props: Props, answer: str) -> VerificationView | None:
    """The verification of an answer entity (a synthesis), None when it was not verified."""
    uri = verification_uri(answer)
    facts = props.get(uri)
    if not facts:
        return None
    return VerificationView(
        uri=uri,
        method=_first(facts, TG.method.i) or "",
        model=_first(facts, TG.llmModel.i) or "",
        verdict=_first(facts, TG.answerVerdict.i) or "",
        reason=_first(facts, TG.reason.i) or "",
        relevance=_float(_first(facts, TG.relevance.i)),
        abstention=_first(props.get(abstention_uri(answer), {}), TG.content.i),
    )


def claim_views(props: Props, synthesis: str) -> list[ClaimView]:
    """The synthesis's claims ``{synthesis}/claim{n}`` in order, each with what it cites."""
    prefix = synthesis + "/claim"
    found: list[tuple[int, ClaimView]] = []
    for uri, by_pred in props.items():
        n = uri[len(prefix) :]
        if not uri.startswith(prefix) or not n.isdigit():
            continue
        cited = [
            c.value if isinstance(c, ox.NamedNode) else str(c) for c in by_pred.get(TG.cites.i, [])
        ]
        judged = props.get(assessment_uri(uri), {})
        view = ClaimView(
            uri=uri,
            text=_first(by_pred, TG.content.i) or "",
            offset=_int(_first(by_pred, TG.charOffset.i)),
            length=_int(_first(by_pred, TG.charLength.i)),
            cited=sorted(dict.fromkeys(cited)),
            verdict=_first(judged, TG.verdict.i),
            score=_float(_first(judged, TG.score.i)),
            reason=_first(judged, TG.reason.i),
        )
        found.append((int(n), view))
    return [view for _, view in sorted(found, key=lambda item: item[0])]
