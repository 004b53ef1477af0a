"""The broker's receipt of a message sent without waiting (``Bus.send_now``).

pulsar-client reports a receipt on one of its own threads. An ``asyncio.Future`` would have
to be completed on the event loop's thread, so every receipt would wake the loop (a write to
its self-pipe, an epoll return, a pass), even when nobody waits for it yet: a trace message's
receipt comes while the agent waits for its next LLM reply, and is looked at only when the
run ends. A ``Receipt`` is completed where it arrives, under a lock, and wakes the loop only
if a task is waiting for it at that moment. The batch consumer receives a batch's first
message through one too (``lazy_receive``); the messages that come while its batch is
collecting and no write runs wait in pulsar-client's queue, with no receive pending, and are
taken at the batch's deadline (``queued``). Every consumer receives so
(``lazy_receive``: a message already queued costs no wake at all) and acknowledges without
a future (``ack_now``): pulsar.asyncio's ``receive`` and ``acknowledge`` each woke the loop
through its self-pipe for every message, ~17 µs of CPU per message received.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar

import _pulsar
import pulsar
from pulsar.asyncio import Consumer

from trustgraph_base.errors import BrokerUnavailable

log = logging.getLogger(__name__)
_PENDING: Any = object()
T = TypeVar("T")


class Receipt(Generic[T]):
    """Awaiting it returns (its value: a received message, or None for a send) once the
    broker has answered, and raises ``BrokerUnavailable`` if it failed. It may be awaited
    any number of times; ``when`` is the ``time.monotonic()`` of the answer."""

    __slots__ = ("_lock", "_loop", "_outcome", "_waiters", "value", "when")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._outcome: BrokerUnavailable | None = _PENDING  # None: done
        # One future per task waiting (a task cancelled cancels its own, no other's).
        self._waiters: list[asyncio.Future[None]] = []
        self.value: T | None = None
        self.when = 0.0

    def arrive(self, failure: BrokerUnavailable | None = None, value: T | None = None) -> None:
        """The broker's answer (``failure`` if it failed); any thread."""
        with self._lock:
            if self._outcome is not _PENDING:
                return
            self.value, self.when = value, time.monotonic()
            self._outcome = failure
            waiters, self._waiters = self._waiters, []
        if waiters:
            self._loop.call_soon_threadsafe(_wake, waiters)

    def done(self) -> bool:
        return self._outcome is not _PENDING

    def ok(self) -> bool:
        """Whether the answer has come and is a success (no waiting)."""
        return self._outcome is None

    def waiter(self) -> asyncio.Future[None]:
        """A future done once the answer has come (for ``asyncio.wait``; the loop thread)."""
        waiter: asyncio.Future[None] = self._loop.create_future()
        with self._lock:
            if self._outcome is _PENDING:
                self._waiters.append(waiter)
                return waiter
        waiter.set_result(None)
        return waiter

    def __await__(self) -> Generator[Any, None, T | None]:
        if not self.done():  # ``waiter`` looks again under the lock
            yield from self.waiter().__await__()
        if self._outcome is not None:
            raise BrokerUnavailable(str(self._outcome))
        return self.value


def _wake(waiters: list[asyncio.Future[None]]) -> None:
    for waiter in waiters:
        if not waiter.done():  # done: its task was cancelled
            waiter.set_result(None)


class Watched(Consumer):  # type: ignore[misc]  # pulsar.asyncio has no types
    """A consumer that counts the receives asked of it: one that asks for nothing is quiet
    (the bus kicks its subscription, ``kicks.py``)."""

    def __init__(self, consumer: Consumer) -> None:
        super().__init__(consumer._consumer, consumer._schema)
        self.taken = 0
        self.taking: Callable[[], None] | None = None  # set while the kicks' looks stopped

    def took(self) -> None:
        """Count a receive asked of it (and start the looks again if they stopped)."""
        self.taken += 1
        if self.taking is not None:
            self.taking()

    async def receive(self) -> pulsar.Message:
        self.took()
        return await super().receive()


def lazy_receive(consumer: Consumer) -> Receipt[pulsar.Message]:
    """The consumer's next message (pulsar.asyncio's ``receive`` less its Task-bound future,
    whose completion wakes the loop for every message)."""
    if isinstance(consumer, Watched):
        consumer.took()
    got: Receipt[pulsar.Message] = Receipt(asyncio.get_running_loop())
    schema = consumer._schema

    def arrived(result: Any, msg: Any) -> None:  # a pulsar-client thread, or this one
        if result == _pulsar.Result.Ok:
            message = pulsar.Message()
            message._message, message._schema = msg, schema
            got.arrive(value=message)
        else:
            got.arrive(BrokerUnavailable(f"cannot receive: {result}"))

    consumer._consumer.receive_async(arrived)
    return got


def queued(consumer: Consumer, most: int) -> list[pulsar.Message]:
    """Up to ``most`` messages the consumer holds already, none waited for, and no receive
    left pending: a message that comes later waits in pulsar-client's queue, where a
    pending receive's callback would take the GIL on pulsar-client's threads for it."""
    if isinstance(consumer, Watched):
        consumer.took()
    got: list[pulsar.Message] = []
    schema = consumer._schema
    while len(got) < most:
        try:
            msg = consumer._consumer.receive(0)
        except _pulsar.Timeout:
            break
        except _pulsar.PulsarException as exc:
            raise BrokerUnavailable(f"cannot receive: {exc}") from exc
        message = pulsar.Message()
        message._message, message._schema = msg, schema
        got.append(message)
    return got


def ack_now(consumer: Consumer, msg: pulsar.Message) -> None:
    """Acknowledge ``msg`` now, without waiting (pulsar.asyncio's ``acknowledge`` less its
    future): pulsar-client takes it at once, and groups acknowledgements to the broker as it
    does for every consumer. One that fails is logged: the message comes again, as after a
    lost acknowledgement, and every consumer here takes a message delivered twice."""

    def acked(result: Any) -> None:  # a pulsar-client thread, or this one
        if result != _pulsar.Result.Ok:
            log.warning("acknowledging on %s failed (%s): it comes again", consumer.topic(), result)

    consumer._consumer.acknowledge_async(msg._message, acked)


async def next_message(consumer: Consumer) -> pulsar.Message:
    """The consumer's next message, received as ``lazy_receive`` does (``BrokerUnavailable``
    if the receive failed)."""
    msg = await lazy_receive(consumer)
    assert msg is not None  # a receive's receipt holds its message
    return msg
