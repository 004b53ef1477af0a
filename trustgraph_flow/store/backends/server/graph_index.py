"""The trace index as triples in a named graph of the store itself (the server backend's index).

The same facts as the sqlite index (``embedded/trace_index.py``), written by the writer in one
``INSERT DATA`` per batch — a set, so redelivery and racing replicas change nothing:

    <root>   ix:q true ; ix:kind "agent" ; ix:question "…" ; ix:time "…" ; ix:sort "<UTC key>" ;
             ix:parent <analysis> ; ix:parentRoot <root> ; ix:complete true ; ix:failed 1 .
    <entity> ix:root <root> .
    <urn:tg:ix:link:<sha256>> ix:entity <e> ; ix:target "…" ; ix:kind "edge" ; ix:lroot <root> ;
             ix:chunk "…" ; ix:page "…" ; ix:doc "…" .
    <root>   ix:cites <focus edge or chunk> .   (a link is cited when its trace cites its
             entity, an edge, or its target, a chunk: read, never marked)

**The newest-N list without sorting the whole set.** SPARQL stores answer ``ORDER BY
DESC(?t) LIMIT 50`` by sorting every trace. Instead each question is filed in time
buckets, the prefixes of its sort key at four lengths (day, hour, minute, second):

    <root> ix:b10 "2026-12-01" ; ix:b13 "2026-12-01T09" ; ix:b16 "…T09:45" ; ix:b19 "…T09:45:12" .
    <urn:tg:ix:b0:> ix:child "2026-12-01" .   <urn:tg:ix:b10:2026-12-01> ix:child "2026-12-01T09" .  …

The list walks buckets newest first: a bucket with at most ``PROBE`` members (a
``LIMIT``-ed equality lookup, which stops early) is read whole and sorted here; a bigger
one is walked through its children. Each step is one equality lookup, so the cost
depends on how many traces share the newest buckets, not on how many there are.

A sub-trace's top-level trace is followed up its ``ix:parentRoot`` chain when read (a
parent indexed after its sub-trace needs no rewrite of the links).
"""

from __future__ import annotations

from collections.abc import Iterable, Set

import pyoxigraph as ox

from trustgraph_flow.store.backends.server.graph_list import _BUCKET, LEVELS, GraphList, bucket_node
from trustgraph_flow.store.backends.server.graph_reads import _P, _row, link_node
from trustgraph_flow.store.backends.trace_facts import facts
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import Resolver, TraceRow
from trustgraph_flow.store.sparql.client import term

_TRUE = ox.Literal("true", datatype=named("http://www.w3.org/2001/XMLSchema#boolean"))


class LocalSparql:
    """The ``Sparql`` of an embedded pyoxigraph store (benchmarks and tests of the index on it)."""

    def __init__(self, store: ox.Store) -> None:
        self.store = store

    def rows(self, query: str) -> list[ox.QuerySolution]:
        result = self.store.query(query)
        assert isinstance(result, ox.QuerySolutions)
        return list(result)

    def ask(self, query: str) -> bool:
        return bool(self.store.query(query))

    def update(self, text: str) -> None:
        self.store.update(text)


