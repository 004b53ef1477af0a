"""The embedded trace index's sqlite tables and statements: the schema, the upserts of a batch's
facts, and the trace list's query (``page_query``: every value a parameter, the filter's
rules from ``backends/trace_list.py``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from trustgraph_flow.store.backends.trace_list import STATUS, trace_row
from trustgraph_flow.store.core.backend import RagValue
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import TraceFilter, TraceRow

SCHEMA = """
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

UPSERT = """
INSERT INTO traces (id, kind, question, time, sort_time, parent, parent_root, is_question, complete, failed)
VALUES (:id, :kind, :question, :time, :sort_time, :parent, :parent_root, :is_question, :complete, :failed)
ON CONFLICT(id) DO UPDATE SET
    kind = coalesce(excluded.kind, kind), question = coalesce(excluded.question, question),
    time = coalesce(excluded.time, time), sort_time = coalesce(excluded.sort_time, sort_time),
    parent = coalesce(excluded.parent, parent), parent_root = coalesce(excluded.parent_root, parent_root),
    is_question = max(excluded.is_question, is_question),
    complete = max(excluded.complete, complete), failed = max(excluded.failed, failed)
"""

STEP_INSERT = "INSERT OR IGNORE INTO step_facts VALUES (?, ?, ?, ?, ?)"
RAG_INSERT = "INSERT OR IGNORE INTO rag_facts VALUES (?, ?, ?, ?, ?)"
STEP_DELETE = (
    "DELETE FROM step_facts WHERE root = ? AND n = ? AND uri = ? AND pred = ? AND value = ?"
)
RAG_DELETE = (
    "DELETE FROM rag_facts WHERE root = ? AND uri = ? AND pred = ? AND kind = ? AND value = ?"
)

NEWEST = (
    "SELECT id, kind, question, time, parent, complete, failed FROM traces "
    "WHERE parent IS NULL AND is_question = 1 ORDER BY sort_time DESC LIMIT ?"
)
IN_BATCH = 500  # roots per ``IN (…)`` list (sqlite allows 999 parameters in old builds)
COLUMNS = "id, kind, question, time, parent, complete, failed"
_SELECT = f"SELECT {COLUMNS} FROM traces"
_ONE = f"{_SELECT} WHERE id = ? AND is_question = 1"
PAGE_KEY = "ifnull(sort_time, '')"
STATUS_SQL = {  # from trace_list.STATUS: column values, never user text
    name: f"complete = {done:d}" + ("" if failed is None else f" AND failed = {failed:d}")
    for name, (done, failed) in STATUS.items()
}


def page_query(
    limit: int, flt: TraceFilter, after: tuple[str, str] | None
) -> tuple[str, list[object]]:
    """The SQL and parameters of ``TraceIndex.page`` (every value a parameter)."""
    where = ["parent IS NULL", "is_question = 1"]
    args: list[object] = []
    if after is not None:
        # Written so the key bound is a range on the index (a row-value comparison is a scan).
        where.append(f"{PAGE_KEY} <= ? AND ({PAGE_KEY} < ? OR id < ?)")
        args += [after[0], after[0], after[1]]
    if flt.kind:
        where.append("kind = ?")
        args.append(flt.kind)
    if flt.status:
        where.append(STATUS_SQL[flt.status])
    if flt.since:
        where.append(f"{PAGE_KEY} >= ?")
        args.append(flt.since)
    if flt.until:
        where.append(f"{PAGE_KEY} < ?")
        args.append(flt.until)
    if flt.search:
        where.append("tg_contains(question, ?)")
        args.append(flt.search.casefold())
    sql = (
        f"SELECT {COLUMNS}, {PAGE_KEY} FROM traces WHERE {' AND '.join(where)} "
        f"ORDER BY {PAGE_KEY} DESC, id DESC LIMIT ?"
    )
    return sql, [*args, limit]


# Each connection's settings: statement journals and ``IN (…)`` lists in memory, not in a
# temp file (an import wrote to one ~4.5 times a span; nothing in it is read
# after a crash), and a page cache of 32 MiB at most, not 2 (the index of an import is ~3 KB
# a span). docs/performance.md, session 24.
PRAGMAS = (
    "PRAGMA synchronous=NORMAL",
    "PRAGMA temp_store=MEMORY",
    "PRAGMA cache_size=-32768",
)


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the index at ``path`` (one a thread), its settings made."""
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    for pragma in PRAGMAS:
        conn.execute(pragma)
    conn.create_function("tg_contains", 2, contains, deterministic=True)
    return conn


def contains(text: object, folded: object) -> bool:
    """sqlite function: does ``text`` contain ``folded`` (already casefolded), ignoring case."""
    return isinstance(text, str) and isinstance(folded, str) and folded in text.casefold()


def row_of(r: tuple[object, ...]) -> TraceRow:
    """A row from the columns ``COLUMNS`` in their order."""
    return trace_row(str(r[0]), *r[1:7])


def rows_by_id(db: sqlite3.Connection, ids: Iterable[str]) -> dict[str, TraceRow]:
    """The indexed traces (questions) among ``ids``, by id in ``ids``' order: one statement
    per ``IN_BATCH`` of them, not one an id (a signing pass asks for ten, a verify 2,001)."""
    wanted = list(dict.fromkeys(ids))
    if len(wanted) == 1:  # most of the writer's batches: the plain statement, no list made
        one = db.execute(_ONE, wanted).fetchone()
        return {wanted[0]: row_of(one)} if one else {}
    found: dict[str, TraceRow] = {}
    for start in range(0, len(wanted), IN_BATCH):
        part = wanted[start : start + IN_BATCH]
        marks = ", ".join("?" * len(part))
        sql = f"{_SELECT} WHERE id IN ({marks}) AND is_question = 1"
        found.update((str(r[0]), row_of(r)) for r in db.execute(sql, part))
    return {i: found[i] for i in wanted if i in found}


def stored_value(kind: str, value: str) -> RagValue:
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


class Commit:
    """Commit on success, roll back on error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
