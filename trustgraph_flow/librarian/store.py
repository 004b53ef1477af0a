"""The librarian's durable store: document metadata and texts in sqlite, content as files.

Every row is keyed by (user, collection): a lookup in one user's collection never sees
another's documents. Uploads are appended part by part to a temporary file and renamed
into place (after fsync) on the final part, so a crash never leaves half a document.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import (
    ChunkSpan,
    CollectionMetadata,
    DocumentInfo,
    IngestEvent,
    ProcessingMetadata,
)

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
    comments TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '[]',
    metadata TEXT NOT NULL DEFAULT '[]', upload_id TEXT,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS texts (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS spans (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, parent TEXT NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS processing (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, target TEXT NOT NULL, flow TEXT NOT NULL, time INTEGER NOT NULL,
    tags TEXT NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS collections (
    user TEXT NOT NULL, collection TEXT NOT NULL,
    name TEXT NOT NULL, description TEXT NOT NULL, tags TEXT NOT NULL,
    PRIMARY KEY (user, collection));
CREATE TABLE IF NOT EXISTS events (
    user TEXT NOT NULL, collection TEXT NOT NULL, document TEXT NOT NULL,
    stage TEXT NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY (user, collection, document, stage, source));
"""

_INFO_COLUMNS = (
    "id, title, mime_type, user, collection, time, size, status, pages, pages_decoded, "
    "pages_chunked, chunks, chunks_done, edges, error, chunk_size, chunk_overlap, "
    "comments, tags, metadata"
)
_JSON_COLUMNS = ("tags", "metadata")
# Columns added after the first release: (name, definition), added to an older store.
_ADDED = (
    ("pages_decoded", "INTEGER NOT NULL DEFAULT 0"),
    ("comments", "TEXT NOT NULL DEFAULT ''"),
    ("tags", "TEXT NOT NULL DEFAULT '[]'"),
    ("metadata", "TEXT NOT NULL DEFAULT '[]'"),
    ("upload_id", "TEXT"),
)
_CHILD_SUFFIX = re.compile(r"/(p|c)\d+$")


