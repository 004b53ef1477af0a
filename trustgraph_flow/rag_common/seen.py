"""The collections a question answerer saw exist, forgotten when the store deletes one.

``refuse_unknown_collection`` (``nodata.py``) asks the store whether a question's collection
exists before its trace is written, and then not again for that collection in this process.
A collection deleted after that (``tg-delete-collection``) was still taken as existing, so
the next question's trace made it again. The store says ``CollectionDeleted`` on
``collection-deleted`` once it has deleted one; each process that keeps collections seen
listens there under a subscription of its own (``messaging/notices.py``, as the
configuration cache does), so every replica hears every deletion. Nothing is kept until that
subscription is made, nor once it ends; a collection asked about while a deletion was heard
is not kept (the answer may predate it).
"""

from __future__ import annotations

from trustgraph_base.errors import WireError
from trustgraph_base.messaging import COLLECTION_DELETED
from trustgraph_base.messaging.notices import NoticeListener
from trustgraph_base.schema import CollectionDeleted
from trustgraph_base.wire import decode

MAX_SEEN = 10_000  # collections kept per process; past it they are all forgotten


class SeenCollections(NoticeListener):
    """One process's (user, collection)s seen to exist."""

    TOPIC = COLLECTION_DELETED
    UNHEARD = "each collection is asked about"

    def __init__(self) -> None:
        super().__init__()
        self.keys: set[tuple[str, str]] = set()

    def __contains__(self, key: tuple[str, str]) -> bool:
        return self.listening and key in self.keys

    def keep(self, key: tuple[str, str], heard: int) -> None:
        """Keep ``key``, seen to exist by a look that began with ``heard`` deletions heard."""
        if not self.listening or heard != self.heard:
            return
        if len(self.keys) >= MAX_SEEN:
            self.keys.clear()
        self.keys.add(key)

    def deleted(self, key: tuple[str, str] | None) -> None:
        """``key`` was deleted (None: an unreadable notice, so any may have been)."""
        self.heard += 1
        if key is None:
            self.keys.clear()
        else:
            self.keys.discard(key)

    def notice(self, data: bytes) -> None:
        try:
            event = decode(CollectionDeleted, data)
        except WireError:
            self.deleted(None)
            return
        self.deleted((event.user, event.collection))

    def forget_all(self) -> None:
        self.keys.clear()
