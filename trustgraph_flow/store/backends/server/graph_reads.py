"""Reading the server backend's trace index graph (``graph_index.py`` writes it): a trace's row,
and the lineage links — the newest traces resting on a document, page, chunk or edge, each
one's paths into it and whether its answer cites them."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from typing import Protocol

import pyoxigraph as ox

from trustgraph_flow.store.backends.trace_list import trace_row
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import LinkRow, TraceRow
from trustgraph_flow.store.sparql.client import literal, term, values

IX = "urn:tg:ix:"
CITED_BATCH = 500  # links whose citations one lookup reads
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


def link_node(entity: str, target: str, chunk: str) -> ox.NamedNode:
    digest = hashlib.sha256("\x00".join((entity, target, chunk)).encode()).hexdigest()
    return named(f"{IX}link:{digest}")


class GraphReads:
    """The reads of a collection's trace index graph: trace rows and lineage links."""

    def __init__(self, sparql: Sparql, graph: ox.NamedNode) -> None:
        self.sparql = sparql
        self.graph = graph
        self._g = term(graph)

    def _select(self, body: str, head: str = "*", tail: str = "") -> list[ox.QuerySolution]:
        return self.sparql.rows(f"SELECT {head} WHERE {{ GRAPH {self._g} {{ {body} }} }} {tail}")

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


def _row(rid: str, cur: dict[str, str]) -> TraceRow:
    """A question's row from its fields in the index graph (``facts_of``)."""
    get = cur.get
    return trace_row(
        rid,
        get("kind"),
        get("question"),
        get("time"),
        get("parent"),
        "complete" in cur,
        get("failed"),
    )
