"""The broker's receipt of a message sent without waiting (``Bus.send_now``).

pulsar-client reports a receipt on one of its own threads. An ``asyncio.Future`` would have
to be completed on the event loop's thread, so every receipt would wake the loop (a write to
its self-pipe, an epoll return, a pass), even when nobody waits for it yet: a trace message's
receipt comes while the agent waits for its next LLM reply, and is looked at only when the
run ends. A ``Receipt`` is completed where it arrives, under a lock, and wakes the loop only
if a task is waiting for it at that moment.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Generator
from typing import Any

from trustgraph_base.errors import BrokerUnavailable

_PENDING: Any = object()


class Receipt:
    """Awaiting it returns once the broker has persisted the message, and raises
    ``BrokerUnavailable`` if it did not. It may be awaited any number of times."""

    __slots__ = ("_lock", "_loop", "_outcome", "_waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._outcome: BrokerUnavailable | None = _PENDING  # None: persisted
        # One future per task waiting (a task cancelled cancels its own, no other's).
        self._waiters: list[asyncio.Future[None]] = []

    def arrive(self, failure: BrokerUnavailable | None = None) -> None:
        """The broker's answer (``failure`` if it did not persist the message); any thread."""
        with self._lock:
            if self._outcome is not _PENDING:
                return
            self._outcome = failure
            waiters, self._waiters = self._waiters, []
        if waiters:
            self._loop.call_soon_threadsafe(_wake, waiters)

    def done(self) -> bool:
        return self._outcome is not _PENDING

    def __await__(self) -> Generator[Any, None, None]:
        waiter = None
        with self._lock:
            if self._outcome is _PENDING:
                waiter = self._loop.create_future()
                self._waiters.append(waiter)
        if waiter is not None:
            yield from waiter.__await__()
        if self._outcome is not None:
            raise BrokerUnavailable(str(self._outcome))


def _wake(waiters: list[asyncio.Future[None]]) -> None:
    for waiter in waiters:
        if not waiter.done():  # done: its task was cancelled
            waiter.set_result(None)
