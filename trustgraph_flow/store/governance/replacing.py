"""What a migration step that replaces quads needs (``migrate_steps.Step``): from the pairs
(old quad, the quad replacing it) found in a graph, the new quads not yet in the store and the
old ones whose replacement is in (removed only then, so a step killed half way resumes); and
the pairs of a rename of nodes (``renames``)."""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import RDF
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.views.lookup import n

Quads = Callable[[Handle], list[ox.Quad]]
Pairs = Callable[[Handle, ox.NamedNode], list[tuple[ox.Quad, ox.Quad]]]


def replacement(pairs: Pairs, graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """``(missing, replaced)`` of the step replacing ``pairs`` in ``graph``."""

    def missing(handle: Handle) -> list[ox.Quad]:
        return [new for _, new in pairs(handle, graph) if new not in handle.store]

    def replaced(handle: Handle) -> list[ox.Quad]:
        return [q for q, new in pairs(handle, graph) if new in handle.store]

    return missing, replaced


def renames(cls: str, renamed: Callable[[object], object]) -> Pairs:
    """The pairs renaming each node typed ``cls`` that ``renamed`` changes, wherever it is
    named in the graph: a read for the typed nodes, then two per node renamed."""

    def pairs(handle: Handle, graph: ox.NamedNode) -> list[tuple[ox.Quad, ox.Quad]]:
        typed = handle.store.quads_for_pattern(None, n(RDF.type), ox.NamedNode(cls), graph)
        out = []
        for node in [q.subject for q in typed if renamed(q.subject) != q.subject]:
            # the links to it first, its own type last: a removal killed half way leaves the
            # node still found by its type, so the next start finishes it
            own = list(handle.store.quads_for_pattern(node, None, None, graph))
            about = [
                *handle.store.quads_for_pattern(None, None, node, graph),
                *sorted(own, key=lambda q: q.predicate == n(RDF.type)),
            ]
            for q in about:
                new = ox.Quad(renamed(q.subject), q.predicate, renamed(q.object), graph)  # type: ignore[arg-type]
                out.append((q, new))
        return out

    return pairs
