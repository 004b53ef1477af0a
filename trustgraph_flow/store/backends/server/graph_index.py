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

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol
from urllib.parse import quote

import pyoxigraph as ox

from trustgraph_flow.store.backends.trace_facts import facts
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import LinkRow, Resolver, TraceFilter, TraceRow
from trustgraph_flow.store.sparql.client import literal, term, values

IX = "urn:tg:ix:"
LEVELS = (10, 13, 16, 19)  # day, hour, minute, second of the sort key
PROBE = 256  # a bucket with at most this many members is read whole
CITED_BATCH = 500  # links whose citations one lookup reads
_TRUE = ox.Literal("true", datatype=named("http://www.w3.org/2001/XMLSchema#boolean"))
_P = {
    name: named(IX + name)
    for name in (
        "q kind question time sort parent parentRoot complete failed root child "
        "entity target lkind lroot chunk page doc cited cites"
    ).split()
}
_FIELDS = ("kind", "question", "time", "sort", "parent", "parentRoot", "complete", "failed", "q")
_FIELD_OF = {_P[f].value: f for f in _FIELDS}


class Sparql(Protocol):
    """Where the index runs its queries: a ``SparqlServer``, or ``LocalSparql`` over a pyoxigraph store."""

    def rows(self, query: str) -> list[ox.QuerySolution]: ...
    def ask(self, query: str) -> bool: ...
    def update(self, text: str) -> None: ...


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


@functools.lru_cache(maxsize=4096)
def bucket_node(level: int, prefix: str) -> ox.NamedNode:
    """The node of a bucket (a batch names the same few buckets many times over)."""
    return named(f"{IX}b{level}:{quote(prefix, safe='')}")


_BUCKET = {level: named(f"{IX}b{level}") for level in LEVELS}  # a question's bucket predicates


def link_node(entity: str, target: str, chunk: str) -> ox.NamedNode:
    digest = hashlib.sha256("\x00".join((entity, target, chunk)).encode()).hexdigest()
    return named(f"{IX}link:{digest}")


