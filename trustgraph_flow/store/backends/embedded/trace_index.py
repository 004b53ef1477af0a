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
from collections.abc import Iterable, Sequence, Set
from pathlib import Path

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV
from trustgraph_base.provenance.uris import agent_step_of
from trustgraph_flow.store.backends.embedded import links, step_reads
from trustgraph_flow.store.backends.embedded.claims import Claims
from trustgraph_flow.store.backends.embedded.links import LinkReads
from trustgraph_flow.store.backends.embedded.trace_sql import (
    IN_BATCH,
    NEWEST,
    RAG_DELETE,
    RAG_INSERT,
    SCHEMA,
    STEP_DELETE,
    STEP_INSERT,
    UPSERT,
    Commit,
    connect,
    page_query,
    row_of,
    rows_by_id,
    stored_value,
)
from trustgraph_flow.store.backends.embedded.unsigned import SCHEMA as UNSIGNED
from trustgraph_flow.store.backends.embedded.unsigned import Unsigned
from trustgraph_flow.store.backends.trace_facts import (
    RAG_PREDICATES,
    STEP_PREDICATES,
    StepRow,
    facts,
    has_rag_facts,
    rag_row,
    retrieval_facts,
)
from trustgraph_flow.store.backends.trace_list import page_of
from trustgraph_flow.store.core.backend import QuadStore, RagFacts, StepFacts
from trustgraph_flow.store.core.convert import value_of
from trustgraph_flow.store.core.rows import Resolver, TraceFilter, TraceRow


