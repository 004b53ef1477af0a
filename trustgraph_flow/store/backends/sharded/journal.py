"""A collection's handle that keeps a journal of what it wrote, so that the same writes can be
made again on the shard the collection is moving (or has just moved) to.

Every write of the store goes through a handle's store (``extend``, ``remove_all``) or its
index (``record``, ``forget``, ``forget_document``, ``backfill``); reads pass straight to the
shard the collection is read from. Replaying the journal on another shard's handle makes the
same calls there: each is a set operation (added quads, removed quads, index facts), so a
write that reached a shard twice, by the journal and by the move's copy, is there once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence, Set

import pyoxigraph as ox

from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_flow.store.backends.server.remote import RemoteStore
from trustgraph_flow.store.core.backend import (
    Graph,
    Handle,
    Index,
    QuadStore,
    RagFacts,
    StepFacts,
    Subject,
    remove_quads,
)
from trustgraph_flow.store.core.rows import LinkRow, Resolver, TraceFilter, TraceRow

Op = Callable[[Handle], object]  # what it returns is not used


class JournalStore:
    """A shard's ``RemoteStore`` for one lease, its writes kept in ``ops``."""

    def __init__(self, inner: RemoteStore, ops: list[Op]) -> None:
        self.inner, self.ops = inner, ops

    def quads_for_pattern(
        self,
        subject: Subject | None,
        predicate: ox.NamedNode | None,
        object: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None,
        graph_name: Graph | None = None,
    ) -> Iterator[ox.Quad]:
        return self.inner.quads_for_pattern(subject, predicate, object, graph_name)

    def quads_for_subjects(
        self, nodes: Sequence[Subject], predicate: ox.NamedNode | None, graph_name: Graph
    ) -> Iterator[ox.Quad]:
        return self.inner.quads_for_subjects(nodes, predicate, graph_name)

    def quads_for_objects(
        self,
        nodes: Sequence[ox.NamedNode | ox.Literal | ox.Triple],
        predicate: ox.NamedNode,
        graph_name: Graph,
    ) -> Iterator[ox.Quad]:
        return self.inner.quads_for_objects(nodes, predicate, graph_name)

    def __contains__(self, quad: ox.Quad) -> bool:
        return quad in self.inner

    def sparql(
        self,
        text: str,
        form: str,
        timeout: float,
        dataset: tuple[list[str], list[str]] | None = None,
    ) -> SparqlQueryResponse:
        return self.inner.sparql(text, form, timeout, dataset)

    def graphs(self) -> list[ox.NamedNode]:
        return self.inner.graphs()

    def flush(self) -> None:
        pass

    def extend(self, quads: Iterable[ox.Quad]) -> None:
        quads = list(quads)
        self.inner.extend(quads)
        self.ops.append(lambda h: h.store.extend(quads))

    def load(self, input: str, format: ox.RdfFormat) -> None:
        self.extend(ox.parse(input, format))

    def remove(self, quad: ox.Quad) -> None:
        self.remove_all([quad])

    def remove_all(self, quads: Iterable[ox.Quad]) -> None:
        quads = list(quads)
        self.inner.remove_all(quads)
        self.ops.append(lambda h: remove_quads(h.store, quads))


class JournalIndex:
    """A shard's trace index for one lease, its writes kept in ``ops``."""

    def __init__(self, inner: Index, ops: list[Op]) -> None:
        self.inner, self.ops = inner, ops

    def record(self, quads: Iterable[ox.Quad], resolve: Resolver | None = None) -> Set[str]:
        quads = list(quads)
        roots = self.inner.record(quads, resolve)
        self.ops.append(lambda h: h.index.record(quads, resolve))
        return roots

    def unrecord(self, quads: Iterable[ox.Quad]) -> None:
        quads = list(quads)
        self.inner.unrecord(quads)
        self.ops.append(lambda h: h.index.unrecord(quads))

    def forget(self, roots: Iterable[str]) -> None:
        roots = list(roots)
        self.inner.forget(roots)
        self.ops.append(lambda h: h.index.forget(roots))

    def forget_entities(self, uris: Iterable[str]) -> None:
        uris = list(uris)
        self.inner.forget_entities(uris)
        self.ops.append(lambda h: h.index.forget_entities(uris))

    def forget_document(self, doc: str) -> None:
        self.inner.forget_document(doc)
        self.ops.append(lambda h: h.index.forget_document(doc))

    def backfill(self, store: QuadStore) -> None:
        self.inner.backfill(store)
        self.ops.append(lambda h: h.index.backfill(h.store))

    def newest(self, limit: int) -> list[TraceRow]:
        return self.inner.newest(limit)

    def page(
        self, limit: int, flt: TraceFilter, after: tuple[str, str] | None = None
    ) -> tuple[list[TraceRow], tuple[str, str] | None]:
        return self.inner.page(limit, flt, after)

    def get(self, trace_id: str) -> TraceRow | None:
        return self.inner.get(trace_id)

    def rows(self, roots: Iterable[str]) -> dict[str, TraceRow]:
        return self.inner.rows(roots)

    def entities(self, root: str) -> list[str]:
        return self.inner.entities(root)

    def subtraces(self, root: str) -> list[TraceRow]:
        return self.inner.subtraces(root)

    def step_facts(self, root: str, uris: list[str]) -> StepFacts | None:
        return self.inner.step_facts(root, uris)

    def step_parents(self, root: str) -> dict[str, list[str]] | None:
        return self.inner.step_parents(root)

    def rag_facts(self, roots: list[str]) -> RagFacts | None:
        return self.inner.rag_facts(roots)

    def expired(self, before: str) -> list[str]:
        return self.inner.expired(before)

    def has_link(self, target: str) -> bool:
        return self.inner.has_link(target)

    def link_tops(self, kind: str, key: str, limit: int) -> list[str]:
        return self.inner.link_tops(kind, key, limit)

    def link_paths(self, top: str, kind: str, key: str) -> list[LinkRow]:
        return self.inner.link_paths(top, kind, key)

    def link_paths_of(self, tops: list[str], kind: str, key: str) -> dict[str, list[LinkRow]]:
        return self.inner.link_paths_of(tops, kind, key)

    def count_users(self, kind: str, key: str) -> int:
        return self.inner.count_users(kind, key)

    def document_links(self, doc: str) -> list[tuple[str, str, str, str]]:
        return self.inner.document_links(doc)

    def close(self) -> None:
        self.inner.close()


def journaled(handle: Handle, ops: list[Op]) -> Handle:
    """The shard's handle with its writes kept in ``ops`` (to replay with ``replay``)."""
    assert isinstance(handle.store, RemoteStore)
    return Handle(
        handle.key, None, JournalStore(handle.store, ops), JournalIndex(handle.index, ops)
    )


def replay(ops: list[Op], handle: Handle) -> None:
    """Make the journal's writes again, in order, on another shard's handle."""
    for op in ops:
        op(handle)