class GraphIndex:
    """The trace index of one collection, kept in the graph ``graph`` of its store."""

    def __init__(self, sparql: Sparql, graph: ox.NamedNode) -> None:
        self.sparql = sparql
        self.graph = graph
        self._g = term(graph)

    def _select(self, body: str, head: str = "*", tail: str = "") -> list[ox.QuerySolution]:
        return self.sparql.rows(f"SELECT {head} WHERE {{ GRAPH {self._g} {{ {body} }} }} {tail}")

    # --- writing -----------------------------------------------------------------------

    def record(self, quads: Iterable[ox.Quad], resolve: Resolver | None = None) -> None:
        """Index the trace facts of a batch's ``urn:graph:retrieval`` quads in one update
        (idempotent)."""
        found = facts(quads)
        rows, entities, uses = found.rows, found.entities, found.uses
        if not rows:
            return
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

    def backfill(self, store: QuadStore) -> None:
        """Nothing to do: this index never existed without its links."""

    def close(self) -> None:
        pass

    # --- trace rows --------------------------------------------------------------------

    def facts_of(
        self, roots: Iterable[str], fields: tuple[str, ...] = ()
    ) -> dict[str, dict[str, str]]:
        """Every index fact of each root (only ``fields``, when given), by field (``failed``:
        the highest)."""
        roots = list(dict.fromkeys(roots))
        merged: dict[str, dict[str, str]] = {}
        if not roots:
            return merged
        # One bound lookup per (root, field), never a second VALUES block for the fields (a
        # VALUES ?r × VALUES ?p join ran > 600 s at 1M: planned as a scan): one field is one
        # bound (subject, predicate) lookup per root; several, the root's facts filtered to
        # them (a root has ~13: buckets, citations, …; reading them all for 2,000 roots to
        # follow their parents up was most of a source-usage answer).
        rs = values("r", [named(r) for r in roots])
        if len(fields) == 1:
            (field,) = fields
            for r, o in self._select(f"{rs} ?r {term(_P[field])} ?o", "?r ?o"):
                cur = merged.setdefault(r.value, {})
                if field != "failed" or o.value > cur.get(field, ""):
                    cur[field] = o.value
            return merged
        wanted = ", ".join(term(_P[f]) for f in fields or _FIELDS)
        found = self._select(f"{rs} ?r ?p ?o FILTER(?p IN ({wanted}))", "?r ?p ?o")
        for r, p, o in found:
            name = _FIELD_OF.get(p.value)
            if name is None:
                continue
            cur = merged.setdefault(r.value, {})
            v = o.value
            if name != "failed" or v > cur.get(name, ""):
                cur[name] = v
        return merged

    def rows(self, roots: Iterable[str]) -> dict[str, TraceRow]:
        """The indexed questions among ``roots`` (sub-traces included), by id."""
        return {r: _row(r, f) for r, f in self.facts_of(roots).items() if "q" in f}

    def get(self, trace_id: str) -> TraceRow | None:
        return self.rows([trace_id]).get(trace_id)

    def sort_keys(self, roots: Iterable[str]) -> dict[str, str]:
        found = self.facts_of(roots, ("sort",))
        return {r: f["sort"] for r, f in found.items() if "sort" in f}

    def entities(self, root: str) -> list[str]:
        found = self._select(f"?e {term(_P['root'])} {term(named(root))}")
        return [sol["e"].value for sol in found]

    def step_facts(self, root: str, uris: list[str]) -> None:
        """No agent-step read model here: the steps are read from the store."""
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

    # --- the list ----------------------------------------------------------------------

    def _members(self, level: int, prefix: str) -> list[tuple[str, str]]:
        """(sort key, root) of a bucket's members ("" for the timeless bucket's), in one request.

        Only for a bucket read whole: a join of the bucket pattern with ``ix:sort`` is a lookup
        per member, which a ``LIMIT`` does not cut short (0.45 s for 1M members).
        """
        members = f"?r {term(_BUCKET[level])} {literal(prefix)}"
        if prefix == "":  # no key to read: every member is timeless here (``_top_level``)
            return [("", sol["r"].value) for sol in self._select(members, "?r")]
        found = self._select(f"{members} . ?r {term(_P['sort'])} ?s", "?r ?s")
        return [(s.value, r.value) for r, s in found]

    def _children(self, level: int, prefix: str) -> list[str]:
        found = self._select(f"{term(bucket_node(level, prefix))} {term(_P['child'])} ?c", "?c")
        return [sol["c"].value for sol in found]

    def _probe(self, level: int, prefix: str) -> tuple[bool, list[str]]:
        """Whether a bucket has at most ``PROBE`` members, and its children, in one request.

        The members are counted, not returned (a ``LIMIT``-ed equality lookup, stopped early):
        a big bucket, the common case, costs no rows; a small one is then read by ``_members``.
        """
        members = f"?r {term(_BUCKET[level])} {literal(prefix)}"
        children = f"{term(bucket_node(level, prefix))} {term(_P['child'])} ?c"
        found = self._select(
            f"{{ SELECT (COUNT(*) AS ?n) WHERE {{ {{ SELECT ?r WHERE {{ {members} }} "
            f"LIMIT {PROBE + 1} }} }} }} UNION {{ {children} }}",
            "?n ?c",
        )
        n = next(int(sol["n"].value) for sol in found if sol["n"] is not None)
        return n <= PROBE, [sol["c"].value for sol in found if sol["c"] is not None]

    def _walk(self, newest: bool, skip: Callable[[str], bool]) -> Iterator[tuple[str, str]]:
        """(sort key, root) of every indexed question, newest (or oldest) first; ``skip(prefix)``
        prunes buckets. Sub-traces are in it too: the caller drops them with their facts."""
        stack: list[tuple[int, str]] = [(0, "")]
        while stack:
            level, prefix = stack.pop()
            nxt = LEVELS.index(level) + 1 if level else 0
            if nxt == len(LEVELS):  # a second: read whole
                yield from sorted(self._members(level, prefix), reverse=newest)
                continue
            if level:
                small, found = self._probe(level, prefix)
                if small:
                    yield from sorted(self._members(level, prefix), reverse=newest)
                    continue
            else:
                found = self._children(level, prefix)
            children = [c for c in found if not skip(c)]
            children.sort(reverse=not newest)  # the stack pops the last first: the walk's next
            stack.extend((LEVELS[nxt], c) for c in children)

    def _top_level(self, pairs: list[tuple[str, str]]) -> Iterator[tuple[str, TraceRow]]:
        """The top-level questions among (key, root) pairs, in their order."""
        found = self.facts_of(r for _, r in pairs)
        for key, r in pairs:
            f = found.get(r)
            if f is None or "q" not in f or "parent" in f:
                continue
            if key == "" and f.get("sort"):
                continue  # filed before its time was known: listed under its time
            yield key, _row(r, f)

    def _rows_in_order(
        self, pairs: Iterator[tuple[str, str]], batch: Callable[[], int]
    ) -> Iterator[tuple[str, TraceRow]]:
        """The top-level rows of a walk, their facts fetched ``batch()`` roots at a time."""
        pending: list[tuple[str, str]] = []
        for pair in pairs:
            pending.append(pair)
            if len(pending) >= batch():
                yield from self._top_level(pending)
                pending = []
        yield from self._top_level(pending)

    def newest(self, limit: int) -> list[TraceRow]:
        """The newest top-level traces, newest first."""
        return self.page(limit, TraceFilter())[0]

    def page(
        self, limit: int, flt: TraceFilter, after: tuple[str, str] | None = None
    ) -> tuple[list[TraceRow], tuple[str, str] | None]:
        """One page of top-level traces, newest first, and the key of its last row when there is more."""

        def skip(prefix: str) -> bool:
            if after is not None and prefix > after[0]:
                return True  # every key in it is at least the prefix: newer than the cursor
            if flt.until is not None and prefix >= flt.until:
                return True
            return flt.since is not None and prefix + "\uffff" < flt.since

        def wanted(pair: tuple[str, str]) -> bool:
            key = pair[0]
            if after is not None and pair >= after:
                return False
            return not (flt.since and key < flt.since) and not (flt.until and key >= flt.until)

        found: list[tuple[str, TraceRow]] = []
        pairs = (p for p in self._walk(True, skip) if wanted(p))
        # A little over what is missing: sub-traces and filtered rows drop out of each batch.
        need = lambda: max(16, (limit + 1 - len(found)) * 5 // 4)  # noqa: E731
        for key, row in self._rows_in_order(pairs, need):
            if _matches(key, row, flt):
                found.append((key, row))
                if len(found) > limit:
                    break
        rows = [r for _, r in found[:limit]]
        more = len(found) > limit and rows
        return rows, ((found[limit - 1][0], rows[-1].id) if more else None)

    def expired(self, before: str) -> list[str]:
        """Top-level traces whose sort key is before ``before``, oldest first."""
        pairs = (p for p in self._walk(False, lambda prefix: prefix > before) if p[0] < before)
        out = []
        for key, row in self._rows_in_order(pairs, lambda: 512):
            if key == "":
                continue  # without a time: never purged by age
            out.append(row.id)
        return out

    # --- lineage -----------------------------------------------------------------------

    def _links(self, kind: str, key: str) -> list[LinkRow]:
        """The source's links, ``cited`` not yet read (``_cited`` reads it for those shown)."""
        column = {"edge": "target", "chunk": "chunk", "page": "page", "document": "doc"}[kind]
        found = self._select(
            f"?l {term(_P[column])} {literal(key)} ; {term(_P['lroot'])} ?root ; "
            f"{term(_P['entity'])} ?entity ; {term(_P['target'])} ?target ; "
            f"{term(_P['lkind'])} ?kind ; {term(_P['chunk'])} ?chunk ."
        )
        return [
            LinkRow(
                s["root"].value,
                s["entity"].value,
                s["target"].value,
                s["kind"].value,
                s["chunk"].value,
                False,
            )
            for s in found
        ]

    def _cited(self, rows: list[LinkRow]) -> list[LinkRow]:
        """``rows`` with ``cited`` read: a link is cited when its trace ``ix:cites`` its entity
        (an edge) or its target (a chunk). Read, never marked when written, so it holds
        whatever order a trace's entities were written in; one lookup for the links shown
        (a join per link in the list's read made it ~2x slower), with the ``ix:cited``
        marks written before 2026-12-01."""
        nodes = [link_node(r.entity, r.target, r.chunk) for r in rows]
        cites: set[tuple[str, str]] = set()
        marked: set[str] = set()
        for i in range(0, len(rows), CITED_BATCH):
            roots = sorted({r.root for r in rows[i : i + CITED_BATCH]})
            found = self._select(
                f"{{ {values('r', [named(r) for r in roots])} ?r {term(_P['cites'])} ?c }} UNION "
                f"{{ {values('l', nodes[i : i + CITED_BATCH])} ?l {term(_P['cited'])} ?m }}",
                "?r ?c ?l",
            )
            cites |= {(s["r"].value, s["c"].value) for s in found if s["r"] is not None}
            marked |= {s["l"].value for s in found if s["l"] is not None}
        return [
            dataclasses.replace(
                r,
                cited=(r.root, r.entity) in cites
                or (r.kind == "chunk" and (r.root, r.target) in cites)
                or node.value in marked,
            )
            for r, node in zip(rows, nodes, strict=True)
        ]

    def _tops(self, roots: Iterable[str]) -> dict[str, str]:
        """Each root's top-level trace: its ``ix:parentRoot`` chain followed up."""
        top = {r: r for r in roots}
        current = set(top.values())
        for _ in range(8):  # sub-traces nest a few levels deep at most
            if not current:
                break
            found = self.facts_of(current, ("parentRoot",))
            ups = {r: f["parentRoot"] for r, f in found.items() if f.get("parentRoot", r) != r}
            for r, t in top.items():
                if t in ups:
                    top[r] = ups[t]
            current = set(ups.values())
        return top

    def _by_top(self, kind: str, key: str) -> tuple[list[LinkRow], dict[str, str]]:
        found = self._links(kind, key)
        return found, self._tops({r.root for r in found})

    def link_tops(self, kind: str, key: str, limit: int) -> list[str]:
        """The newest distinct top-level traces linked to the source."""
        found, tops = self._by_top(kind, key)
        distinct = list(dict.fromkeys(tops[r.root] for r in found))
        keys = self.sort_keys(distinct)
        distinct.sort(key=lambda t: (keys.get(t, ""), t), reverse=True)
        return distinct[:limit]

    def link_paths(self, top: str, kind: str, key: str) -> list[LinkRow]:
        found, tops = self._by_top(kind, key)
        mine = self._cited([r for r in found if tops[r.root] == top])
        return sorted(mine, key=lambda r: (r.root, r.entity, r.chunk))

    def link_paths_of(self, tops: list[str], kind: str, key: str) -> dict[str, list[LinkRow]]:
        """``link_paths`` of each top-level trace, from one read of the source's links."""
        found, top_of = self._by_top(kind, key)
        out: dict[str, list[LinkRow]] = {top: [] for top in tops}
        for r in self._cited([r for r in found if top_of[r.root] in out]):
            out[top_of[r.root]].append(r)
        return {
            top: sorted(rows, key=lambda r: (r.root, r.entity, r.chunk))
            for top, rows in out.items()
        }

    def count_users(self, kind: str, key: str) -> int:
        found, tops = self._by_top(kind, key)
        return len({tops[r.root] for r in found})

    def has_link(self, target: str) -> bool:
        return self.sparql.ask(
            f"ASK {{ GRAPH {self._g} {{ ?l {term(_P['target'])} {literal(target)} }} }}"
        )

    def document_links(self, doc: str) -> list[tuple[str, str, str, str]]:
        found, tops = self._by_top("document", doc)
        return [(r.entity, r.chunk, r.kind, tops[r.root]) for r in found]

    def forget_document(self, doc: str) -> None:
        self.sparql.update(
            f"DELETE WHERE {{ GRAPH {self._g} {{ ?l {term(_P['doc'])} {literal(doc)} ; ?p ?o }} }}"
        )


def _matches(key: str, row: TraceRow, flt: TraceFilter) -> bool:
    if flt.kind and row.kind != flt.kind:
        return False
    if flt.status and row.status != flt.status:
        return False
    if flt.since and key < flt.since:
        return False
    if flt.until and key >= flt.until:
        return False
    return not flt.search or flt.search.casefold() in row.question.casefold()


def _row(rid: str, cur: dict[str, str]) -> TraceRow:
    from trustgraph_base.provenance.uris import trace_kind

    return TraceRow(
        rid,
        cur.get("kind") or trace_kind(rid) or "agent",
        cur.get("question", ""),
        cur.get("time", ""),
        cur.get("parent"),
        "complete" in cur,
        int(cur.get("failed", "0") or 0),
    )
