"""The server backend: every collection in named graphs of one SPARQL 1.1 server.

A (user, collection) is a *scope*: ``urn:tg:store:<user>:<collection>`` with both names
percent-encoded (``quote(…, safe="")``: injective, and never a ``:``), so distinct names
give distinct graphs by construction. Its logical graphs are physical named graphs:

    default graph            <scope>:default
    <urn:graph:source> etc.  <scope>:g:urn:graph:source
    the trace index          <scope>:index          (graph_index.py)

and the registry graph ``urn:tg:store:registry`` names each scope's user and collection
(written in the same transaction as every batch, so a collection exists once it has data).
Nothing is kept in the processor: several replicas can serve one server. Writes are
``INSERT DATA`` (a set: replaying or racing the same batch changes nothing); a batch is
one update request, so one transaction.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_flow.store.backends.server.scope import (
    BNODE,
    Scope,
    insert_data,
    rename_graphs,
    skolem,
    unskolem,
)
from trustgraph_flow.store.core.convert import OxGraph, named
from trustgraph_flow.store.sparql.client import (
    SparqlServer,
    StoreRefused,
    StoreUnavailable,
    refused,
    term,
    values,
)

BATCH = (
    1000  # nodes per VALUES block (a window of 500 steps is one): ~50 KB of request, a lookup each
)


class RemoteStore:
    """One collection's ``QuadStore`` on the server, in its logical graph names."""

    def __init__(self, server: SparqlServer, scope: Scope, *, register: bool = False) -> None:
        self.server = server
        self.scope = scope
        self._register = register  # a writer's lease: every write names the collection too

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | ox.Triple | None,
        predicate: ox.NamedNode | None,
        object: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None,
        graph_name: OxGraph | None = None,
    ) -> Iterator[ox.Quad]:
        parts = [
            term(skolem(t)) if t is not None else f"?{v}"
            for t, v in ((subject, "s"), (predicate, "p"), (object, "o"))
        ]
        pattern = " ".join(parts)
        if graph_name is None:
            query = f"SELECT * WHERE {{ GRAPH ?g {{ {pattern} }} {self.scope.filter('g')} }}"
        else:
            query = f"SELECT * WHERE {{ GRAPH {term(self.scope.physical(graph_name))} {{ {pattern} }} }}"
        for row in self.server.rows(query):
            g = self.scope.logical(row["g"]) if graph_name is None else graph_name
            if g is None:
                continue
            yield ox.Quad(
                subject if subject is not None else unskolem(row["s"]),
                predicate if predicate is not None else row["p"],
                object if object is not None else unskolem(row["o"]),
                g,
            )

    def quads_for_subjects(
        self,
        nodes: Sequence[ox.NamedNode | ox.BlankNode | ox.Triple],
        predicate: ox.NamedNode | None,
        graph_name: OxGraph,
    ) -> Iterator[ox.Quad]:
        """The quads of many subjects in one graph: one request per ``BATCH`` of them."""
        g = term(self.scope.physical(graph_name))
        p = term(predicate) if predicate is not None else "?p"
        for i in range(0, len(nodes), BATCH):
            block = values("s", [skolem(s) for s in nodes[i : i + BATCH]])
            for row in self.server.rows(f"SELECT * WHERE {{ GRAPH {g} {{ {block} ?s {p} ?o }} }}"):
                s, o = unskolem(row["s"]), unskolem(row["o"])
                yield ox.Quad(s, predicate if predicate is not None else row["p"], o, graph_name)

    def quads_for_objects(
        self,
        nodes: Sequence[ox.NamedNode | ox.Literal | ox.Triple],
        predicate: ox.NamedNode,
        graph_name: OxGraph,
    ) -> Iterator[ox.Quad]:
        """The quads ``(*, predicate, o)`` of many objects in one graph, ``BATCH`` per request."""
        g = term(self.scope.physical(graph_name))
        for i in range(0, len(nodes), BATCH):
            block = values("o", [skolem(o) for o in nodes[i : i + BATCH]])
            query = f"SELECT * WHERE {{ GRAPH {g} {{ {block} ?s {term(predicate)} ?o }} }}"
            for row in self.server.rows(query):
                yield ox.Quad(unskolem(row["s"]), predicate, unskolem(row["o"]), graph_name)

    def _physical(self, quads: Iterable[ox.Quad]) -> list[ox.Quad]:
        return [
            ox.Quad(
                skolem(q.subject), q.predicate, skolem(q.object), self.scope.physical(q.graph_name)
            )
            for q in quads
        ]

    def extend(self, quads: Iterable[ox.Quad]) -> None:
        """Write the quads in one transaction (and, on a writer's lease, the registry entry)."""
        found = self._physical(quads)
        if self._register:
            found += self.scope.registry()
        if found:
            self.server.update(insert_data(found))

    def load(self, input: str, format: ox.RdfFormat) -> None:
        """Parse here (``SyntaxError`` for a refused term, as pyoxigraph's ``Store.load``), then write."""
        self.extend(ox.parse(input, format))

    def __contains__(self, quad: ox.Quad) -> bool:
        q = self._physical([quad])[0]
        assert isinstance(q.graph_name, ox.NamedNode)
        return self.server.ask(
            f"ASK {{ GRAPH {term(q.graph_name)} {{ {term(q.subject)} {term(q.predicate)} {term(q.object)} }} }}"
        )

    def remove(self, quad: ox.Quad) -> None:
        self.remove_all([quad])

    def remove_all(self, quads: Iterable[ox.Quad]) -> None:
        found = self._physical(quads)
        if found:
            self.server.update(insert_data(found, "DELETE DATA"))

    def flush(self) -> None:
        pass

    def sparql(
        self,
        text: str,
        form: str,
        timeout: float,
        dataset: tuple[list[str], list[str]] | None = None,
    ) -> SparqlQueryResponse:
        """The caller's checked query over this collection only: the protocol's dataset sent
        to the server is the collection's graphs, or those of them ``dataset`` names."""
        from trustgraph_flow.store.sparql.results import respond

        graphs = self.graphs()
        text = rename_graphs(text, {g.value: self.scope.physical(g).value for g in graphs})
        default = [self.scope.default.value]
        names = [self.scope.physical(g).value for g in graphs]
        if dataset is not None:  # an empty list is an empty graph, never the server's all
            default = [self.scope.physical(named(g)).value for g in dataset[0]] or [
                self.scope.empty.value
            ]
            names = [self.scope.physical(named(g)).value for g in dataset[1]] or [
                self.scope.empty.value
            ]
        started = time.monotonic()
        result: bool | list[ox.Triple] | tuple[list[str], list[list[object]]]
        try:
            if form in ("construct", "describe"):
                result = self.server.construct(text, default=default, named=names, timeout=timeout)
            else:
                found = self.server.select(text, default=default, named=names, timeout=timeout)
                result = _plain(found)
                del found  # pyoxigraph results stay on the thread that made them
        except StoreRefused as exc:
            raise refused(exc) from None
        except TimeoutError:
            raise ServiceError(
                ErrorType.TIMEOUT,
                f"the query did not finish within {timeout:g} s and was stopped: narrow it or add a LIMIT",
            ) from None
        except StoreUnavailable as exc:
            raise ServiceError(ErrorType.SPARQL_ERROR, str(exc)) from None
        if isinstance(result, list):
            result = [unskolem(t) for t in result]
        return respond(result, started + timeout, text, form, self.logical)

    def logical(self, node: object) -> object:
        """A result term as the caller wrote it: a graph's logical name, a blank node's label."""
        if isinstance(node, ox.NamedNode) and not node.value.startswith(BNODE):
            g = self.scope.logical(node)
            return g if isinstance(g, ox.NamedNode) else node
        return unskolem(node)

    def graphs(self) -> list[ox.NamedNode]:
        """The collection's logical named graphs."""
        rows = self.server.rows(f"SELECT ?g WHERE {{ GRAPH ?g {{}} {self.scope.filter('g')} }}")
        found = [self.scope.logical(r["g"]) for r in rows]
        return [g for g in found if isinstance(g, ox.NamedNode)]


def _plain(
    found: ox.QuerySolutions | ox.QueryBoolean,
) -> bool | tuple[list[str], list[list[object]]]:
    if isinstance(found, ox.QueryBoolean):
        return bool(found)
    variables = [v.value for v in found.variables]
    return variables, [[sol[i] for i in range(len(variables))] for sol in found]
