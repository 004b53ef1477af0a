"""The store backend interface: what the writer, queries and explain views need of a store.

Two backends implement it, chosen by the store setting ``store_uri``:

- embedded (empty ``store_uri``, the default): ``backends.embedded.stores.Stores``, one pyoxigraph store and
  one sqlite trace index per (user, collection) under the data directory;
- server (``store_uri`` = a SPARQL 1.1 Protocol endpoint, e.g. ``oxigraph serve``, Jena
  Fuseki 6): ``backends.server.remote.RemoteStores``, every collection in named graphs of that server and
  the trace index in a named graph beside them, so the processor keeps no state of its own.

A ``Handle`` is one collection's ``QuadStore`` (the subset of ``pyoxigraph.Store`` the code
uses, in that collection's logical graph names) and its ``Index`` (the trace list, entity
map and lineage links).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Set
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeGuard, runtime_checkable

import pyoxigraph as ox

if TYPE_CHECKING:
    from trustgraph_base.schema.store import SparqlQueryResponse
    from trustgraph_flow.store.core.rows import LinkRow, Resolver, TraceFilter, TraceRow


StepFacts = dict[str, dict[str, list[str]]]  # agent step URI → predicate IRI → values
# A RAG trace's fact as its view reads it: a literal as its text, any other object a term
RagValue = ox.NamedNode | ox.BlankNode | ox.Triple | str
RagFacts = dict[str, dict[str, dict[str, list[RagValue]]]]  # root → entity → predicate → values


class QuadStore(Protocol):
    """The part of ``pyoxigraph.Store`` the store code uses (``ox.Store`` itself is one)."""

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | ox.Triple | None,
        predicate: ox.NamedNode | None,
        object: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None,
        graph_name: ox.NamedNode | ox.BlankNode | ox.DefaultGraph | None = None,
    ) -> Iterator[ox.Quad]: ...

    def extend(self, quads: Iterable[ox.Quad]) -> None: ...

    def __contains__(self, quad: ox.Quad) -> bool: ...

    def remove(self, quad: ox.Quad) -> None: ...

    def load(self, input: str, format: ox.RdfFormat) -> None: ...

    def flush(self) -> None: ...


@runtime_checkable
class BatchRemover(Protocol):
    """A store that removes many quads in one request (the server backend's ``RemoteStore``)."""

    def remove_all(self, quads: Iterable[ox.Quad]) -> None: ...


@runtime_checkable
class SparqlEndpoint(Protocol):
    """A store that runs a caller's (checked) SPARQL itself (the server backend's ``RemoteStore``)."""

    def sparql(
        self, text: str, form: str, timeout: float, dataset: tuple[list[str], list[str]] | None
    ) -> SparqlQueryResponse: ...


def remove_quads(store: QuadStore, quads: list[ox.Quad]) -> None:
    """Remove the quads: one request on a server, one by one on a pyoxigraph store."""
    if isinstance(store, BatchRemover):
        store.remove_all(quads)
        return
    for q in quads:
        store.remove(q)


Subject = ox.NamedNode | ox.BlankNode | ox.Triple
Graph = ox.NamedNode | ox.BlankNode | ox.DefaultGraph


@runtime_checkable
class BatchReader(Protocol):
    """A store that answers many bound lookups in one request (the server backend's ``RemoteStore``).

    Each returns the quads of every one of ``nodes`` in ``graph_name`` (``predicate``: that
    predicate only), in one round trip per few hundred nodes rather than one per node.
    """

    def quads_for_subjects(
        self, nodes: Sequence[Subject], predicate: ox.NamedNode | None, graph_name: Graph
    ) -> Iterator[ox.Quad]: ...

    def quads_for_objects(
        self,
        nodes: Sequence[ox.NamedNode | ox.Literal | ox.Triple],
        predicate: ox.NamedNode,
        graph_name: Graph,
    ) -> Iterator[ox.Quad]: ...


def batched(store: object) -> TypeGuard[BatchReader]:
    """``isinstance(store, BatchReader)``, answered once per class: the protocol check walks
    the protocol's members each time (~50 µs), and a long trace's view asks per sub-trace."""
    cls = type(store)
    found = _BATCHED.get(cls)
    if found is None:
        found = _BATCHED[cls] = isinstance(store, BatchReader)
    return found


_BATCHED: dict[type, bool] = {}


def subject_quads(
    store: QuadStore, nodes: Iterable[Subject], graph: Graph, predicate: ox.NamedNode | None = None
) -> Iterator[ox.Quad]:
    """Every quad ``(s, predicate, *, graph)`` for each ``s`` of ``nodes``: batched on a server,
    one pattern lookup each on a pyoxigraph store (where a lookup is a function call)."""
    nodes = list(dict.fromkeys(nodes))
    if batched(store):
        yield from store.quads_for_subjects(nodes, predicate, graph)
        return
    for s in nodes:
        yield from store.quads_for_pattern(s, predicate, None, graph)


def subject_groups(store: QuadStore, nodes: Iterable[Subject], graph: Graph) -> list[list[ox.Quad]]:
    """``subject_quads`` in one list per subject (``fingerprint_groups`` hashes each whole)."""
    nodes = list(dict.fromkeys(nodes))
    if not batched(store):
        return [list(store.quads_for_pattern(s, None, None, graph)) for s in nodes]
    found: dict[object, list[ox.Quad]] = {}
    for q in store.quads_for_subjects(nodes, None, graph):
        found.setdefault(q.subject, []).append(q)
    return list(found.values())


def object_quads(
    store: QuadStore,
    nodes: Iterable[ox.NamedNode | ox.Literal | ox.Triple],
    predicate: ox.NamedNode,
    graph: Graph,
) -> Iterator[ox.Quad]:
    """Every quad ``(*, predicate, o, graph)`` for each ``o`` of ``nodes`` (batched on a server)."""
    nodes = list(dict.fromkeys(nodes))
    if batched(store):
        yield from store.quads_for_objects(nodes, predicate, graph)
        return
    for o in nodes:
        yield from store.quads_for_pattern(None, predicate, o, graph)


class Index(Protocol):
    """One collection's trace index (``embedded.trace_index.TraceIndex``, ``server.graph_index.GraphIndex``)."""

    def record(self, quads: Iterable[ox.Quad], resolve: Resolver | None = None) -> Set[str]:
        """Index a batch's retrieval quads; the trace roots they touched (what the seal signs)."""
        ...

    def unrecord(self, quads: Iterable[ox.Quad]) -> None:
        """Drop what a read model kept of quads removed from the store (none kept: nothing)."""
        ...

    def newest(self, limit: int) -> list[TraceRow]: ...
    def page(
        self, limit: int, flt: TraceFilter, after: tuple[str, str] | None = None
    ) -> tuple[list[TraceRow], tuple[str, str] | None]: ...
    def get(self, trace_id: str) -> TraceRow | None: ...
    def rows(self, roots: Iterable[str]) -> dict[str, TraceRow]: ...
    def entities(self, root: str) -> list[str]: ...
    def subtraces(self, root: str) -> list[TraceRow]: ...
    def step_facts(self, root: str, uris: list[str]) -> StepFacts | None:
        """The shown facts of these agent steps from a read model kept by the index, or
        None when it keeps none (then they are read from the store)."""
        ...

    def step_parents(self, root: str) -> dict[str, list[str]] | None:
        """What each agent step and call of ``root`` derives from, from a read model kept by
        the index, or None when it keeps none (then read from the store)."""
        ...

    def rag_facts(self, roots: list[str]) -> RagFacts | None:
        """The facts of GraphRAG and DocumentRAG traces among ``roots`` from a read model
        kept by the index (root → entity → predicate → values, every entity of each), or
        None when it keeps none (then they are read from the store)."""
        ...

    def forget(self, roots: Iterable[str]) -> None: ...
    def forget_entities(self, uris: Iterable[str]) -> None:
        """Drop entities from their traces' entity maps (a migration's renamed entities)."""
        ...

    def expired(self, before: str) -> list[str]: ...
    def backfill(self, store: QuadStore) -> None: ...
    def has_link(self, target: str) -> bool: ...
    def link_tops(self, kind: str, key: str, limit: int) -> list[str]: ...
    def link_paths(self, top: str, kind: str, key: str) -> list[LinkRow]: ...
    def link_paths_of(self, tops: list[str], kind: str, key: str) -> dict[str, list[LinkRow]]: ...
    def count_users(self, kind: str, key: str) -> int: ...
    def document_links(self, doc: str) -> list[tuple[str, str, str, str]]: ...
    def forget_document(self, doc: str) -> None: ...
    def close(self) -> None: ...


@dataclass(eq=False)
class Handle:
    """An open collection: its store and trace index; ``users`` counts the leases held on it."""

    key: tuple[str, str]
    path: Path | None  # its directory (embedded), None on a server
    store: QuadStore
    index: Index
    users: int = 0
    retired: bool = False  # evicted or dropped while leased: closed by the last release
    dropped: bool = False  # its directory is gone: never revived

    def close(self) -> None:
        self.store.flush()
        self.index.close()


class Backend(Protocol):
    """Every collection's store: opened, leased, listed and dropped."""

    def lease(
        self, user: str, collection: str, *, create: bool = False, as_empty: bool = False
    ) -> AbstractContextManager[Handle | None]:
        """The collection's handle for the ``with`` block; None when absent and not ``create``,
        except that with ``as_empty`` (a reader to whom an absent collection is an empty one) a
        backend may lease an empty handle instead where telling costs a round trip."""
        ...

    def get(self, user: str, collection: str, *, create: bool = False) -> Handle | None: ...

    def scopes(self) -> list[tuple[str, str]]: ...

    def reached(self) -> tuple[list[tuple[str, str]], list[str]]:
        """``scopes`` of the servers that answer, and a line naming each that does not."""
        ...

    def drop(self, user: str, collection: str) -> bool: ...

    def close(self) -> None: ...
