"""A trace entity's facts as a view reads them (``Props``: entity → predicate → values), their
text and a stage's metrics."""

from __future__ import annotations

from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.schema.explain import (
    StageMetrics,
)
from trustgraph_flow.store.core.convert import OxObject, value_of
from trustgraph_flow.store.views.lookup import (
    as_int,
)

# entity URI → predicate IRI → objects (an agent step's from the index's read model: strings)
Props = dict[str, dict[str, list[OxObject | str]]]


def text(props: Props, uri: str, pred: object) -> str | None:
    values = props.get(uri, {}).get(pred.i, [])  # type: ignore[attr-defined]
    if not values:
        return None
    first = values[0]
    return first if isinstance(first, str) else value_of(first)


def metrics(props: Props, root: str) -> dict[str, StageMetrics]:
    """Stage name (``question``, ``i1``, ``focus``…) → the figures recorded on it."""
    out: dict[str, StageMetrics] = {}
    for uri in sorted(props):
        model = text(props, uri, TG.llmModel) or text(props, uri, TG.embeddingModel)
        tin, tout = text(props, uri, TG.inToken), text(props, uri, TG.outToken)
        latency = text(props, uri, TG.llmDurationMs) or text(props, uri, TG.latencyMs)
        if model is None and tin is None and tout is None and latency is None:
            continue
        stage = "question" if uri == root else uri[len(root) + 1 :]
        out[stage] = StageMetrics(
            model=model,
            in_token=as_int(tin),
            out_token=as_int(tout),
            latency_ms=float(latency) if latency is not None else None,
        )
    return out
