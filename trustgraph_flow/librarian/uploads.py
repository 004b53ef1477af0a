"""Uploads: a document's bytes appended part by part, then made durable and ``stored``.

Parts go to a temporary file that is renamed into place (after fsync) on the final part,
so a crash never leaves half a document.
"""

from __future__ import annotations

import json
import os
import shutil
import time

from trustgraph_base.errors import ErrorType
from trustgraph_base.schema import DocumentInfo
from trustgraph_flow.librarian.documents import Documents
from trustgraph_flow.librarian.tables import Scope, StoreError


class Uploads:
    """The upload and processing states of documents kept by ``docs``."""

    def __init__(self, docs: Documents) -> None:
        self.docs = docs
        self.db = docs.db

    def begin(self, info: DocumentInfo) -> None:
        """Record a new document in state ``uploading`` (part 0).

        Part 0 of an id still ``uploading`` starts that upload again (an abandoned upload
        never blocks its id); a document past uploading must be removed first.
        """
        scope = Scope(info.user, info.collection)
        existing = self.docs.get(scope, info.id)
        if existing is not None and existing.status == "uploading":
            self.docs.remove(scope, info.id)
        elif existing is not None:
            raise StoreError(
                ErrorType.ALREADY_EXISTS,
                f"document {info.id!r} already exists; remove it first (tg-remove-document)",
            )
        self.docs.path(scope, info.id, partial=True).unlink(missing_ok=True)
        self.db.execute(
            "INSERT INTO documents (user, collection, id, title, mime_type, time, status, "
            "chunk_size, chunk_overlap, comments, tags, metadata, touched) "
            "VALUES (?,?,?,?,?,?,'uploading',?,?,?,?,?,?)",
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
                time.time(),
            ),
        )

    def name(self, scope: Scope, doc: str, upload_id: str) -> None:
        """Give an upload in progress the id its client names it by (TrustGraph's upload-id)."""
        self.db.execute(
            "UPDATE documents SET upload_id=? WHERE user=? AND collection=? AND id=?",
            (upload_id, scope.user, scope.collection, doc),
        )

    def named(self, scope: Scope, upload_id: str) -> DocumentInfo:
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
        return self.docs.require(scope, str(row[0]))

    def drop_idle(self, scope: Scope, seconds: float) -> int:
        """Forget the collection's uploads that received no part for ``seconds`` (their
        client gave up or died mid-upload); how many."""
        idle = self.db.execute(
            "SELECT id FROM documents WHERE user=? AND collection=? AND status='uploading' "
            "AND COALESCE(touched, 0) < ?",
            (scope.user, scope.collection, time.time() - seconds),
        ).fetchall()
        for (doc,) in idle:
            self.docs.remove(scope, str(doc))
        return len(idle)

    def declare(
        self, scope: Scope, doc: str, total_size: int | None, on_complete: str | None
    ) -> None:
        """Keep what an upload's client declared at its start: its size in bytes, and the
        processing to start once it is complete (a ``ProcessingMetadata``, wire JSON)."""
        self.db.execute(
            "UPDATE documents SET total_size=?, on_complete=? "
            "WHERE user=? AND collection=? AND id=?",
            (total_size, on_complete, scope.user, scope.collection, doc),
        )

    def declared(self, scope: Scope, doc: str) -> tuple[int | None, str | None]:
        """The size and the processing an upload's client declared (None: nothing)."""
        row = self.db.execute(
            "SELECT total_size, on_complete FROM documents WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        ).fetchone()
        return (None, None) if row is None else (row[0], row[1])

    def next_part(self, scope: Scope, doc: str) -> int:
        row = self.db.execute(
            "SELECT next_part FROM documents WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        ).fetchone()
        return int(row[0]) if row else 0

    def append(self, scope: Scope, doc: str, part: int, data: bytes) -> None:
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
        with self.docs.path(scope, doc, partial=True).open("ab") as fh:
            fh.write(data)
        self.db.execute(
            "UPDATE documents SET next_part=next_part+1, size=size+?, touched=? "
            "WHERE user=? AND collection=? AND id=?",
            (len(data), time.time(), scope.user, scope.collection, doc),
        )

    def finish(self, scope: Scope, doc: str) -> DocumentInfo:
        """Make the upload durable (fsync, rename) and mark the document ``stored``."""
        partial = self.docs.path(scope, doc, partial=True)
        partial.touch()
        with partial.open("rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(partial, self.docs.path(scope, doc))
        self.db.execute(
            "UPDATE documents SET status='stored' WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, doc),
        )
        return self.docs.require(scope, doc)

    def start_processing(self, scope: Scope, doc: str) -> DocumentInfo:
        """Mark a stored document ``processing`` (once: ``already-exists`` if it was)."""
        info = self.docs.require(scope, doc)
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
        return self.docs.require(scope, doc)

    def copy(self, source: Scope, target: Scope, doc: str, time: str) -> DocumentInfo:
        """A stored document copied into another collection of the same user, ``stored``
        there (its content file copied under the target's name)."""
        info = self.docs.require(source, doc)
        if info.status == "uploading":
            raise StoreError(ErrorType.NOT_READY, f"document {doc!r} is still uploading")
        if self.docs.get(target, doc) is not None:
            raise StoreError(
                ErrorType.ALREADY_EXISTS,
                f"document {doc!r} is already in collection {target.collection!r}; "
                "remove it there first to process it again",
            )
        copied = info.model_copy(update={"collection": target.collection, "time": time})
        self.begin(copied)
        shutil.copyfile(self.docs.path(source, doc), self.docs.path(target, doc, partial=True))
        self.db.execute(
            "UPDATE documents SET size=? WHERE user=? AND collection=? AND id=?",
            (info.size, target.user, target.collection, doc),
        )
        return self.finish(target, doc)
