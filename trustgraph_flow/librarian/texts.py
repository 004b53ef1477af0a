"""Decoded texts (of pages, or of page-less documents) and the chunk spans cut from them.

A chunk's text is derived from its parent's text and span, never stored twice.
"""

from __future__ import annotations

from trustgraph_base.schema import ChunkSpan
from trustgraph_flow.librarian.documents import Documents
from trustgraph_flow.librarian.tables import Scope, owner_document, parent_of


class Texts:
    """Texts and spans of the documents kept by ``docs``."""

    def __init__(self, docs: Documents) -> None:
        self.docs = docs
        self.db = docs.db

    def put_text(self, scope: Scope, uri: str, text: str) -> None:
        doc = owner_document(uri)
        self.docs.require(scope, doc)
        self.db.execute(
            "INSERT OR REPLACE INTO texts VALUES (?,?,?,?,?)",
            (scope.user, scope.collection, uri, doc, text),
        )

    def put_spans(self, scope: Scope, spans: list[ChunkSpan]) -> None:
        rows = []
        for span in spans:
            doc = owner_document(span.id)
            self.docs.require(scope, doc)
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
