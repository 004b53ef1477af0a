"""Knowledge cores on disk: each user's cores, part by part, in ``cores.db`` beside the
librarian's database (sqlite, WAL; each put is written before it is answered).

A core is ``(user, kind, id)``: kind ``kg`` (triples and graph-embeddings parts) or ``de``
(document-embeddings parts). ``loads`` remembers which collections a core was loaded into,
so that unloading it knows where its vectors went.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS parts (
    user TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL,
    part TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (user, kind, id, seq));
CREATE TABLE IF NOT EXISTS loads (
    user TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, collection TEXT NOT NULL,
    PRIMARY KEY (user, kind, id, collection));
"""

USER_BYTES_MAX = 512 * 1024 * 1024  # what one user's cores may hold in all
USER_CORES_MAX = 1000  # cores of one kind one user may hold


class CoreStore:
    """The knowledge cores of every user (each call acts on one user's only)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)
        self._writing = threading.Lock()  # a part's bounds check and its insert, together

    def close(self) -> None:
        self.db.close()

    def ids(self, user: str, kind: str) -> list[str]:
        rows = self.db.execute(
            "SELECT DISTINCT id FROM parts WHERE user=? AND kind=? ORDER BY id", (user, kind)
        )
        return [r[0] for r in rows]

    def exists(self, user: str, kind: str, core: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM parts WHERE user=? AND kind=? AND id=? LIMIT 1", (user, kind, core)
        ).fetchone()
        return row is not None

    def require(self, user: str, kind: str, core: str) -> None:
        if not self.exists(user, kind, core):
            raise ServiceError(ErrorType.NOT_FOUND, f"no knowledge core {core!r} ({kind})")

    def append(self, user: str, kind: str, core: str, part: str, body: dict[str, Any]) -> None:
        """Add one part to the core (made by its first part), within the user's bounds."""
        text = json.dumps(body, separators=(",", ":"))
        with self._writing:
            self._append(user, kind, core, part, text)

    def _append(self, user: str, kind: str, core: str, part: str, text: str) -> None:
        used = self.db.execute(
            "SELECT COALESCE(SUM(LENGTH(body)), 0) FROM parts WHERE user=?", (user,)
        ).fetchone()[0]
        if used + len(text) > USER_BYTES_MAX:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"knowledge: a user's cores hold at most {USER_BYTES_MAX} bytes; delete some first",
            )
        if not self.exists(user, kind, core) and len(self.ids(user, kind)) >= USER_CORES_MAX:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"knowledge: at most {USER_CORES_MAX} cores of a kind per user; delete some first",
            )
        seq = self.db.execute(
            "SELECT COALESCE(MAX(seq), -1) + 1 FROM parts WHERE user=? AND kind=? AND id=?",
            (user, kind, core),
        ).fetchone()[0]
        self.db.execute(
            "INSERT INTO parts (user, kind, id, seq, part, body) VALUES (?, ?, ?, ?, ?, ?)",
            (user, kind, core, seq, part, text),
        )

    def parts(
        self, user: str, kind: str, core: str, after: int = -1, limit: int = 50
    ) -> list[tuple[int, str, dict[str, Any]]]:
        """Up to ``limit`` of the core's parts after part ``after``, in the order they were
        put: (sequence number, part name, body)."""
        rows = self.db.execute(
            "SELECT seq, part, body FROM parts WHERE user=? AND kind=? AND id=? AND seq>? "
            "ORDER BY seq LIMIT ?",
            (user, kind, core, after, limit),
        )
        return [(seq, part, json.loads(body)) for seq, part, body in rows]

    def delete(self, user: str, kind: str, core: str) -> None:
        self.require(user, kind, core)
        self.db.execute("DELETE FROM parts WHERE user=? AND kind=? AND id=?", (user, kind, core))

    def loaded(self, user: str, kind: str, core: str, collection: str) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO loads (user, kind, id, collection) VALUES (?, ?, ?, ?)",
            (user, kind, core, collection),
        )

    def unloaded(self, user: str, kind: str, core: str) -> list[str]:
        """Forget where the core was loaded; the collections it was loaded into."""
        rows = self.db.execute(
            "SELECT collection FROM loads WHERE user=? AND kind=? AND id=? ORDER BY collection",
            (user, kind, core),
        ).fetchall()
        self.db.execute("DELETE FROM loads WHERE user=? AND kind=? AND id=?", (user, kind, core))
        return [r[0] for r in rows]
