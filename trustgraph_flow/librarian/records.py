"""Processing records (TrustGraph's ``processing-metadata``) and collection descriptions."""

from __future__ import annotations

import json
import sqlite3

from trustgraph_base.errors import ErrorType
from trustgraph_base.schema import CollectionMetadata, ProcessingMetadata
from trustgraph_flow.librarian.tables import Scope, StoreError


class Records:
    """Processing records and collection descriptions in ``db``."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def add(self, scope: Scope, record: ProcessingMetadata) -> None:
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

    def listed(self, scope: Scope) -> list[ProcessingMetadata]:
        """The collection's processing records, newest first."""
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

    def remove(self, scope: Scope, record: str) -> None:
        gone = self.db.execute(
            "DELETE FROM processing WHERE user=? AND collection=? AND id=?",
            (scope.user, scope.collection, record),
        )
        if gone.rowcount == 0:
            raise StoreError(ErrorType.NOT_FOUND, f"no processing record {record!r}")

    def forget_collection(self, scope: Scope) -> None:
        """Drop the collection's records and description."""
        key = (scope.user, scope.collection)
        for table in ("processing", "collections"):
            self.db.execute(f"DELETE FROM {table} WHERE user=? AND collection=?", key)

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
