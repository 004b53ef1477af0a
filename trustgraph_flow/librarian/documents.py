"""The librarian's documents: their rows (metadata and progress) and content files."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from trustgraph_base.errors import ErrorType
from trustgraph_base.schema import DocumentInfo
from trustgraph_flow.librarian.tables import Scope, StoreError

_INFO_COLUMNS = (
    "id, title, mime_type, user, collection, time, size, status, pages, pages_decoded, "
    "pages_chunked, chunks, chunks_done, chunks_made, chunks_split, edges, error, unsealed = 2 AS sealing, held, chunk_size, chunk_overlap, "
    "comments, tags, metadata"
)
_JSON_COLUMNS = ("tags", "metadata")  # (``unsealed = 2``: sealing.ASKING)
# Rows that belong to a document, by the column naming it: removed with it.
_OWNED = (
    ("documents", "id"),
    ("texts", "document"),
    ("text_parts", "document"),
    ("spans", "document"),
    ("events", "document"),
    ("processing", "document"),
)


class Documents:
    """Document rows in ``db``; document bytes in files under ``files``."""

    def __init__(self, db: sqlite3.Connection, files: Path) -> None:
        self.db = db
        self.files = files
        files.mkdir(parents=True, exist_ok=True)

    def path(self, scope: Scope, doc: str, *, partial: bool = False) -> Path:
        """Content file of a document: named by a hash, never by user-supplied text."""
        key = hashlib.sha256(f"{scope.user}\0{scope.collection}\0{doc}".encode()).hexdigest()
        return self.files / (key + (".part" if partial else ".bin"))

    def read_range(self, scope: Scope, doc: str, offset: int, length: int) -> bytes:
        with self.path(scope, doc).open("rb") as fh:
            fh.seek(offset)
            return fh.read(length)

    def get(self, scope: Scope, doc: str) -> DocumentInfo | None:
        row = self.db.execute(
            f"SELECT {_INFO_COLUMNS} FROM documents WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        ).fetchone()
        return _info(row) if row else None

    def require(self, scope: Scope, doc: str) -> DocumentInfo:
        info = self.get(scope, doc)
        if info is None:
            raise StoreError(
                ErrorType.NOT_FOUND, f"no document {doc!r} in collection {scope.collection!r}"
            )
        return info

    def listed(self, scope: Scope) -> list[DocumentInfo]:
        """The collection's documents, newest first."""
        rows = self.db.execute(
            f"SELECT {_INFO_COLUMNS} FROM documents WHERE user=? AND collection=? "
            "ORDER BY time DESC, id",
            (scope.user, scope.collection),
        ).fetchall()
        return [_info(r) for r in rows]

    def remove(self, scope: Scope, doc: str) -> None:
        """Forget a document: its files, metadata, texts, spans, events and records."""
        self.path(scope, doc).unlink(missing_ok=True)
        self.path(scope, doc, partial=True).unlink(missing_ok=True)
        key = (scope.user, scope.collection, doc)
        for table, column in _OWNED:
            self.db.execute(
                f"DELETE FROM {table} WHERE user=? AND collection=? AND {column}=?", key
            )


def _info(row: tuple[object, ...]) -> DocumentInfo:
    names = [c.split(" AS ")[-1].strip() for c in _INFO_COLUMNS.split(",")]
    values = dict(zip(names, row, strict=True))
    for name in _JSON_COLUMNS:
        values[name] = json.loads(str(values[name]))
    return DocumentInfo.model_validate(values)
