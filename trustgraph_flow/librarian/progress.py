"""Ingestion progress: pipeline events applied once each to a document's counters."""

from __future__ import annotations

from trustgraph_base.schema import DocumentInfo, IngestEvent
from trustgraph_flow.librarian.documents import Documents
from trustgraph_flow.librarian.tables import Scope


class Progress:
    """Applies ``IngestEvent``s to the documents kept by ``docs``."""

    def __init__(self, docs: Documents) -> None:
        self.docs = docs
        self.db = docs.db

    def record(self, event: IngestEvent) -> DocumentInfo | None:
        """Apply a pipeline event once (redeliveries are ignored); the updated document."""
        scope = Scope(event.metadata.user, event.metadata.collection)
        info = self.docs.get(scope, event.document)
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
        return self.docs.require(scope, event.document)

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
        if ev.stage in ("split", "chunking"):
            column = "chunks_split" if ev.stage == "split" else "chunks_made"
            self.db.execute(
                f"UPDATE documents SET {column}=MAX({column}, ?)" + where, (ev.chunks, *key)
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
