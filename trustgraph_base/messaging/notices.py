"""A process's own subscription to a notice topic (``config-changed``, ``collection-deleted``).

A process that keeps what it read (the configuration cache, the collections seen to exist)
listens for the notices that make it stale under a subscription of its own
(``<client>.<process>``, dropped when it stops), so every replica hears every notice. Until
the subscription is made, and once it ends, ``listening`` is False and nothing may be kept;
``heard`` counts the notices heard, so a read during which one was heard is not kept (it may
predate it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Self
from weakref import WeakKeyDictionary

from pulsar.asyncio import Consumer

from trustgraph_base.errors import BrokerUnavailable
from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.requests import PROCESS
from trustgraph_base.messaging.services import ServiceSpec, Topic

log = logging.getLogger(__name__)


class NoticeListener:
    """Listens on ``TOPIC`` from ``start`` to ``close``; a subclass says what a notice means
    (``notice``) and drops what it kept when it stops listening (``forget_all``)."""

    TOPIC: Topic[Any]  # e.g. CONFIG_CHANGED (trustgraph_base.messaging)
    UNHEARD: str  # the warning's end when the topic cannot be subscribed to

    def __init__(self) -> None:
        self.heard = 0  # notices heard so far
        self.listening = False  # subscribed: what is read may be kept
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, ctx: Context[Any], service: ServiceSpec[Any, Any]) -> Self:
        """The process's listener of this kind: one per ``service``'s request client (one a
        process), listening from its first use."""
        kept = _kept.setdefault(ctx.client(service), {})
        found = kept.get(cls)
        if not isinstance(found, cls):
            found = kept[cls] = cls()
            found.start(ctx)
        return found

    def notice(self, data: bytes) -> None:
        """A notice's bytes were heard (count it in ``heard``)."""
        raise NotImplementedError

    def forget_all(self) -> None:
        """Drop everything kept (the subscription has ended)."""
        raise NotImplementedError

    def start(self, ctx: Context[Any]) -> None:
        """Start listening (once; things are kept from when it is subscribed)."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen(ctx), name=self.TOPIC.name)
            ctx.on_close(self.close)

    async def _listen(self, ctx: Context[Any]) -> None:
        topic = ctx.topics.topic(self.TOPIC)
        try:
            consumer = await ctx.bus.subscribe(topic, f"{ctx.client_name}.{PROCESS}")
        except BrokerUnavailable as exc:
            log.warning("not listening on %s (%s): %s", self.TOPIC, exc, self.UNHEARD)
            return
        self.listening = True
        try:
            await self._hear(consumer)
        finally:
            self.listening = False
            self.forget_all()
            await ctx.bus.unsubscribe(consumer)  # private to this process

    async def _hear(self, consumer: Consumer) -> None:
        while True:
            msg = await consumer.receive()
            self.notice(msg.data())
            await consumer.acknowledge(msg)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None


# Each process's listeners, by the request client they keep answers of and their kind.
_kept: WeakKeyDictionary[object, dict[type[NoticeListener], NoticeListener]] = WeakKeyDictionary()
