"""Link-following views in a few requests: a ``QuadStore`` answering lookups from quads fetched in batches.

The views (a trace's provenance, the document hierarchy, lineage paths) are written as
one pattern lookup per link followed. On a SPARQL server each lookup is an HTTP round
trip, so a view that follows a thousand links made a thousand requests. Wrapped in a
``Prefetch``, the view first asks for a whole level at once — ``subjects`` (every quad of
these subjects in a graph, optionally of one predicate) or ``objects`` (every ``?s p o``
of these objects) — in one ``VALUES`` query per few hundred nodes (``backend.subject_quads``),
then runs unchanged: its lookups of those nodes are answered here, anything else goes to
the store. On an embedded pyoxigraph store a lookup is a function call, so the fetches are
skipped and every lookup goes straight to the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyoxigraph as ox

from trustgraph_flow.store.core.backend import (
    Graph,
    QuadStore,
    Subject,
    batched,
    object_quads,
    subject_quads,
)

_Key = tuple[object, ox.NamedNode | None, Graph]


class Prefetch:
    """A read-only view of ``store`` that answers the lookups fetched ahead of it."""

    def __init__(self, store: QuadStore) -> None:
        self.store = store
        self.batched = batched(store)
        self._by_s: dict[_Key, list[ox.Quad]] = {}
        self._by_o: dict[_Key, list[ox.Quad]] = {}

    def subjects(
        self, nodes: Iterable[object], graph: Graph, predicate: ox.NamedNode | None = None
    ) -> None:
        """Fetch every quad ``(s, predicate or any, *, graph)`` of these subjects (others ignored)."""
        if not self.batched:
            return
        wanted = [
            s
            for s in dict.fromkeys(nodes)
            if isinstance(s, (ox.NamedNode, ox.BlankNode, ox.Triple))
            and (s, None, graph) not in self._by_s
            and (s, predicate, graph) not in self._by_s
        ]
        found: dict[_Key, list[ox.Quad]] = {(s, predicate, graph): [] for s in wanted}
        for q in subject_quads(self.store, wanted, graph, predicate):
            found.setdefault((q.subject, predicate, graph), []).append(q)
        self._by_s.update(found)

    def objects(self, nodes: Iterable[object], predicate: ox.NamedNode, graph: Graph) -> None:
        """Fetch every quad ``(*, predicate, o, graph)`` of these objects."""
        if not self.batched:
            return
        wanted = [
            o
            for o in dict.fromkeys(nodes)
            if isinstance(o, (ox.NamedNode, ox.Literal, ox.Triple))
            and (o, predicate, graph) not in self._by_o
        ]
        found: dict[_Key, list[ox.Quad]] = {(o, predicate, graph): [] for o in wanted}
        for q in object_quads(self.store, wanted, predicate, graph):
            found.setdefault((q.object, predicate, graph), []).append(q)
        self._by_o.update(found)

    def quads_for_pattern(
        self,
        subject: Subject | None,
        predicate: ox.NamedNode | None,
        object: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None,
        graph_name: Graph | None = None,
    ) -> Iterator[ox.Quad]:
        if graph_name is not None and subject is not None:
            for key in ((subject, None, graph_name), (subject, predicate, graph_name)):
                if key in self._by_s:
                    return iter(
                        [
                            q
                            for q in self._by_s[key]
                            if (predicate is None or q.predicate == predicate)
                            and (object is None or q.object == object)
                        ]
                    )
        if graph_name is not None and subject is None and predicate is not None:
            if object is not None and (object, predicate, graph_name) in self._by_o:
                return iter(self._by_o[(object, predicate, graph_name)])
        return self.store.quads_for_pattern(subject, predicate, object, graph_name)

    # The rest of QuadStore: a view reads only; a write goes to the store and drops what was fetched.
    def extend(self, quads: Iterable[ox.Quad]) -> None:
        self._forget()
        self.store.extend(quads)

    def __contains__(self, quad: ox.Quad) -> bool:
        found = self.quads_for_pattern(quad.subject, quad.predicate, quad.object, quad.graph_name)
        return any(True for _ in found)

    def remove(self, quad: ox.Quad) -> None:
        self._forget()
        self.store.remove(quad)

    def load(self, input: str, format: ox.RdfFormat) -> None:
        self._forget()
        self.store.load(input, format)

    def _forget(self) -> None:
        self._by_s.clear()
        self._by_o.clear()

    def flush(self) -> None:
        self.store.flush()
