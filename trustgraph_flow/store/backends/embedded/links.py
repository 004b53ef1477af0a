"""The lineage side table: every trace's links into its sources, resolved when written.

A link is a focus edge's quoted triple (``tg:edge``) or a DocumentRAG ``tg:selectedChunk``.
The writer resolves each against ``urn:graph:source`` as it indexes it — the chunk(s) the
edge was extracted from, their page and document — and stores one row per (trace entity,
target, chunk) with the trace's top-level trace and time. "The newest answers using this
document / page / chunk / edge" is then one index range scan in time order, whatever the
number of traces. A source loaded after an answer does not become part of its lineage:
the answer did not rest on it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, TG
from trustgraph_base.provenance.uris import trace_root
from trustgraph_flow.store.backends.embedded.trace_sql import IN_BATCH
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import LinkRow, Resolver, Use, edge_key
from trustgraph_flow.store.core.sources import SourceResolver

SCHEMA = """
CREATE TABLE IF NOT EXISTS links (
    entity TEXT NOT NULL, target TEXT NOT NULL, kind TEXT NOT NULL, root TEXT NOT NULL,
    top TEXT NOT NULL, top_time TEXT, chunk TEXT NOT NULL DEFAULT '', page TEXT, doc TEXT,
    cited INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (entity, target, chunk));
