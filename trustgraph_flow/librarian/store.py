"""The librarian's durable store: document metadata and texts in sqlite, content as files.

Every row is keyed by (user, collection): a lookup in one user's collection never sees
another's documents. Uploads are appended part by part to a temporary file and renamed
into place (after fsync) on the final part, so a crash never leaves half a document.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from trustgraph_base.schema import ChunkSpan, DocumentInfo, IngestEvent

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    title TEXT NOT NULL, mime_type TEXT NOT NULL, time TEXT NOT NULL,
    size INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, error TEXT,
    pages INTEGER NOT NULL DEFAULT 0, chunks INTEGER NOT NULL DEFAULT 0,
    chunks_done INTEGER NOT NULL DEFAULT 0, edges INTEGER NOT NULL DEFAULT 0,
    chunk_size INTEGER, chunk_overlap INTEGER,
    next_part INTEGER NOT NULL DEFAULT 0, decoded INTEGER NOT NULL DEFAULT 0,
    pages_chunked INTEGER NOT NULL DEFAULT 0, skipped INTEGER NOT NULL DEFAULT 0,
    pages_decoded INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS texts (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS spans (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, parent TEXT NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS events (
    user TEXT NOT NULL, collection TEXT NOT NULL, document TEXT NOT NULL,
    stage TEXT NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY (user, collection, document, stage, source));
"""

_INFO_COLUMNS = (
    "id, title, mime_type, user, collection, time, size, status, pages, pages_decoded, "
    "pages_chunked, chunks, chunks_done, edges, error, chunk_size, chunk_overlap"
)
_CHILD_SUFFIX = re.compile(r"/(p|c)\d+$")


class StoreError(Exception):
    """A request the store refuses: ``type`` is the error type to answer with."""

    def __init__(self, type: str, message: str) -> None:
        super().__init__(message)
        self.type = type
        self.message = message


@dataclass(frozen=True)
class Scope:
    user: str
    collection: str


def owner_document(uri: str) -> str:
    """The document URI a page or chunk URI belongs to (``{doc}/p{n}/c{m}`` → ``{doc}``)."""
    while _CHILD_SUFFIX.search(uri):
        uri = _CHILD_SUFFIX.sub("", uri)
    return uri


def parent_of(chunk: str) -> str:
    """The page (or document) a chunk URI lies in."""
    return chunk.rsplit("/c", 1)[0]


