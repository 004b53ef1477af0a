"""Which loads were removed, so that the work still in flight for them is dropped, not written.

A load (one ingestion of a document) is numbered by the librarian when it starts
(``Metadata.load``: its clock in nanoseconds, strictly increasing, ``next_load``). Removing a
document records that its loads numbered up to a bound are removed; deleting a collection
records it for every document of the collection. A later load of the same id has a larger
number, so it is not removed. Each place that keeps what a load makes (the store, the vector
index, the librarian) refuses a removed load's writes under the same lock or thread as its
removal, so whatever such a write made before the removal was there to be removed, and none
comes after it (docs/lineage.md, "Removing a load still in progress"). The chunker and the
extractor keep the same record in memory only, to stop early (``LOADS_REMOVED``).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from trustgraph_base.schema import LoadsRemoved, Metadata

_SCHEMA = """CREATE TABLE IF NOT EXISTS removed_loads (
    user TEXT NOT NULL, collection TEXT NOT NULL, document TEXT NOT NULL,
    upto INTEGER NOT NULL, PRIMARY KEY (user, collection, document))"""
_WHOLE = ""  # the document name of a record for the whole collection


class RemovedLoads:
    """The removals recorded, in memory and (with a ``path``) in sqlite, read back at start."""

    def __init__(self, path: Path | None = None) -> None:
        self._bounds: dict[tuple[str, str, str], int] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            rows = self._db.execute("SELECT user, collection, document, upto FROM removed_loads")
            self._bounds = {(str(u), str(c), str(d)): int(n) for u, c, d, n in rows}

    def add(self, user: str, collection: str, document: str, upto: int) -> None:
        """The loads of ``document`` (empty: of the whole collection) up to ``upto`` are removed
        (durably before this returns)."""
        key = (user, collection, document)
        upto = max(upto, self._bounds.get(key, 0))
        if self._db is not None:
            self._db.execute(
                "INSERT INTO removed_loads VALUES (?,?,?,?) ON CONFLICT DO UPDATE SET upto=?",
                (*key, upto, upto),
            )
        self._bounds[key] = upto

    def removed(self, meta: Metadata, document: str | None = None) -> bool:
        """Whether the load ``meta`` names (of ``document``: by default ``meta.id``, the
        pipeline's document) was removed; a message of no load never is."""
        doc = meta.id if document is None else document
        return self.gone(meta.user, meta.collection, doc, meta.load)

    def gone(self, user: str, collection: str, document: str, load: int | None) -> bool:
        """Whether load ``load`` of ``document`` was removed (None, no load: never)."""
        if load is None or not self._bounds:  # the common case: two tests
            return False
        bounds = self._bounds
        return (
            bounds.get((user, collection, document), -1) >= load
            or bounds.get((user, collection, _WHOLE), -1) >= load
        )

    def heard(self, event: LoadsRemoved) -> None:
        """Record a removal told on ``LOADS_REMOVED``."""
        self.add(event.user, event.collection, event.document, event.upto)

    @property
    def latest(self) -> int:
        """The largest bound recorded (0: none)."""
        return max(self._bounds.values(), default=0)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


class LoadClock:
    """The librarian's load numbers: nanoseconds, each larger than the last and than every
    bound already recorded (a clock set back across a restart still numbers a new load
    above the removals before it)."""

    def __init__(self, floor: int = 0) -> None:
        self._last = floor

    def next(self) -> int:
        self._last = max(time.time_ns(), self._last + 1)
        return self._last

    def passed(self, bound: int) -> None:
        """Number every later load above ``bound`` (a removal's, made by another clock)."""
        self._last = max(self._last, bound)
