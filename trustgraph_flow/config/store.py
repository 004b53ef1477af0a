"""The configuration on disk: one SQLite file, a row per user, type and key, each change
committed before it is answered (``synchronous=FULL``: a kill loses nothing answered).

A user's view of a type is the defaults (``values.DEFAULTS``) overlaid by what they put; a
default they delete is kept as a row without a value, so it stays deleted.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from trustgraph_flow.config.values import DEFAULTS, PROMPT

_SCHEMA = """
CREATE TABLE IF NOT EXISTS config (
    user TEXT NOT NULL, type TEXT NOT NULL, key TEXT NOT NULL, value TEXT,
    PRIMARY KEY (user, type, key)
);
CREATE TABLE IF NOT EXISTS version (user TEXT PRIMARY KEY, version INTEGER NOT NULL);
"""


class ConfigStore:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / "config.sqlite", check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_SCHEMA)
        self.lock = threading.Lock()

    def close(self) -> None:
        self.db.close()

    def view(self, user: str, type_: str) -> dict[str, str]:
        """``user``'s keys and values of ``type_`` (defaults included), by key."""
        out = dict(DEFAULTS.get(type_, {}))
        with self.lock:
            rows = self.db.execute(
                "SELECT key, value FROM config WHERE user = ? AND type = ?", (user, type_)
            ).fetchall()
        for key, value in rows:
            if value is None:
                out.pop(key, None)
            else:
                out[key] = value
        return dict(sorted(out.items()))

    def everything(self, user: str) -> dict[str, dict[str, str]]:
        with self.lock:
            types = {
                t
                for (t,) in self.db.execute(
                    "SELECT DISTINCT type FROM config WHERE user = ?", (user,)
                )
            }
        return {t: v for t in sorted(types | set(DEFAULTS)) if (v := self.view(user, t))}

    def count(self, user: str) -> int:
        """How many rows ``user`` has (values and hidden defaults)."""
        with self.lock:
            row = self.db.execute("SELECT COUNT(*) FROM config WHERE user = ?", (user,)).fetchone()
        return int(row[0])

    def version(self, user: str) -> int:
        with self.lock:
            row = self.db.execute("SELECT version FROM version WHERE user = ?", (user,)).fetchone()
        return int(row[0]) if row else 0

    def put(self, user: str, values: Iterable[tuple[str, str, str]]) -> int:
        """Set each ``(type, key, value)`` in one transaction; the new version."""
        with self.lock, self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO config (user, type, key, value) VALUES (?, ?, ?, ?)",
                [(user, t, k, v) for t, k, v in values],
            )
            return self._bump(user)

    def delete(self, user: str, keys: Iterable[tuple[str, str]]) -> int:
        """Remove each ``(type, key)``: a default is hidden, except a prompt's, which is back
        to its default (every prompt has a template); the new version."""
        with self.lock, self.db:
            for t, k in keys:
                if t != PROMPT and k in DEFAULTS.get(t, {}):
                    self.db.execute(
                        "INSERT OR REPLACE INTO config (user, type, key, value) VALUES (?, ?, ?, NULL)",
                        (user, t, k),
                    )
                else:
                    self.db.execute(
                        "DELETE FROM config WHERE user = ? AND type = ? AND key = ?", (user, t, k)
                    )
            return self._bump(user)

    def _bump(self, user: str) -> int:
        self.db.execute(
            "INSERT INTO version (user, version) VALUES (?, 1) "
            "ON CONFLICT(user) DO UPDATE SET version = version + 1",
            (user,),
        )
        row = self.db.execute("SELECT version FROM version WHERE user = ?", (user,)).fetchone()
        return int(row[0])
