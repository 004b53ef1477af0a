"""Decoded texts (of pages, or of page-less documents) and the chunk spans cut from them.

A text arrives in parts (each fits a message): the first in ``texts``, the others in
``text_parts`` by the character they start at, so a range is read from the parts it
covers, never the whole text. A chunk's text is derived from its parent's text and span,
never stored twice.
"""

from __future__ import annotations

from trustgraph_base.errors import ErrorType
from trustgraph_base.schema import ChunkSpan
from trustgraph_flow.librarian.documents import Documents
from trustgraph_flow.librarian.tables import Scope, StoreError, owner_document, parent_of


class Texts:
    """Texts and spans of the documents kept by ``docs``."""

    def __init__(self, docs: Documents) -> None:
        self.docs = docs
        self.db = docs.db

    def put_text(self, scope: Scope, uri: str, text: str, offset: int = 0) -> int:
        """Store a text (``offset`` 0), or append a part of it at ``offset``, which must be
        its length so far; its length now."""
        doc = owner_document(uri)
        self.docs.require(scope, doc)
        key = (scope.user, scope.collection, uri)
        if offset == 0:
            self.db.execute(
                "INSERT OR REPLACE INTO texts VALUES (?,?,?,?,?)", (*key[:2], uri, doc, text)
            )
            self.db.execute("DELETE FROM text_parts WHERE user=? AND collection=? AND id=?", key)
            return len(text)
        have = self.length(scope, uri)
        if have != offset:
            raise StoreError(
                ErrorType.BAD_REQUEST,
                f"a part of {uri!r} at offset {offset}: the text has {have or 0} characters",
            )
        self.db.execute(
            "INSERT INTO text_parts VALUES (?,?,?,?,?,?,?)", (*key, doc, offset, len(text), text)
        )
        return offset + len(text)

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

    def length(self, scope: Scope, uri: str) -> int | None:
        """Characters in a stored text (None: no text under ``uri``)."""
        key = (scope.user, scope.collection, uri)
        first = self.db.execute(
            "SELECT length(text) FROM texts WHERE user=? AND collection=? AND id=?", key
        ).fetchone()
        if first is None:
            return None
        (rest,) = self.db.execute(
            "SELECT COALESCE(SUM(length), 0) FROM text_parts "
            "WHERE user=? AND collection=? AND id=?",
            key,
        ).fetchone()
        return int(first[0]) + int(rest)

    def text(self, scope: Scope, uri: str) -> str | None:
        """The whole text of a page (or page-less document), or of a chunk."""
        found = self.read(scope, uri, 0, None)
        return None if found is None else found[0]

    def read(
        self, scope: Scope, uri: str, offset: int, length: int | None
    ) -> tuple[str, int] | None:
        """Characters ``offset`` to ``offset + length`` of a page's (or page-less
        document's) text, or of a chunk's, and how many characters it has in all."""
        total = self.length(scope, uri)
        if total is not None:
            end = total if length is None else min(total, offset + length)
            return self._range(scope, uri, offset, end), total
        span = self.db.execute(
            "SELECT parent, offset, length FROM spans WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, uri),
        ).fetchone()
        if span is None or self.length(scope, span[0]) is None:
            return None
        parent, start, size = str(span[0]), int(span[1]), int(span[2])
        end = size if length is None else min(size, offset + length)
        return self._range(scope, parent, start + offset, start + max(offset, end)), size

    def _range(self, scope: Scope, uri: str, start: int, end: int) -> str:
        """Characters ``start`` to ``end`` of a stored text, from the parts that hold them."""
        key = (scope.user, scope.collection, uri)
        parts = self.db.execute(
            "SELECT 0, text FROM texts WHERE user=? AND collection=? AND id=? "
            "UNION ALL SELECT start, text FROM text_parts WHERE user=? AND collection=? "
            "AND id=? AND start < ? AND start + length > ? ORDER BY 1",
            (*key, *key, end, start),
        ).fetchall()
        return "".join(str(text)[max(0, start - at) : max(0, end - at)] for at, text in parts)
