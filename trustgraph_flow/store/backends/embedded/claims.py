"""Which trace roots a batch begins: none of their entities in the store before it.

Signing from the writer's record (``governance/written.py``) needs to know that the record
is all the store holds of a trace. It asked the store, a ``COUNT`` of each entity's quads
(one RocksDB seek an entity, ~30 µs an imported span, and more as the store grows:
docs/performance.md, session 23). A trace the writer began itself needs no count: before a
batch is written, its entities' rows go into the index (``claim``), so the store never holds
a trace entity the index does not map to its root, and a root with no entity in the index
has nothing in the store. A kill between the two leaves rows without quads: the trace is
counted when it comes again, as before.

That holds for a store this version made: ``covered`` is noted when the index is made beside
a new store (``Stores``), before anything is written. A store an earlier version wrote (its
entities indexed after the store write, or not at all) is never taken as covered: its
traces are counted as before. Nothing else writes a trace entity that is new to the index:
the migrations add facts to traces there already, an erasure marks them, a deletion removes
the store's quads before the index's rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Set

import pyoxigraph as ox

from trustgraph_base.provenance.uris import trace_root
from trustgraph_flow.store.backends.embedded.trace_sql import IN_BATCH, Commit

COVERED = "covered"  # lineage_meta's key: every trace entity in the store is in ``entities``


class Claims:
    """The ``entities`` rows written before the store's (``TraceIndex`` is the rest)."""

    @property
    def db(self) -> sqlite3.Connection:
        raise NotImplementedError

    def cover(self) -> None:
        """Note that the store is new: nothing in it the index does not map."""
        self.db.execute("INSERT OR IGNORE INTO lineage_meta VALUES (?)", (COVERED,))

    def covered(self) -> bool:
        found = self.db.execute("SELECT 1 FROM lineage_meta WHERE key = ?", (COVERED,))
        return found.fetchone() is not None

    def claim(self, quads: Iterable[ox.Quad]) -> Set[str]:
        """Map the trace entities among the quads' subjects to their roots, committed before
        the store writes them; the roots none of whose entities the index held before, when
        the store is ``covered`` (else none)."""
        entities: dict[str, str] = {}
        last = None
        for q in quads:
            s = q.subject
            if s != last:
                last = s
                if type(s) is ox.NamedNode and s.value not in entities:
                    root = trace_root(s.value)
                    if root is not None:
                        entities[s.value] = root
        if not entities:
            return frozenset()
        roots = list(set(entities.values()))
        known: set[str] = set()
        if self.covered():
            for start in range(0, len(roots), IN_BATCH):
                part = roots[start : start + IN_BATCH]
                marks = ", ".join("?" * len(part))
                sql = f"SELECT DISTINCT root FROM entities WHERE root IN ({marks})"
                known.update(r for (r,) in self.db.execute(sql, part))
        else:
            known.update(roots)
        self.db.execute("BEGIN")
        with Commit(self.db) as db:
            db.executemany("INSERT OR IGNORE INTO entities VALUES (?, ?)", entities.items())
        return frozenset(roots) - known