class StoreError(ServiceError):
    """A request the store refuses, answered with its ``type`` and ``message``."""


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
        for name, definition in _ADDED:  # a store made before these were kept
            if name not in columns:
                self.db.execute(f"ALTER TABLE documents ADD COLUMN {name} {definition}")

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
            raise StoreError(
                ErrorType.NOT_FOUND, f"no document {doc!r} in collection {scope.collection!r}"
            )
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
                ErrorType.ALREADY_EXISTS,
                f"document {info.id!r} already exists; remove it first (tg-remove-document)",
            )
        self.path(scope, info.id, partial=True).unlink(missing_ok=True)
        self.db.execute(
            "INSERT INTO documents (user, collection, id, title, mime_type, time, status, "
            "chunk_size, chunk_overlap, comments, tags, metadata) "
            "VALUES (?,?,?,?,?,?,'uploading',?,?,?,?,?)",
            (
                scope.user,
                scope.collection,
                info.id,
                info.title,
                info.mime_type,
                info.time,
                info.chunk_size,
                info.chunk_overlap,
                info.comments,
                json.dumps(info.tags),
                json.dumps(info.metadata),
            ),
        )

    def name_upload(self, scope: Scope, doc: str, upload_id: str) -> None:
        """Give an upload in progress the id its client names it by (TrustGraph's upload-id)."""
        self.db.execute(
            "UPDATE documents SET upload_id=? WHERE user=? AND collection=? AND id=?",
            (upload_id, scope.user, scope.collection, doc),
        )

    def upload(self, scope: Scope, upload_id: str) -> DocumentInfo:
        """The document an upload id names, while it is uploading; ``not-found`` otherwise."""
        row = self.db.execute(
            "SELECT id FROM documents WHERE user=? AND collection=? AND upload_id=? "
            "AND status='uploading'",
            (scope.user, scope.collection, upload_id),
        ).fetchone()
        if row is None:
            raise StoreError(
                ErrorType.NOT_FOUND, f"no upload in progress with upload-id {upload_id!r}"
            )
        return self.require(scope, str(row[0]))

    def next_part(self, scope: Scope, doc: str) -> int:
        row = self.db.execute(
            "SELECT next_part FROM documents WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        ).fetchone()
        return int(row[0]) if row else 0

    def append_part(self, scope: Scope, doc: str, part: int, data: bytes) -> None:
        """Append one part to the upload's temporary file (parts must come in order)."""
        row = self.db.execute(
            "SELECT status, next_part FROM documents WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        ).fetchone()
        if row is None or row[0] != "uploading":
            raise StoreError(ErrorType.NOT_FOUND, f"no upload in progress for document {doc!r}")
        if part != row[1]:
            raise StoreError(
                ErrorType.BAD_REQUEST, f"expected part {row[1]} of {doc!r}, got part {part}"
            )
        with self.path(scope, doc, partial=True).open("ab") as fh:
            fh.write(data)
        self.db.execute(
            "UPDATE documents SET next_part=next_part+1, size=size+? "
            "WHERE user=? AND collection=? AND id=?",
            (len(data), scope.user, scope.collection, doc),
        )

    def finish_upload(self, scope: Scope, doc: str) -> DocumentInfo:
        """Make the upload durable (fsync, rename) and mark the document ``stored``."""
        partial = self.path(scope, doc, partial=True)
        partial.touch()
        with partial.open("rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(partial, self.path(scope, doc))
        self.db.execute(
            "UPDATE documents SET status='stored' WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        )
        return self.require(scope, doc)

    def start_processing(self, scope: Scope, doc: str) -> DocumentInfo:
        """Mark a stored document ``processing`` (once: ``already-exists`` if it was)."""
        info = self.require(scope, doc)
        if info.status != "stored":
            raise StoreError(
                ErrorType.ALREADY_EXISTS,
                f"document {doc!r} is already {info.status} in collection "
                f"{scope.collection!r}; remove it there first to process it again",
            )
        self.db.execute(
            "UPDATE documents SET status='processing' WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        )
        return self.require(scope, doc)

    def copy(self, source: Scope, target: Scope, doc: str, time: str) -> DocumentInfo:
        """A stored document copied into another collection of the same user, ``stored``
        there (its content file copied under the target's name)."""
        info = self.require(source, doc)
        if info.status == "uploading":
            raise StoreError(ErrorType.NOT_READY, f"document {doc!r} is still uploading")
        if self.get(target, doc) is not None:
            raise StoreError(
                ErrorType.ALREADY_EXISTS,
                f"document {doc!r} is already in collection {target.collection!r}; "
                "remove it there first to process it again",
            )
        copied = info.model_copy(update={"collection": target.collection, "time": time})
        self.begin_upload(copied)
        shutil.copyfile(self.path(source, doc), self.path(target, doc, partial=True))
        self.db.execute(
            "UPDATE documents SET size=? WHERE user=? AND collection=? AND id=?",
            (info.size, target.user, target.collection, doc),
        )
        return self.finish_upload(target, doc)

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
            ("processing", "document"),
        ):
            self.db.execute(
                f"DELETE FROM {table} WHERE user=? AND collection=? AND {column}=?", key
            )

    def remove_collection(self, scope: Scope) -> int:
        """Forget every document of a collection; how many there were."""
        docs = self.documents(scope)
        for info in docs:
            self.remove(scope, info.id)
        key = (scope.user, scope.collection)
        for table in ("processing", "collections"):
            self.db.execute(f"DELETE FROM {table} WHERE user=? AND collection=?", key)
        return len(docs)

    # -- processing records and collections ------------------------------------------------

    def add_processing(self, scope: Scope, record: ProcessingMetadata) -> None:
        """Keep a processing record (its id unique in the collection)."""
        try:
            self.db.execute(
                "INSERT INTO processing VALUES (?,?,?,?,?,?,?,?)",
                (
                    scope.user,
                    scope.collection,
                    record.id,
                    record.document_id,
                    record.collection,
                    record.flow,
                    record.time,
                    json.dumps(record.tags),
                ),
            )
        except sqlite3.IntegrityError:
            raise StoreError(
                ErrorType.ALREADY_EXISTS, f"a processing record {record.id!r} already exists"
            ) from None

    def processing(self, scope: Scope) -> list[ProcessingMetadata]:
        rows = self.db.execute(
            "SELECT id, document, target, flow, time, tags FROM processing "
            "WHERE user=? AND collection=? ORDER BY time DESC, id",
            (scope.user, scope.collection),
        ).fetchall()
        return [
            ProcessingMetadata(
                id=r[0],
                document_id=r[1],
                collection=r[2],
                flow=r[3],
                time=r[4],
                user=scope.user,
                tags=json.loads(r[5]),
            )
            for r in rows
        ]

    def remove_processing(self, scope: Scope, record: str) -> None:
        gone = self.db.execute(
            "DELETE FROM processing WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, record),
        )
        if gone.rowcount == 0:
            raise StoreError(ErrorType.NOT_FOUND, f"no processing record {record!r}")

    def collections(self, user: str) -> list[CollectionMetadata]:
        """The user's collections: those described, and those holding documents."""
        described = {
            r[0]: CollectionMetadata(
                collection=r[0], name=r[1], description=r[2], tags=json.loads(r[3])
            )
            for r in self.db.execute(
                "SELECT collection, name, description, tags FROM collections WHERE user=?",
                (user,),
            )
        }
        for (name,) in self.db.execute(
            "SELECT DISTINCT collection FROM documents WHERE user=?", (user,)
        ):
            described.setdefault(name, CollectionMetadata(collection=name, name=name))
        return [described[k] for k in sorted(described)]

    def describe_collection(
        self,
        scope: Scope,
        *,
        name: str | None,
        description: str | None,
        tags: list[str] | None,
    ) -> CollectionMetadata:
        """Create or update a collection's description; what it now is."""
        old = next(
            (c for c in self.collections(scope.user) if c.collection == scope.collection),
            CollectionMetadata(collection=scope.collection, name=scope.collection),
        )
        new = CollectionMetadata(
            collection=scope.collection,
            name=old.name if name is None else name,
            description=old.description if description is None else description,
            tags=old.tags if tags is None else tags,
        )
        self.db.execute(
            "INSERT OR REPLACE INTO collections VALUES (?,?,?,?,?)",
            (scope.user, scope.collection, new.name, new.description, json.dumps(new.tags)),
        )
        return new

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
    values = dict(zip(names, row, strict=True))
    for name in _JSON_COLUMNS:
        values[name] = json.loads(str(values[name]))
    return DocumentInfo.model_validate(values)
