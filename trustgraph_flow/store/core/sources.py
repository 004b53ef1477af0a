"""Which chunk, page and document a trace's link rests on, read from the store's ``urn:graph:source``."""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import Chain, Use


class SourceResolver:
    """Resolves links against one store's ``urn:graph:source`` (chunk → page → document)."""

    def __init__(self, store: QuadStore) -> None:
        self.store = store
        self._chains: dict[
            str, Chain
        ] = {}  # per batch; a plain dict: no cycle keeps the store alive
        self._source = named("urn:graph:source")

    def chain(self, chunk: str) -> Chain:
        found = self._chains.get(chunk)
        if found is None:
            found = self._chains[chunk] = self._chain(chunk)
        return found

    def __call__(self, use: Use) -> list[Chain]:
        if use.kind == "chunk":
            return [self.chain(use.target)]
        chains: list[Chain] = []
        if use.edge is not None:
            for q in self.store.quads_for_pattern(
                None, named(TG.contains.i), use.edge, self._source
            ):
                for chunk in self._parents(q.subject):
                    chains.append(self.chain(chunk))
        return list(dict.fromkeys(chains)) or [("", None, None)]

    def _parents(self, node: object) -> list[str]:
        if not isinstance(node, ox.NamedNode):
            return []
        return [
            q.object.value
            for q in self.store.quads_for_pattern(
                node, named(PROV.wasDerivedFrom.i), None, self._source
            )
            if isinstance(q.object, ox.NamedNode)
        ]

    def _chain(self, chunk: str) -> Chain:
        """(chunk, page, document): a chunk's parent is a page (then its parent the document) or the document."""
        try:
            parents = self._parents(ox.NamedNode(chunk))
        except ValueError:
            return (chunk, None, None)
        if not parents:
            return (chunk, None, None)
        parent = parents[0]
        is_page = any(
            True
            for _ in self.store.quads_for_pattern(
                named(parent),
                named("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                named(TG.Page.i),
                self._source,
            )
        )
        if not is_page:
            return (chunk, None, parent)
        up = self._parents(named(parent))
        return (chunk, parent, up[0] if up else None)
