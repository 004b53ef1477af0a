"""The migration step that relabels questions and analyses as the reference labels them
("Question" → "GraphRAG Question", "DocumentRAG Question", "Agent Question"; "Analysis" →
"Analysis: {action}", docs/conformance.md). A replacement, owned by the trace: its signature
is renewed as ``migrate.py`` renews a replacement's."""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.agent import analysis_label
from trustgraph_base.provenance.namespaces import RDF, RDFS, TG
from trustgraph_base.provenance.rag import QUESTION_LABELS
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.views.lookup import RETRIEVAL, n

OLD_LABELS = (ox.Literal("Question"), ox.Literal("Analysis"))


def _old_labels(handle: Handle) -> list[ox.Quad]:
    label = n(RDFS.label)
    return [
        q for old in OLD_LABELS for q in handle.store.quads_for_pattern(None, label, old, RETRIEVAL)
    ]


def _relabelled(handle: Handle, old: list[ox.Quad]) -> list[tuple[ox.Quad, ox.Quad]]:
    """Each old label with the label that replaces it (one read per kind, not per entity)."""
    questions: dict[object, str] = {}
    for subtype, name in QUESTION_LABELS.items():
        typed = handle.store.quads_for_pattern(None, n(RDF.type), ox.NamedNode(subtype), RETRIEVAL)
        questions.update((q.subject, name) for q in typed)
    analyses: dict[object, str] = {}
    if any(q.object == OLD_LABELS[1] for q in old):
        for q in handle.store.quads_for_pattern(None, n(TG.action), None, RETRIEVAL):
            if isinstance(q.object, ox.Literal):
                analyses.setdefault(q.subject, analysis_label(q.object.value))
    out = []
    for q in old:
        renamed = (questions if q.object == OLD_LABELS[0] else analyses).get(q.subject)
        if renamed:
            out.append((q, ox.Quad(q.subject, q.predicate, ox.Literal(renamed), RETRIEVAL)))
    return out


def labels_missing(handle: Handle) -> list[ox.Quad]:
    old = _old_labels(handle)
    if not old:  # a migrated collection: one read per old label
        return []
    return [new for _, new in _relabelled(handle, old) if new not in handle.store]


def labels_replaced(handle: Handle) -> list[ox.Quad]:
    old = _old_labels(handle)
    if not old:
        return []
    return [q for q, new in _relabelled(handle, old) if new in handle.store]


def labels_present(handle: Handle, root: str) -> Iterable[ox.Quad]:
    return ()  # a replacement is signed as a new entry, not as facts added
