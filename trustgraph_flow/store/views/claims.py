"""The claims of a RAG answer (``tg:Claim``, docs/provenance.md) from a trace's facts."""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.schema.explain import ClaimView
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
        view = ClaimView(
            uri=uri,
            text=_first(by_pred, TG.content.i) or "",
            offset=_int(_first(by_pred, TG.charOffset.i)),
            length=_int(_first(by_pred, TG.charLength.i)),
            cited=sorted(dict.fromkeys(cited)),
        )
        found.append((int(n), view))
    return [view for _, view in sorted(found, key=lambda item: item[0])]
