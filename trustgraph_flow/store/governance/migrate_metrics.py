"""The migration step that gives the stage metrics the reference's names (docs/conformance.md):
``tg:model`` → ``tg:llmModel`` (``tg:embeddingModel`` on an exploration, whose model is its
embeddings model), and ``tg:latencyMs "8.5"^^xsd:decimal`` → ``tg:llmDurationMs "9"`` (whole
milliseconds, a plain literal) on a stage that made LLM calls: one with a model or tokens that
is not an exploration (an exploration's time, its embedding and search, keeps
``tg:latencyMs``). In ``urn:graph:source`` (the extraction activities, owned by their document)
and ``urn:graph:retrieval`` (owned by their trace). A replacement: the owners' signatures are
renewed as ``migrate.py`` renews a replacement's, and the trace index's read models follow
(``Step.indexed``).
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.common import whole_ms
from trustgraph_base.provenance.namespaces import RDF, TG
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.replacing import Quads, replacement
from trustgraph_flow.store.views.lookup import n

LLM_FACTS = (TG.model, TG.llmModel, TG.inToken, TG.outToken)  # what an LLM stage records


def _made_llm_calls(handle: Handle, stage: object, graph: ox.NamedNode) -> bool:
    return any(
        next(iter(handle.store.quads_for_pattern(stage, n(p), None, graph)), None) is not None  # type: ignore[arg-type]
        for p in LLM_FACTS
    )


def _duration(latency: object) -> ox.Literal | None:
    """``tg:latencyMs``'s value in whole milliseconds (None for a value that is no number)."""
    try:
        return ox.Literal(str(whole_ms(float(latency.value))))  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OverflowError):
        return None


def _old_quads(handle: Handle, graph: ox.NamedNode) -> list[tuple[ox.Quad, ox.Quad]]:
    """Each old-form metric with the quad that replaces it: one read of the old models, one of
    the explorations and one of the timings, then a few per timing not on an exploration."""
    store = handle.store
    models = list(store.quads_for_pattern(None, n(TG.model), None, graph))
    timings = list(store.quads_for_pattern(None, n(TG.latencyMs), None, graph))
    if not models and not timings:
        return []
    typed = store.quads_for_pattern(None, n(RDF.type), n(TG.Exploration), graph)
    explorations = {q.subject for q in typed}
    out = []
    for q in models:
        name = TG.embeddingModel if q.subject in explorations else TG.llmModel
        out.append((q, ox.Quad(q.subject, n(name), q.object, graph)))
    for q in timings:
        if q.subject in explorations or not _made_llm_calls(handle, q.subject, graph):
            continue
        duration = _duration(q.object)
        if duration is not None:
            out.append((q, ox.Quad(q.subject, n(TG.llmDurationMs), duration, graph)))
    return out


def metrics(graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """The step's ``(missing, replaced)`` in ``graph`` (``replacing.py``)."""
    return replacement(_old_quads, graph)
