"""The collections a question answerer saw exist, forgotten when the store deletes one.

``refuse_unknown_collection`` (``nodata.py``) asks the store whether a question's collection
exists before its trace is written, and then not again for that collection in this process.
A collection deleted after that (``tg-delete-collection``) was still taken as existing, so
the next question's trace made it again. The store says ``CollectionDeleted`` on
``collection-deleted`` once it has deleted one; each process that keeps collections seen
listens there under a subscription of its own (``<client>.<process>``, dropped when it
stops), as the configuration cache does (``config/cache.py``), so every replica hears every
deletion. Nothing is kept until that subscription is made, nor once it ends; a collection
asked about while a deletion was heard is not kept (the answer may predate it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any
from weakref import WeakKeyDictionary

from pulsar.asyncio import Consumer

from trustgraph_base.errors import BrokerUnavailable, WireError
from trustgraph_base.messaging import COLLECTION_DELETED, EXPLAIN, Context
from trustgraph_base.messaging.requests import PROCESS
from trustgraph_base.schema import CollectionDeleted
from trustgraph_base.wire import decode

log = logging.getLogger(__name__)
MAX_SEEN = 10_000  # collections kept per process; past it they are all forgotten


class SeenCollections:
    """One process's (user, collection)s seen to exist."""

    def __init__(self) -> None:
        self.keys: set[tuple[str, str]] = set()
        self.heard = 0  # deletions heard so far
        self.listening = False
        self._task: asyncio.Task[None] | None = None

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

    def start(self, ctx: Context[Any]) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._listen(ctx), name="collection-deleted")
            ctx.on_close(self.close)

    async def _listen(self, ctx: Context[Any]) -> None:
        topic = ctx.topics.topic(COLLECTION_DELETED)
        try:
            consumer = await ctx.bus.subscribe(topic, f"{ctx.client_name}.{PROCESS}")
        except BrokerUnavailable as exc:
            log.warning("not listening for deleted collections (%s): each is asked about", exc)
            return
        self.listening = True
        try:
            await self._hear(consumer)
        finally:
            self.listening = False
            self.keys.clear()
            await ctx.bus.unsubscribe(consumer)  # private to this process

    async def _hear(self, consumer: Consumer) -> None:
        while True:
            msg = await consumer.receive()
            try:
                event = decode(CollectionDeleted, msg.data())
                self.deleted((event.user, event.collection))
            except WireError:
                self.deleted(None)
            await consumer.acknowledge(msg)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None


_seen: WeakKeyDictionary[object, SeenCollections] = WeakKeyDictionary()


def seen_of(ctx: Context[Any]) -> SeenCollections:
    """This process's collections seen (one per store client, listening from the first use)."""
    client = ctx.client(EXPLAIN)
    found = _seen.get(client)
    if found is None:
        found = _seen[client] = SeenCollections()
        found.start(ctx)
    return found
