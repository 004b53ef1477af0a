"""The traces that ended but are not signed yet, in a collection's sqlite index
(``governance/backlog.py`` signs them a moment later, in batches; docs/audit.md).

A row is written before the batch that ended its trace is acknowledged and removed once
the trace's log entry is written, so a store killed in between finds it at its next start.
Each call's rows are written in one transaction: the connection commits every statement
it runs outside one, and a pass of an import holds and releases ~2,000 roots (~8 µs each
committed alone, ~1 in one; docs/performance.md, session 22).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from trustgraph_flow.store.backends.embedded.trace_sql import Commit

SCHEMA = "CREATE TABLE IF NOT EXISTS unsigned (root TEXT PRIMARY KEY) WITHOUT ROWID;"


class Unsigned:
    """The ``unsigned`` table of a collection's index (``TraceIndex`` is the rest)."""

    @property
    def db(self) -> sqlite3.Connection:
        raise NotImplementedError

    def hold(self, roots: Iterable[str]) -> None:
        """Note trace roots to sign (idempotent)."""
        self.db.execute("BEGIN")
        with Commit(self.db) as db:
            db.executemany("INSERT OR IGNORE INTO unsigned VALUES (?)", [(r,) for r in roots])

    def held(self) -> list[str]:
        """Every trace root noted and not yet signed."""
        return [r for (r,) in self.db.execute("SELECT root FROM unsigned ORDER BY root")]

    def release(self, roots: Iterable[str]) -> None:
        """Forget trace roots once signed (or gone)."""
        self.db.execute("BEGIN")
        with Commit(self.db) as db:
            db.executemany("DELETE FROM unsigned WHERE root = ?", [(r,) for r in roots])