CREATE INDEX IF NOT EXISTS links_target ON links(target, top_time DESC);
CREATE INDEX IF NOT EXISTS links_chunk ON links(chunk, top_time DESC);
CREATE INDEX IF NOT EXISTS links_page ON links(page, top_time DESC) WHERE page IS NOT NULL;
CREATE INDEX IF NOT EXISTS links_doc ON links(doc, top_time DESC) WHERE doc IS NOT NULL;
CREATE INDEX IF NOT EXISTS links_top ON links(top);
CREATE TABLE IF NOT EXISTS lineage_meta (key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS cites (root TEXT NOT NULL, uri TEXT NOT NULL,
    PRIMARY KEY (root, uri)) WITHOUT ROWID;
"""

COLUMN = {"edge": "target", "chunk": "chunk", "page": "page", "document": "doc"}  # never user text


def record(db: sqlite3.Connection, uses: Iterable[Use], resolve: Resolver | None) -> None:
    """Insert the links of a batch (idempotent), one row per chunk each resolves to."""
    rows: list[tuple[str | None, ...]] = []
    for u in uses:
        chains = resolve(u) if resolve else [(u.target if u.kind == "chunk" else "", None, None)]
        rows.extend((u.entity, u.target, u.kind, u.root, u.root, c, p, d) for c, p, d in chains)
    db.executemany(
        "INSERT OR IGNORE INTO links (entity, target, kind, root, top, chunk, page, doc) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def mark_cited(
    db: sqlite3.Connection, cites: Iterable[tuple[str, str]], uses: Iterable[Use]
) -> None:
    """Set ``cited`` on the links an answer cites: a focus edge (its entity) or a selected
    chunk (its target) of the same trace. The synthesis may be written before the focus or
    exploration it cites (replicas or partitions of the store topic, a redelivery), so the
    citations are kept too (``cites``) and whichever of the two comes second marks the
    link; every statement is a keyed lookup."""
    cites = list(cites)
    db.executemany("INSERT OR IGNORE INTO cites VALUES (?, ?)", cites)
    db.executemany(
        "UPDATE links SET cited = 1 WHERE root = ? AND (entity = ? OR (kind = 'chunk' AND target = ?))",
        [(root, uri, uri) for root, uri in cites],
    )
    db.executemany(
        "UPDATE links SET cited = 1 WHERE entity = ? AND target = ? AND cited = 0 AND EXISTS "
        "(SELECT 1 FROM cites WHERE root = ? AND uri IN (?, ?))",
        [
            (u.entity, u.target, u.root, u.entity, u.target if u.kind == "chunk" else u.entity)
            for u in uses
        ],
    )


def retop_all(db: sqlite3.Connection, roots: Iterable[str]) -> None:
    """Point the links of each of ``roots`` (and of traces it was top of) at their top-level
    trace (its ``parent_root`` chain, followed up) and that trace's time.

    Run for every trace a batch touches: a sub-trace's parent link, or a top-level trace's
    time, may arrive after its links were indexed. A few statements for the whole batch:
    the trace rows of the roots and their ancestors read with ``IN (…)`` lists, and one
    update per top-level trace whose links (or its sub-traces') exist, rewriting only the
    links that change: each link row costs an entry in five indexes."""
    roots = list(dict.fromkeys(roots))
    rows: dict[str, tuple[str | None, str | None]] = {}  # trace → (parent_root, sort_time)
    wanted = roots
    while wanted:
        for part in _parts(wanted):
            sql = f"SELECT id, parent_root, sort_time FROM traces WHERE id IN ({_marks(part)})"
            rows.update((r[0], (r[1], r[2])) for r in db.execute(sql, part))
        for root in wanted:
            rows.setdefault(root, (None, None))  # no row (yet): taken as a top
        wanted = list({p for r in wanted if (p := rows[r][0]) and p not in rows})
    tops = {root: _top(rows, root) for root in roots}
    linked: set[str] = set()
    for part in _parts(list({*tops, *tops.values()})):
        sql = f"SELECT DISTINCT top FROM links WHERE top IN ({_marks(part)})"
        linked.update(r[0] for r in db.execute(sql, part))
    under: dict[str, set[str]] = {}  # a top → the roots under it whose links may move
    for root, top in tops.items():
        if root in linked or top in linked:
            under.setdefault(top, {top}).add(root)
    for top, members in under.items():  # each link rewritten once, and only if it changes
        for part in _parts(sorted(members)):
            db.execute(
                f"UPDATE links SET top = ?, top_time = ? WHERE top IN ({_marks(part)}) "
                "AND (top != ? OR top_time IS NOT ?)",
                [top, rows[top][1], *part, top, rows[top][1]],
            )


def _top(rows: dict[str, tuple[str | None, str | None]], root: str) -> str:
    """The top-level trace of ``root`` from rows already read (every ancestor among them)."""
    seen, current = {root}, root
    while True:
        parent = rows[current][0]
        if not parent or parent in seen:
            return current
        current = parent
        seen.add(current)


def _parts(items: list[str]) -> list[list[str]]:
    return [items[i : i + IN_BATCH] for i in range(0, len(items), IN_BATCH)]


def _marks(part: list[str]) -> str:
    return ", ".join("?" * len(part))


def backfill(db: sqlite3.Connection, store: QuadStore) -> None:
    """Index the links of traces written before this table existed (once per store)."""
    if db.execute("SELECT 1 FROM lineage_meta WHERE key = 'links'").fetchone():
        return
    retrieval = named(GRAPH_RETRIEVAL)
    uses = []
    for q in store.quads_for_pattern(None, named(TG.selectedChunk.i), None, retrieval):
        if not isinstance(q.subject, ox.NamedNode):
            continue
        root = trace_root(q.subject.value)
        if root and isinstance(q.object, ox.NamedNode):
            uses.append(Use(q.subject.value, q.object.value, "chunk", root))
    for q in store.quads_for_pattern(None, named(TG.edge.i), None, retrieval):
        if not isinstance(q.subject, ox.NamedNode):
            continue
        root = trace_root(q.subject.value)
        if root and isinstance(q.object, ox.Triple):
            uses.append(Use(q.subject.value, edge_key(q.object), "edge", root, q.object))
    db.execute("BEGIN")
    try:
        record(db, uses, SourceResolver(store))
        retop_all(db, {u.root for u in uses})
        db.execute("INSERT OR IGNORE INTO lineage_meta VALUES ('links')")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class LinkReads:
    """The lineage reads of a collection's sqlite index (``TraceIndex`` is the rest)."""

    @property
    def db(self) -> sqlite3.Connection:
        raise NotImplementedError

    def has_link(self, target: str) -> bool:
        """Whether a trace links to the edge key ``target``."""
        found = self.db.execute("SELECT 1 FROM links WHERE target = ? LIMIT 1", (target,))
        return found.fetchone() is not None

    def link_tops(self, kind: str, key: str, limit: int) -> list[str]:
        """The newest distinct top-level traces linked to the source: one index scan in time order."""
        tops: list[str] = []
        seen: set[str] = set()
        cur = self.db.execute(
            f"SELECT top FROM links WHERE {COLUMN[kind]} = ? ORDER BY top_time DESC", (key,)
        )
        for (top,) in cur:
            if top not in seen:
                seen.add(top)
                tops.append(str(top))
                if len(tops) >= limit:
                    break
        cur.close()
        return tops

    def link_paths(self, top: str, kind: str, key: str) -> list[LinkRow]:
        """Every link of a top-level trace (and its sub-traces) into the source."""
        rows = self.db.execute(
            "SELECT root, entity, target, kind, chunk, cited FROM links "
            f"WHERE top = ? AND {COLUMN[kind]} = ? ORDER BY root, entity, chunk",
            (top, key),
        )
        return [
            LinkRow(str(r), str(e), str(t), str(k), str(c or ""), bool(x))
            for r, e, t, k, c, x in rows
        ]

    def link_paths_of(self, tops: list[str], kind: str, key: str) -> dict[str, list[LinkRow]]:
        """``link_paths`` of each top-level trace (each one keyed index scan)."""
        return {top: self.link_paths(top, kind, key) for top in tops}

    def count_users(self, kind: str, key: str) -> int:
        """How many distinct top-level traces are linked to the source."""
        found = self.db.execute(
            f"SELECT COUNT(DISTINCT top) FROM links WHERE {COLUMN[kind]} = ?", (key,)
        ).fetchone()
        return int(found[0]) if found else 0

    def document_links(self, doc: str) -> list[tuple[str, str, str, str]]:
        """(entity, chunk, kind, top) of every trace link into the document."""
        rows = self.db.execute("SELECT entity, chunk, kind, top FROM links WHERE doc = ?", (doc,))
        return [(str(e), str(c), str(k), str(t)) for e, c, k, t in rows]

    def forget_document(self, doc: str) -> None:
        """Drop the links into a removed document."""
        self.db.execute("DELETE FROM links WHERE doc = ?", (doc,))