class GraphIndex(GraphList):
    """The trace index of one collection, kept in the graph ``graph`` of its store: written
    here, listed by ``GraphList`` (``graph_list.py``), read by ``GraphReads`` (``graph_reads.py``)."""

    # --- writing -----------------------------------------------------------------------

    def record(self, quads: Iterable[ox.Quad], resolve: Resolver | None = None) -> Set[str]:
        """Index the trace facts of a batch's ``urn:graph:retrieval`` quads in one update
        (idempotent); the trace roots they touched."""
        found = facts(quads)
        rows, entities, uses = found.rows, found.entities, found.uses
        if not rows:
            return set()
        out: list[tuple[ox.NamedNode, ox.NamedNode, ox.NamedNode | ox.Literal]] = []
        for root, row in rows.items():
            r = named(root)
            out += self._row_triples(r, row)
        out += [(named(e), _P["root"], named(root)) for e, root in entities.items()]
        for u in uses:
            chains = (
                resolve(u) if resolve else [(u.target if u.kind == "chunk" else "", None, None)]
            )
            for chunk, page, doc in chains:
                node = link_node(u.entity, u.target, chunk)
                out += [
                    (node, _P["entity"], named(u.entity)),
                    (node, _P["target"], ox.Literal(u.target)),
                    (node, _P["lkind"], ox.Literal(u.kind)),
                    (node, _P["lroot"], named(u.root)),
                    (node, _P["chunk"], ox.Literal(chunk)),
                ]
                out += [(node, _P["page"], ox.Literal(page))] if page else []
                out += [(node, _P["doc"], ox.Literal(doc))] if doc else []
        # What an answer cites, as a fact of its trace: a link is cited when read if its
        # trace cites its entity (an edge) or its target (a chunk), so a synthesis written
        # before the focus it cites (another replica, a redelivery) still marks it.
        out += [(named(root), _P["cites"], named(uri)) for root, uri in found.cites]
        lines = " ".join(f"{term(s)} {term(p)} {term(o)} ." for s, p, o in out)
        self.sparql.update(f"INSERT DATA {{ GRAPH {self._g} {{ {lines} }} }}")
        return rows.keys()

    def _row_triples(
        self, r: ox.NamedNode, row: dict[str, object]
    ) -> list[tuple[ox.NamedNode, ox.NamedNode, ox.NamedNode | ox.Literal]]:
        out: list[tuple[ox.NamedNode, ox.NamedNode, ox.NamedNode | ox.Literal]] = []
        for field, pred in (("kind", "kind"), ("question", "question"), ("time", "time")):
            if row[field] is not None:
                out.append((r, _P[pred], ox.Literal(str(row[field]))))
        if row["parent"] is not None:
            out.append((r, _P["parent"], named(str(row["parent"]))))
            out.append((r, _P["parentRoot"], named(str(row["parent_root"]))))
        if row["is_question"]:
            out.append((r, _P["q"], _TRUE))
        if row["complete"]:
            out.append((r, _P["complete"], _TRUE))
        if row["failed"]:
            out.append((r, _P["failed"], ox.Literal(str(row["failed"]))))
        key = row["sort_time"]
        if isinstance(key, str):
            out.append((r, _P["sort"], ox.Literal(key)))
        if isinstance(key, str) or row["is_question"]:
            # A question without a time is filed under "" (listed last, as in sqlite); one whose
            # time comes later is filed again under it, and read only from there (``_sorted``).
            key = key if isinstance(key, str) else ""
            parent = bucket_node(0, "")
            for level in LEVELS:
                prefix = key[:level]
                out.append((r, _BUCKET[level], ox.Literal(prefix)))
                out.append((parent, _P["child"], ox.Literal(prefix)))
                parent = bucket_node(level, prefix)
        return out

    def forget(self, roots: Iterable[str]) -> None:
        """Drop traces: their rows, entity maps and links."""
        ops = []
        for root in roots:
            r = term(named(root))
            ops += [
                f"DELETE WHERE {{ GRAPH {self._g} {{ {r} ?p ?o }} }}",
                f"DELETE WHERE {{ GRAPH {self._g} {{ ?e {term(_P['root'])} {r} }} }}",
                f"DELETE WHERE {{ GRAPH {self._g} {{ ?l {term(_P['lroot'])} {r} ; ?p ?o }} }}",
            ]
        if ops:
            self.sparql.update(" ;\n".join(ops))

    def forget_entities(self, uris: Iterable[str]) -> None:
        ops = [f"DELETE WHERE {{ GRAPH {self._g} {{ {term(named(u))} {term(_P['root'])} ?r }} }}"
               for u in uris]  # fmt: skip
        if ops:
            self.sparql.update(" ;\n".join(ops))

    def backfill(self, store: QuadStore) -> None:
        """Nothing to do: this index never existed without its links."""

    def unrecord(self, quads: Iterable[ox.Quad]) -> None:
        """Nothing to do: no read model of facts here (read from the store)."""

    def close(self) -> None:
        pass

    def entities(self, root: str) -> list[str]:
        found = self._select(f"?e {term(_P['root'])} {term(named(root))}")
        return [sol["e"].value for sol in found]

    def step_facts(self, root: str, uris: list[str]) -> None:
        """No agent-step read model here: the steps are read from the store."""
        return None

    def step_parents(self, root: str) -> None:
        """No agent-step read model here: what steps derive from is read from the store."""
        return None

    def rag_facts(self, roots: list[str]) -> None:
        """No RAG-trace read model here: sub-traces are read from the store."""
        return None

    def subtraces(self, root: str) -> list[TraceRow]:
        """Traces called from any step of ``root``, oldest first."""
        found = self.facts_of(
            sol["r"].value
            for sol in self._select(f"?r {term(_P['parentRoot'])} {term(named(root))}")
        )
        rows = {r: _row(r, f) for r, f in found.items() if "q" in f}
        keys = {r: f.get("sort", "") for r, f in found.items()}
        return sorted(rows.values(), key=lambda r: (keys.get(r.id, ""), r.id))
