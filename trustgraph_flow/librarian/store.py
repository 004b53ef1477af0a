"""The librarian's durable store: document metadata and texts in sqlite, content as files.

Its rooms, each over the same database: ``documents`` (rows and content files),
``uploads`` (parts, then stored, then processing), ``texts`` (page texts and chunk spans),
``records`` (processing records, collection descriptions) and ``progress`` (pipeline events).
"""

from __future__ import annotations

from pathlib import Path

from trustgraph_flow.librarian.cores import CoreStore
from trustgraph_flow.librarian.documents import Documents
from trustgraph_flow.librarian.progress import Progress
from trustgraph_flow.librarian.records import Records
from trustgraph_flow.librarian.tables import Scope, StoreError, connect, owner_document
from trustgraph_flow.librarian.texts import Texts
from trustgraph_flow.librarian.uploads import Uploads

__all__ = ["LibrarianStore", "Scope", "StoreError", "owner_document"]


class LibrarianStore:
    """The librarian's data under ``root``: ``librarian.db``, ``content/`` and the
    knowledge cores' ``cores.db``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.db = connect(root / "librarian.db")
        self.documents = Documents(self.db, root / "content")
        self.uploads = Uploads(self.documents)
        self.texts = Texts(self.documents)
        self.records = Records(self.db)
        self.progress = Progress(self.documents)
        self.cores = CoreStore(root / "cores.db")

    def close(self) -> None:
        self.db.close()
        self.cores.close()

    def remove_collection(self, scope: Scope) -> int:
        """Forget every document of a collection, its records and description; how many
        documents there were."""
        docs = self.documents.listed(scope)
        for info in docs:
            self.documents.remove(scope, info.id)
        self.records.forget_collection(scope)
        return len(docs)
