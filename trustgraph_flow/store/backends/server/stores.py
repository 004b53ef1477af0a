"""The server backend's ``Backend``: every collection a scope of one SPARQL server, leased as a
handle made per lease (nothing cached, so replicas may serve one server side by side)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from trustgraph_flow.store.backends.server.graph_index import GraphIndex
from trustgraph_flow.store.backends.server.remote import RemoteStore
from trustgraph_flow.store.backends.server.scope import (
    _COLLECTION,
    _USER,
    REGISTRY,
    Scope,
    scope_iri,
)
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.sparql.client import SparqlServer, StoreTimeout, literal, term
from trustgraph_flow.store.sparql.stalls import PROBE, Stalls

log = logging.getLogger(__name__)


class RemoteStores:
    """The ``Backend`` of a SPARQL server: a handle is made per lease, nothing is cached.
    ``stalls``: its requests fail at once while the server hangs (``sparql/stalls.py``; None
    for a shard's, whose stalls the sharded backend keeps by the shard's name)."""

    def __init__(self, server: SparqlServer, stalls: Stalls | None = None) -> None:
        self.server = server
        self.stalls = stalls

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Requests to the server: failed at once while it is stalled, stalling it when one
        times out."""
        if self.stalls is None:
            yield
            return
        self.stalls.check("")
        try:
            yield
        except StoreTimeout as exc:
            self.stalls.timed_out("", exc)
            raise

    def handle(self, user: str, collection: str, *, register: bool = False) -> Handle:
        scope = Scope(user, collection)
        store = RemoteStore(self.server, scope, register=register)
        return Handle((user, collection), None, store, GraphIndex(self.server, scope.index))

    def exists(self, user: str, collection: str) -> bool:
        return self.server.ask(
            f"ASK {{ GRAPH {term(REGISTRY)} {{ {term(named(scope_iri(user, collection)))} ?p ?o }} }}"
        )

    @contextmanager
    def lease(
        self, user: str, collection: str, *, create: bool = False, as_empty: bool = False
    ) -> Iterator[Handle | None]:
        """A handle on the collection's graphs; None when it is not registered, unless
        ``as_empty``: then no registry lookup (a request per lease), the graphs of a collection
        never written are empty and read as such (nothing is written through a read)."""
        with self.answering():
            if not create and not as_empty and not self.exists(user, collection):
                yield None
                return
            yield self.handle(user, collection, register=create)

    def get(self, user: str, collection: str, *, create: bool = False) -> Handle | None:
        with self.lease(user, collection, create=create) as handle:
            return handle

    def reached(self) -> tuple[list[tuple[str, str]], list[str]]:
        return self.scopes(), []  # one store: it answers or the caller is told

    def scopes(self) -> list[tuple[str, str]]:
        with self.answering():
            return self._scopes()

    def _scopes(self) -> list[tuple[str, str]]:
        rows = self.server.rows(
            f"SELECT ?u ?c WHERE {{ GRAPH {term(REGISTRY)} {{ ?s {term(_USER)} ?u ; {term(_COLLECTION)} ?c }} }}"
        )
        return sorted({(r["u"].value, r["c"].value) for r in rows})

    def drop(self, user: str, collection: str) -> bool:
        """Drop every graph of the collection and its registry entry; False when there was none."""
        with self.answering():
            return self._drop(user, collection)

    def _drop(self, user: str, collection: str) -> bool:
        scope = Scope(user, collection)
        if not self.exists(user, collection):
            return False
        rows = self.server.rows(
            f"SELECT ?g WHERE {{ GRAPH ?g {{}} FILTER(STRSTARTS(STR(?g), {literal(scope.iri + ':')})) }}"
        )
        ops = [f"DROP SILENT GRAPH {term(r['g'])}" for r in rows]
        ops.append(
            f"DELETE WHERE {{ GRAPH {term(REGISTRY)} {{ {term(named(scope.iri))} ?p ?o }} }}"
        )
        self.server.update(" ;\n".join(ops))
        return True

    def close(self) -> None:
        if self.stalls is not None:
            self.stalls.close()
        self.server.close()


def open_server(uri: str, timeout: float) -> RemoteStores:
    """The server backend for ``store_uri``, once the server answers."""
    server = SparqlServer(uri, timeout)
    server.wait_ready()
    log.info("store on the SPARQL server %s", uri)
    return RemoteStores(server, Stalls(lambda _: server.select("ASK {}", timeout=PROBE)))