class LibrarianStore:
    """Metadata, texts and chunk spans in sqlite; document bytes in files under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = root / "content"
        self.files.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(
            root / "librarian.db", isolation_level=None, check_same_thread=False
        )
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(documents)")}
        if "pages_decoded" not in columns:  # a store made before decode progress was kept
            self.db.execute(
                "ALTER TABLE documents ADD COLUMN pages_decoded INTEGER NOT NULL DEFAULT 0"
            )

    def close(self) -> None:
        self.db.close()

    # -- files ------------------------------------------------------------------------

    def path(self, scope: Scope, doc: str, *, partial: bool = False) -> Path:
        """Content file of a document: named by a hash, never by user-supplied text."""
        key = hashlib.sha256(f"{scope.user}\0{scope.collection}\0{doc}".encode()).hexdigest()
        return self.files / (key + (".part" if partial else ".bin"))

    def read_range(self, scope: Scope, doc: str, offset: int, length: int) -> bytes:
        with self.path(scope, doc).open("rb") as fh:
            fh.seek(offset)
            return fh.read(length)

    # -- documents ----------------------------------------------------------------------

    def get(self, scope: Scope, doc: str) -> DocumentInfo | None:
        row = self.db.execute(
            f"SELECT {_INFO_COLUMNS} FROM documents WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        ).fetchone()
        return _info(row) if row else None

    def require(self, scope: Scope, doc: str) -> DocumentInfo:
        info = self.get(scope, doc)
        if info is None:
            raise StoreError("not-found", f"no document {doc!r} in collection {scope.collection!r}")
        return info

    def documents(self, scope: Scope) -> list[DocumentInfo]:
        rows = self.db.execute(
            f"SELECT {_INFO_COLUMNS} FROM documents WHERE user=? AND collection=? "
            "ORDER BY time DESC, id",
            (scope.user, scope.collection),
        ).fetchall()
        return [_info(r) for r in rows]

    def begin_upload(self, info: DocumentInfo) -> None:
        """Record a new document in state ``uploading`` (part 0).

        Part 0 of an id still ``uploading`` starts that upload again (an abandoned upload
        never blocks its id); a document past uploading must be removed first.
        """
        scope = Scope(info.user, info.collection)
        existing = self.get(scope, info.id)
        if existing is not None and existing.status == "uploading":
            self.remove(scope, info.id)
        elif existing is not None:
            raise StoreError(
                "already-exists",
                f"document {info.id!r} already exists; remove it first (tg-remove-document)",
            )
        self.path(scope, info.id, partial=True).unlink(missing_ok=True)
        self.db.execute(
            "INSERT INTO documents (user, collection, id, title, mime_type, time, status, "
            "chunk_size, chunk_overlap) VALUES (?,?,?,?,?,?,'uploading',?,?)",
            (
                scope.user,
                scope.collection,
                info.id,
                info.title,
                info.mime_type,
                info.time,
                info.chunk_size,
                info.chunk_overlap,
            ),
        )

    def append_part(self, scope: Scope, doc: str, part: int, data: bytes) -> None:
        """Append one part to the upload's temporary file (parts must come in order)."""
        row = self.db.execute(
            "SELECT status, next_part FROM documents WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        ).fetchone()
        if row is None or row[0] != "uploading":
            raise StoreError("not-found", f"no upload in progress for document {doc!r}")
        if part != row[1]:
            raise StoreError("bad-request", f"expected part {row[1]} of {doc!r}, got part {part}")
        with self.path(scope, doc, partial=True).open("ab") as fh:
            fh.write(data)
        self.db.execute(
            "UPDATE documents SET next_part=next_part+1, size=size+? "
            "WHERE user=? AND collection=? AND id=?",
            (len(data), scope.user, scope.collection, doc),
        )

    def finish_upload(self, scope: Scope, doc: str) -> DocumentInfo:
        """Make the upload durable (fsync, rename) and mark the document ``processing``."""
        partial = self.path(scope, doc, partial=True)
        partial.touch()
        with partial.open("rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(partial, self.path(scope, doc))
        self.db.execute(
            "UPDATE documents SET status='processing' WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        )
        return self.require(scope, doc)

    def remove(self, scope: Scope, doc: str) -> None:
        """Forget a document: its file, metadata, texts, spans and events."""
        self.path(scope, doc).unlink(missing_ok=True)
        self.path(scope, doc, partial=True).unlink(missing_ok=True)
        key = (scope.user, scope.collection, doc)
        for table, column in (
            ("documents", "id"),
            ("texts", "document"),
            ("spans", "document"),
            ("events", "document"),
        ):
            self.db.execute(
                f"DELETE FROM {table} WHERE user=? AND collection=? AND {column}=?", key
            )

    def remove_collection(self, scope: Scope) -> int:
        """Forget every document of a collection; how many there were."""
        docs = self.documents(scope)
        for info in docs:
            self.remove(scope, info.id)
        return len(docs)

    # -- texts and spans -------------------------------------------------------------------

    def put_text(self, scope: Scope, uri: str, text: str) -> None:
        doc = owner_document(uri)
        self.require(scope, doc)
        self.db.execute(
            "INSERT OR REPLACE INTO texts VALUES (?,?,?,?,?)",
            (scope.user, scope.collection, uri, doc, text),
        )

    def put_spans(self, scope: Scope, spans: list[ChunkSpan]) -> None:
        rows = []
        for span in spans:
            doc = owner_document(span.id)
            self.require(scope, doc)
            rows.append(
                (
                    scope.user,
                    scope.collection,
                    span.id,
                    doc,
                    parent_of(span.id),
                    span.offset,
                    span.length,
                )
            )
        self.db.executemany("INSERT OR REPLACE INTO spans VALUES (?,?,?,?,?,?,?)", rows)

    def text(self, scope: Scope, uri: str) -> str | None:
        """The text of a page (or page-less document), or of a chunk derived from it."""
        row = self.db.execute(
            "SELECT text FROM texts WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, uri),
        ).fetchone()
        if row:
            return str(row[0])
        span = self.db.execute(
            "SELECT parent, offset, length FROM spans WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, uri),
        ).fetchone()
        if span is None:
            return None
        parent = self.text(scope, span[0])
        return None if parent is None else parent[span[1] : span[1] + span[2]]

    # -- progress -------------------------------------------------------------------------

    def record_event(self, event: IngestEvent) -> DocumentInfo | None:
        """Apply a pipeline event once (redeliveries are ignored); the updated document."""
        scope = Scope(event.metadata.user, event.metadata.collection)
        info = self.get(scope, event.document)
        if info is None:
            return None
        seen = self.db.execute(
            "INSERT OR IGNORE INTO events VALUES (?,?,?,?,?)",
            (
                scope.user,
                scope.collection,
                event.document,
                event.stage,
                event.source or event.document,
            ),
        )
        if seen.rowcount == 0:
            return info
        self._apply(scope, event)
        return self.require(scope, event.document)

    def _apply(self, scope: Scope, ev: IngestEvent) -> None:
        key = (scope.user, scope.collection, ev.document)
        where = " WHERE user=? AND collection=? AND id=?"
        if ev.stage == "failed":
            self.db.execute(
                "UPDATE documents SET status='failed', error=?" + where,
                (ev.error or "failed", *key),
            )
            return
        if ev.stage == "decoding":
            self.db.execute(
                "UPDATE documents SET pages_decoded=MAX(pages_decoded, ?)" + where, (ev.pages, *key)
            )
            return
        if ev.stage == "decoded":
            self.db.execute("UPDATE documents SET decoded=1, pages=?" + where, (ev.pages, *key))
        elif ev.stage == "chunked":
            self.db.execute(
                "UPDATE documents SET pages_chunked=pages_chunked+1, chunks=chunks+?" + where,
                (ev.chunks, *key),
            )
        else:
            self.db.execute(
                "UPDATE documents SET chunks_done=chunks_done+1, edges=edges+?, "
                "skipped=skipped+?" + where,
                (ev.edges, 1 if ev.error else 0, *key),
            )
            if ev.error:
                self.db.execute(
                    "UPDATE documents SET error=COALESCE(error, ?)" + where,
                    (f"some chunks yielded no edges: {ev.error}", *key),
                )
        self.db.execute(
            "UPDATE documents SET status='complete'" + where + " AND status='processing' "
            "AND decoded=1 AND pages_chunked >= MAX(pages, 1) AND chunks_done >= chunks",
            key,
        )


def _info(row: tuple[object, ...]) -> DocumentInfo:
    names = [c.strip() for c in _INFO_COLUMNS.split(",")]
    return DocumentInfo.model_validate(dict(zip(names, row, strict=True)))