class TraceIndex(LinkReads, Unsigned, Claims):
    """The sqlite side table of one store: one connection per thread (WAL: readers never wait on the writer)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA + links.SCHEMA + UNSIGNED)

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection (sqlite connections must not be shared between threads)."""
        conn: sqlite3.Connection | None = getattr(self._local, "db", None)
        if conn is None:
            conn = connect(self.path)
            self._local.db = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()

    def record(
        self, quads: Iterable[ox.Quad], resolve: Resolver | None = None, claimed: bool = False
    ) -> Set[str]:
        """Index the trace facts in a batch's ``urn:graph:retrieval`` quads in one
        transaction (idempotent); the trace roots they touched.

        ``resolve`` names the chunk, page and document behind each source link (from the
        store's ``urn:graph:source``); without it only a chunk link knows its chunk.
        ``claimed``: their entities' rows are written (``claim``, before the store write).
        """
        found = facts(quads)
        if not found.rows:
            return set()
        db = self.db
        with self._tx():
            db.executemany(UPSERT, list(found.rows.values()))
            if not claimed:
                db.executemany(
                    "INSERT OR IGNORE INTO entities VALUES (?, ?)", found.entities.items()
                )
            if found.steps:
                db.executemany(STEP_INSERT, found.steps)
            if found.rags:
                db.executemany(RAG_INSERT, found.rags)
            if found.uses:
                links.record(db, found.uses, resolve)
            if found.cites or found.uses:
                links.mark_cited(db, found.cites, found.uses)
            # Only a root whose links or whose place (parent, time) this batch changed: the
            # links of the others already point at their top-level trace and its time.
            links.retop_all(db, [root for root in found.rows if root in found.moved])
        return found.rows.keys()

    def unrecord(self, quads: Iterable[ox.Quad]) -> None:
        """Drop the read models' rows of quads removed from the store (a migration's)."""
        found = facts(quads)
        with self._tx():
            self.db.executemany(STEP_DELETE, found.steps)
            self.db.executemany(RAG_DELETE, found.rags)

    def _tx(self) -> Commit:
        self.db.execute("BEGIN")
        return Commit(self.db)

    def newest(self, limit: int) -> list[TraceRow]:
        """The newest top-level traces, newest first (one partial-index scan)."""
        return [row_of(r) for r in self.db.execute(NEWEST, (limit,))]

    def page(
        self, limit: int, flt: TraceFilter, after: tuple[str, str] | None = None
    ) -> tuple[list[TraceRow], tuple[str, str] | None]:
        """One page of top-level traces, newest first, and the key to pass as ``after`` for the next.

        Keyset pagination on the ``traces_page`` index: page 1,000 costs what page 1 does.
        """
        sql, args = page_query(limit + 1, flt, after)
        return page_of([(str(r[-1]), row_of(r[:-1])) for r in self.db.execute(sql, args)], limit)

    def get(self, trace_id: str) -> TraceRow | None:
        return rows_by_id(self.db, [trace_id]).get(trace_id)

    def rows(self, roots: Iterable[str]) -> dict[str, TraceRow]:
        """The indexed traces among ``roots``, by id."""
        return rows_by_id(self.db, roots)

    def entities(self, root: str) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT uri FROM entities WHERE root = ?", (root,))]

    def step_facts(self, root: str, uris: list[str]) -> StepFacts:
        return step_reads.step_facts(self.db, root, uris)

    def step_parents(self, root: str) -> dict[str, list[str]]:
        return step_reads.step_parents(self.db, root)

    def rag_facts(self, roots: list[str]) -> RagFacts:
        """The read model's facts of GraphRAG and DocumentRAG traces ``roots`` (others are
        left out): root → entity URI → predicate IRI → values, with an entry for every
        entity of each, as ``explain.gather`` reads them from the store. A few reads for
        all of them (a window of a long agent trace ran hundreds)."""
        kept = [r for r in dict.fromkeys(roots) if has_rag_facts(r)]
        out: RagFacts = {r: {} for r in kept}
        for start in range(0, len(kept), IN_BATCH):
            part = kept[start : start + IN_BATCH]
            marks = ", ".join("?" * len(part))
            for uri, root in self.db.execute(
                f"SELECT uri, root FROM entities WHERE root IN ({marks})", part
            ):
                out[root].setdefault(uri, {})
            for root, uri, pred, kind, value in self.db.execute(
                f"SELECT root, uri, pred, kind, value FROM rag_facts WHERE root IN ({marks})", part
            ):
                out[root].setdefault(uri, {}).setdefault(pred, []).append(stored_value(kind, value))
        return out

    def subtraces(self, root: str) -> list[TraceRow]:
        """Traces called from any step of ``root``."""
        cur = self.db.execute(
            "SELECT id, kind, question, time, parent, complete, failed FROM traces "
            "WHERE parent_root = ? AND is_question = 1 ORDER BY sort_time",
            (root,),
        )
        return [row_of(r) for r in cur]

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
            self._fill("rag", RAG_INSERT, rows)
        # "steps-graph": what each step derives from, kept since the agent graph
        # (docs/provenance.md) and missing from steps indexed before it
        for key, predicates in (
            ("steps", STEP_PREDICATES),
            ("steps-graph", {PROV.wasDerivedFrom.i}),
        ):
            if not self._backfilled(key):
                steps: list[StepRow] = [
                    (root, n, uri, pred, value)
                    for pred, uri, root, o in retrieval_facts(store, predicates)
                    if (n := agent_step_of(root, uri)) is not None
                    and (value := value_of(o)) is not None
                ]
                self._fill(key, STEP_INSERT, steps)

    def _backfilled(self, key: str) -> bool:
        return (
            self.db.execute("SELECT 1 FROM lineage_meta WHERE key = ?", (key,)).fetchone()
            is not None
        )

    def _fill(self, key: str, insert: str, rows: Sequence[tuple[object, ...]]) -> None:
        with self._tx():
            self.db.executemany(insert, rows)
            self.db.execute("INSERT OR IGNORE INTO lineage_meta VALUES (?)", (key,))

    def forget_entities(self, uris: Iterable[str]) -> None:
        with self._tx():
            self.db.executemany("DELETE FROM entities WHERE uri = ?", [(u,) for u in uris])

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
            self.db.executemany("DELETE FROM unsigned WHERE root = ?", ids)
