"""The embedded trace index: a sqlite side table per store, fed by the writer from retrieval-graph triples.

It answers "the newest N top-level traces" with one partial-index scan and maps every
trace entity to its root, so a trace is fetched or deleted without scanning the store.
It also keeps read models of what a trace's view shows: of agent steps (``step_facts``,
``STEP_PREDICATES``), so a 20,000-step trace is read as a range of sqlite rows instead
of ~180,000 quads decoded from pyoxigraph, and of GraphRAG and DocumentRAG traces
(``rag_facts``, ``RAG_PREDICATES``), so the 2,000 sub-traces such a trace ran are one read
instead of ~54,000 quads (docs/store.md, "Read models").
Every write is an idempotent upsert: replaying a batch (redelivery) changes nothing.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL
from trustgraph_base.provenance.uris import (
    agent_step_index,
    trace_root,
)
from trustgraph_flow.store.backends.embedded import links
from trustgraph_flow.store.backends.trace_facts import (
    RAG_PREDICATES,
    STEP_PREDICATES,
    StepRow,
    facts,
    has_rag_facts,
    rag_row,
)
from trustgraph_flow.store.backends.trace_list import STATUS, page_of, trace_row
from trustgraph_flow.store.core.backend import QuadStore, RagFacts, RagValue, StepFacts
from trustgraph_flow.store.core.convert import OxObject, named, value_of
from trustgraph_flow.store.core.rows import LinkRow, Resolver, TraceFilter, TraceRow

_SCHEMA = """
CREATE TABLE IF NOT EXISTS traces (
    id TEXT PRIMARY KEY, kind TEXT, question TEXT, time TEXT, sort_time TEXT,
    parent TEXT, parent_root TEXT, is_question INTEGER NOT NULL DEFAULT 0,
    complete INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS traces_top ON traces(sort_time DESC)
    WHERE parent IS NULL AND is_question = 1;
CREATE INDEX IF NOT EXISTS traces_page ON traces(ifnull(sort_time, ''), id)
    WHERE parent IS NULL AND is_question = 1;
CREATE INDEX IF NOT EXISTS traces_parent_root ON traces(parent_root)
    WHERE parent_root IS NOT NULL;
CREATE TABLE IF NOT EXISTS entities (uri TEXT PRIMARY KEY, root TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS entities_root ON entities(root);
CREATE TABLE IF NOT EXISTS step_facts (
    root TEXT NOT NULL, n INTEGER NOT NULL, uri TEXT NOT NULL, pred TEXT NOT NULL,
    value TEXT NOT NULL, PRIMARY KEY (root, n, uri, pred, value)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rag_facts (
    root TEXT NOT NULL, uri TEXT NOT NULL, pred TEXT NOT NULL, kind TEXT NOT NULL,
    value TEXT NOT NULL, PRIMARY KEY (root, uri, pred, kind, value)) WITHOUT ROWID;
"""

_UPSERT = """
INSERT INTO traces (id, kind, question, time, sort_time, parent, parent_root, is_question, complete, failed)
VALUES (:id, :kind, :question, :time, :sort_time, :parent, :parent_root, :is_question, :complete, :failed)
ON CONFLICT(id) DO UPDATE SET
    kind = coalesce(excluded.kind, kind), question = coalesce(excluded.question, question),
    time = coalesce(excluded.time, time), sort_time = coalesce(excluded.sort_time, sort_time),
    parent = coalesce(excluded.parent, parent), parent_root = coalesce(excluded.parent_root, parent_root),
    is_question = max(excluded.is_question, is_question),
    complete = max(excluded.complete, complete), failed = max(excluded.failed, failed)
"""

_STEP_INSERT = "INSERT OR IGNORE INTO step_facts VALUES (?, ?, ?, ?, ?)"
_RAG_INSERT = "INSERT OR IGNORE INTO rag_facts VALUES (?, ?, ?, ?, ?)"

NEWEST = (
    "SELECT id, kind, question, time, parent, complete, failed FROM traces "
    "WHERE parent IS NULL AND is_question = 1 ORDER BY sort_time DESC LIMIT ?"
)
_IN_BATCH = 500  # roots per ``IN (…)`` list (sqlite allows 999 parameters in old builds)
_COLUMNS = "id, kind, question, time, parent, complete, failed"
_PAGE_KEY = "ifnull(sort_time, '')"
_STATUS_SQL = {  # from trace_list.STATUS: column values, never user text
    name: f"complete = {done:d}" + ("" if failed is None else f" AND failed = {failed:d}")
    for name, (done, failed) in STATUS.items()
}


def _rag_value(kind: str, value: str) -> RagValue:
    """A ``rag_facts`` object as the view reads it: a literal as its text, others as terms."""
    if kind == "l":
        return value
    if kind == "i":
        return named(value)
    if kind == "b":
        return ox.BlankNode(value)
    parsed = next(iter(ox.parse(input=f"<urn:x> <urn:x> {value} .", format=ox.RdfFormat.N_TRIPLES)))
    term = parsed.object
    assert isinstance(term, ox.Triple)
    return term


def retrieval_facts(
    store: QuadStore, predicates: Iterable[str]
) -> Iterator[tuple[str, str, str, OxObject]]:
    """``(predicate, subject, its trace root, object)`` of every ``urn:graph:retrieval`` quad
    with one of ``predicates`` whose subject is a trace's entity (for a backfill)."""
    for pred in sorted(predicates):
        for q in store.quads_for_pattern(None, named(pred), None, named(GRAPH_RETRIEVAL)):
            if (
                isinstance(q.subject, ox.NamedNode)
                and (root := trace_root(q.subject.value)) is not None
            ):
                yield pred, q.subject.value, root, q.object


class TraceIndex:
    """The sqlite side table of one store: one connection per thread (WAL: readers never wait on the writer)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA + links.SCHEMA)

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection (sqlite connections must not be shared between threads)."""
        conn: sqlite3.Connection | None = getattr(self._local, "db", None)
        if conn is None:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.create_function("tg_contains", 2, _contains, deterministic=True)
            self._local.db = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()

    def record(self, quads: Iterable[ox.Quad], resolve: Resolver | None = None) -> None:
        """Index the trace facts in a batch's ``urn:graph:retrieval`` quads in one
        transaction (idempotent).

        ``resolve`` names the chunk, page and document behind each source link (from the
        store's ``urn:graph:source``); without it only a chunk link knows its chunk.
        """
        found = facts(quads)
        if not found.rows:
            return
        db = self.db
        with self._tx():
            db.executemany(_UPSERT, list(found.rows.values()))
            db.executemany("INSERT OR IGNORE INTO entities VALUES (?, ?)", found.entities.items())
            if found.steps:
                db.executemany(_STEP_INSERT, found.steps)
            if found.rags:
                db.executemany(_RAG_INSERT, found.rags)
            if found.uses:
                links.record(db, found.uses, resolve)
            if found.cites or found.uses:
                links.mark_cited(db, found.cites, found.uses)
            # Only a root whose links or whose place (parent, time) this batch changed: the
            # links of the others already point at their top-level trace and its time.
            for root in found.rows:
                if root in found.moved:
                    links.retop(db, root)

    def _tx(self) -> _Commit:
        self.db.execute("BEGIN")
        return _Commit(self.db)

    def newest(self, limit: int) -> list[TraceRow]:
        """The newest top-level traces, newest first (one partial-index scan)."""
        return [_row(r) for r in self.db.execute(NEWEST, (limit,))]

    def page(
        self, limit: int, flt: TraceFilter, after: tuple[str, str] | None = None
    ) -> tuple[list[TraceRow], tuple[str, str] | None]:
        """One page of top-level traces, newest first, and the key to pass as ``after`` for the next.

        Keyset pagination on the ``traces_page`` index: page 1,000 costs what page 1 does.
        """
        sql, args = page_query(limit + 1, flt, after)
        return page_of([(str(r[-1]), _row(r[:-1])) for r in self.db.execute(sql, args)], limit)

    def get(self, trace_id: str) -> TraceRow | None:
        cur = self.db.execute(
            "SELECT id, kind, question, time, parent, complete, failed FROM traces "
            "WHERE id = ? AND is_question = 1",
            (trace_id,),
        )
        found = cur.fetchone()
        return _row(found) if found else None

    def rows(self, roots: Iterable[str]) -> dict[str, TraceRow]:
        """The indexed traces among ``roots``, by id."""
        return {r: row for r in dict.fromkeys(roots) if (row := self.get(r)) is not None}

    def entities(self, root: str) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT uri FROM entities WHERE root = ?", (root,))]

    def step_facts(self, root: str, uris: list[str]) -> StepFacts:
        """The read model's facts of agent steps ``uris`` of ``root`` (a range of its steps),
        step URI → predicate IRI → values, with an entry for every step asked for."""
        out: StepFacts = {uri: {} for uri in uris}
        found = [n for uri in uris if (n := agent_step_index(root, uri)) is not None]
        if not found:
            return out
        cur = self.db.execute(
            "SELECT uri, pred, value FROM step_facts WHERE root = ? AND n BETWEEN ? AND ?",
            (root, min(found), max(found)),
        )
        for uri, pred, value in cur:
            by_pred = out.get(uri)
            if by_pred is not None:
                by_pred.setdefault(pred, []).append(value)
        return out

    def rag_facts(self, roots: list[str]) -> RagFacts:
        """The read model's facts of GraphRAG and DocumentRAG traces ``roots`` (others are
        left out): root → entity URI → predicate IRI → values, with an entry for every
        entity of each, as ``explain.gather`` reads them from the store. A few reads for
        all of them (a window of a long agent trace ran hundreds)."""
        kept = [r for r in dict.fromkeys(roots) if has_rag_facts(r)]
        out: RagFacts = {r: {} for r in kept}
        for start in range(0, len(kept), _IN_BATCH):
            part = kept[start : start + _IN_BATCH]
            marks = ", ".join("?" * len(part))
            for uri, root in self.db.execute(
                f"SELECT uri, root FROM entities WHERE root IN ({marks})", part
            ):
                out[root].setdefault(uri, {})
            for root, uri, pred, kind, value in self.db.execute(
                f"SELECT root, uri, pred, kind, value FROM rag_facts WHERE root IN ({marks})", part
            ):
                out[root].setdefault(uri, {}).setdefault(pred, []).append(_rag_value(kind, value))
        return out

    def subtraces(self, root: str) -> list[TraceRow]:
        """Traces called from any step of ``root``."""
        cur = self.db.execute(
            "SELECT id, kind, question, time, parent, complete, failed FROM traces "
            "WHERE parent_root = ? AND is_question = 1 ORDER BY sort_time",
            (root,),
        )
        return [_row(r) for r in cur]

    def expired(self, before: str) -> list[str]:
        """Top-level traces whose ``sort_time`` is before ``before``, oldest first (one index range scan)."""
        rows = self.db.execute(
            "SELECT id FROM traces WHERE parent IS NULL AND is_question = 1 AND sort_time < ? "
            "ORDER BY sort_time",
            (before,),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def backfill(self, store: QuadStore) -> None:
        """Index the links, the agent steps and the RAG facts of traces written before their
        tables existed (once per store)."""
        links.backfill(self.db, store)
        if not self._backfilled("rag"):
            rag = retrieval_facts(store, RAG_PREDICATES)
            rows = [
                rag_row(root, uri, pred, o) for pred, uri, root, o in rag if has_rag_facts(root)
            ]
            self._fill("rag", _RAG_INSERT, rows)
        if not self._backfilled("steps"):
            steps: list[StepRow] = [
                (root, n, uri, pred, value)
                for pred, uri, root, o in retrieval_facts(store, STEP_PREDICATES)
                if (n := agent_step_index(root, uri)) is not None
                and (value := value_of(o)) is not None
            ]
            self._fill("steps", _STEP_INSERT, steps)

    def _backfilled(self, key: str) -> bool:
        return (
            self.db.execute("SELECT 1 FROM lineage_meta WHERE key = ?", (key,)).fetchone()
            is not None
        )

    def _fill(self, key: str, insert: str, rows: Sequence[tuple[object, ...]]) -> None:
        with self._tx():
            self.db.executemany(insert, rows)
            self.db.execute("INSERT OR IGNORE INTO lineage_meta VALUES (?)", (key,))

    def has_link(self, target: str) -> bool:
        """Whether a trace links to the edge key ``target``."""
        found = self.db.execute("SELECT 1 FROM links WHERE target = ? LIMIT 1", (target,))
        return found.fetchone() is not None

    def link_tops(self, kind: str, key: str, limit: int) -> list[str]:
        """The newest distinct top-level traces linked to the source: one index scan in time order."""
        tops: list[str] = []
        seen: set[str] = set()
        cur = self.db.execute(
            f"SELECT top FROM links WHERE {links.COLUMN[kind]} = ? ORDER BY top_time DESC", (key,)
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
            f"WHERE top = ? AND {links.COLUMN[kind]} = ? ORDER BY root, entity, chunk",
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
            f"SELECT COUNT(DISTINCT top) FROM links WHERE {links.COLUMN[kind]} = ?", (key,)
        ).fetchone()
        return int(found[0]) if found else 0

    def document_links(self, doc: str) -> list[tuple[str, str, str, str]]:
        """(entity, chunk, kind, top) of every trace link into the document."""
        rows = self.db.execute("SELECT entity, chunk, kind, top FROM links WHERE doc = ?", (doc,))
        return [(str(e), str(c), str(k), str(t)) for e, c, k, t in rows]

    def forget_document(self, doc: str) -> None:
        """Drop the links into a removed document."""
        self.db.execute("DELETE FROM links WHERE doc = ?", (doc,))

    def forget(self, roots: Iterable[str]) -> None:
        """Drop traces and their entity maps."""
        ids = [(r,) for r in roots]
        with self._tx():
            self.db.executemany("DELETE FROM entities WHERE root = ?", ids)
            self.db.executemany("DELETE FROM step_facts WHERE root = ?", ids)
            self.db.executemany("DELETE FROM rag_facts WHERE root = ?", ids)
            self.db.executemany("DELETE FROM links WHERE root = ?", ids)
            self.db.executemany("DELETE FROM cites WHERE root = ?", ids)
            self.db.executemany("DELETE FROM traces WHERE id = ?", ids)


def page_query(
    limit: int, flt: TraceFilter, after: tuple[str, str] | None
) -> tuple[str, list[object]]:
    """The SQL and parameters of ``TraceIndex.page`` (every value a parameter)."""
    where = ["parent IS NULL", "is_question = 1"]
    args: list[object] = []
    if after is not None:
        # Written so the key bound is a range on the index (a row-value comparison is a scan).
        where.append(f"{_PAGE_KEY} <= ? AND ({_PAGE_KEY} < ? OR id < ?)")
        args += [after[0], after[0], after[1]]
    if flt.kind:
        where.append("kind = ?")
        args.append(flt.kind)
    if flt.status:
        where.append(_STATUS_SQL[flt.status])
    if flt.since:
        where.append(f"{_PAGE_KEY} >= ?")
        args.append(flt.since)
    if flt.until:
        where.append(f"{_PAGE_KEY} < ?")
        args.append(flt.until)
    if flt.search:
        where.append("tg_contains(question, ?)")
        args.append(flt.search.casefold())
    sql = (
        f"SELECT {_COLUMNS}, {_PAGE_KEY} FROM traces WHERE {' AND '.join(where)} "
        f"ORDER BY {_PAGE_KEY} DESC, id DESC LIMIT ?"
    )
    return sql, [*args, limit]


def _contains(text: object, folded: object) -> bool:
    """sqlite function: does ``text`` contain ``folded`` (already casefolded), ignoring case."""
    return isinstance(text, str) and isinstance(folded, str) and folded in text.casefold()


class _Commit:
    """Commit on success, roll back on error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def _row(r: tuple[object, ...]) -> TraceRow:
    """A row from the columns ``_COLUMNS`` in their order."""
    return trace_row(str(r[0]), *r[1:7])
