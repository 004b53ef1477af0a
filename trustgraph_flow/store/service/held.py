"""Writes held for a store server (of a sharded store: a shard) that cannot be reached: one
queue a server, in arrival order, while the store goes on writing every other server's.

Each held message has a future the batch runner acks it on (``messaging.Kept``): True once
written, False to redeliver it; cancelled at a stop, it stays unacked and the broker delivers
it again. A message for a server with a queue joins the queue, so none is written before one
that came earlier. What is held is bounded (``HELD_MESSAGES``, ``HELD_QUADS`` unless the
settings ``held_messages``, ``held_quads`` say otherwise): past either the handler waits (back-pressure, logged) until the queues shrink.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from trustgraph_base.schema.core import StoreTriples, Triples

log = logging.getLogger(__name__)

Given = StoreTriples | Triples
HELD_MESSAGES = 20_000  # under the broker's unacked limit a consumer (Pulsar's: 50,000)
HELD_QUADS = 500_000  # parsed quads held in memory at most (~100-200 MB)
CONTROL = "(placement)"  # the key of writes held for a sharded store's control server


def size(m: Given) -> int:
    return len(m.quads) if isinstance(m, StoreTriples) else len(m.triples or ())


class Holds:
    """The held queues (server key → messages with their futures), on the event loop."""

    def __init__(self, most: int = HELD_MESSAGES, most_quads: int = HELD_QUADS) -> None:
        self.most, self.most_quads = most, most_quads
        self.queues: dict[str, deque[tuple[Given, asyncio.Future[bool]]]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.messages = 0
        self.quads = 0
        self._freed = asyncio.Event()
        # Collections whose seal was refused while their server was away, none of their
        # writes held (``intake.seal_refused``): told to the librarian when it answers.
        self.unsigned: dict[str, set[tuple[str, str]]] = {}
        self._watches: dict[str, asyncio.Task[None]] = {}

    def keep(
        self, held: list[tuple[str, Given]], drain: Callable[[str], Coroutine[Any, Any, None]]
    ) -> list[tuple[Given, asyncio.Future[bool]]]:
        """Queue each (key, message) in order; ``drain(key)`` is started for a new queue."""
        loop = asyncio.get_running_loop()
        kept: list[tuple[Given, asyncio.Future[bool]]] = []
        for key, m in held:
            fut: asyncio.Future[bool] = loop.create_future()
            self.queues.setdefault(key, deque()).append((m, fut))
            kept.append((m, fut))
            self.messages += 1
            self.quads += size(m)
            if key not in self._tasks:
                self._tasks[key] = asyncio.create_task(drain(key))
        return kept

    def settle(self, done: list[tuple[Given, asyncio.Future[bool]]], ok: bool) -> None:
        """Messages out of their queue: acked (``ok``) or redelivered."""
        for m, fut in done:
            self.messages -= 1
            self.quads -= size(m)
            if not fut.done():
                fut.set_result(ok)
        if done:
            self._freed.set()

    def unsigned_in(
        self, key: str, scope: tuple[str, str], tell: Callable[[str], Coroutine[Any, Any, None]]
    ) -> None:
        """``scope``'s seal waits for ``key``'s server: ``tell(key)`` is started (once a key)."""
        self.unsigned.setdefault(key, set()).add(scope)
        if key not in self._watches:
            self._watches[key] = asyncio.create_task(tell(key))

    def told(self, key: str) -> list[tuple[str, str]]:
        """The collections waiting for ``key``'s server, now it answers (their watch ends)."""
        self._watches.pop(key, None)
        return sorted(self.unsigned.pop(key, set()))

    def finished(self, key: str) -> bool:
        """Whether ``key``'s queue is empty: then it is gone (its drain ends), at once, so a
        message that comes next is written, not queued behind nothing."""
        if self.queues.get(key):
            return False
        self.queues.pop(key, None)
        self._tasks.pop(key, None)
        return True

    def holding(self, user: str, collection: str) -> str | None:
        """Why the collection is not all written yet: the server its writes wait for (None
        when none wait: the common case, one look at an empty dict)."""
        for key, queue in self.queues.items() if self.queues else ():
            n = sum(
                1
                for m, _ in queue
                if (m.metadata.user, m.metadata.collection) == (user, collection)
            )
            if n:
                who = {"": "the store server", CONTROL: "the placement table's server"}
                return f"{n} of its writes are held for {who.get(key, f'shard {key!r}')}, not written yet"
        return None

    async def room(self) -> None:
        """Wait while more than the limits is held (the consumer then takes nothing more)."""
        warned = False
        while self.messages >= self.most or self.quads >= self.most_quads:
            if not warned:
                warned = True
                log.warning(
                    "holding %d messages (%d quads) for %s, the most held: taking no more "
                    "until a server answers again",
                    self.messages,
                    self.quads,
                    ", ".join(sorted(k or "the store server" for k in self.queues)),
                )
            self._freed.clear()
            await self._freed.wait()

    async def close(self) -> None:
        """Stop every drain; what is held stays unacked (the broker delivers it again)."""
        tasks = [*self._tasks.values(), *self._watches.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for queue in self.queues.values():
            for _, fut in queue:
                fut.cancel()
        self.queues.clear()
        self._tasks.clear()
        self._watches.clear()
