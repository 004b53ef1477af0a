"""What a migration step that replaces quads needs (``migrate_steps.Step``): from the pairs
(old quad, the quad replacing it) found in a graph, the new quads not yet in the store and the
old ones whose replacement is in (removed only then, so a step killed half way resumes)."""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox

from trustgraph_flow.store.core.backend import Handle

Quads = Callable[[Handle], list[ox.Quad]]
Pairs = Callable[[Handle, ox.NamedNode], list[tuple[ox.Quad, ox.Quad]]]


def replacement(pairs: Pairs, graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """``(missing, replaced)`` of the step replacing ``pairs`` in ``graph``."""

    def missing(handle: Handle) -> list[ox.Quad]:
        return [new for _, new in pairs(handle, graph) if new not in handle.store]

    def replaced(handle: Handle) -> list[ox.Quad]:
        return [q for q, new in pairs(handle, graph) if new in handle.store]

    return missing, replaced
