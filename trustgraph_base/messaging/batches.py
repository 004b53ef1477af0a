"""The batch consumer (the store's write path): messages handled a batch at a time.

Batches are pipelined: while batch N's handler runs (its write releases the GIL), batch
N+1 is received, and it keeps growing until N is done (or it is full). A batch closes once
no message has come for ``max_wait`` or ``max_linger`` has passed since its first (and the
previous handler is done): a steady stream makes batches of up to ``max_linger`` of it, a
lone message waits only ``max_wait``. N+1's handler starts only once N's handler and acks
are done: batches are handled in order, and each message is acked strictly after the
handler that holds it has returned.

A message is decoded (pydantic, the store's N-Quads parse) as it arrives while the
previous batch's handler is still running: the decoding overlaps the write, which is what
bulk ingest needs. Otherwise it is kept as it came, and decoded when its batch closes or
once ``RAW_MAX`` messages are waiting, whichever comes first. A few messages at a time (an
agent's trace: one per step, < ``max_wait`` apart) so cost the consumer no CPU while their
producer is still busy: their decoding waits for the pause that closes the batch instead
of competing with the producer for the machine's cores on every message. Nor are they
received one by one: once a batch is open and no handler runs, no receive is left pending
and the messages that came are taken from pulsar-client's queue at each deadline
(``receipts.queued``), each counted as come when it was published: a pending receive's
callback takes the GIL on two of pulsar-client's threads for the message it gets. A
deadline that finds ``STREAM`` messages or more has a stream: it is received as it comes
again, and past ``RAW_MAX`` decoded in those small groups as it comes, so its decoding
keeps pace with the stream and never holds the event loop (which also answers the store's
queries) for long. Either way the batch keeps the order its messages came in, and a
message that cannot be decoded is dead-lettered alone when it is decoded; the rest of its
batch goes on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from pulsar.asyncio import Consumer
from pydantic import BaseModel

from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.dispatch import Route, Runner
from trustgraph_base.messaging.receipts import Receipt, ack_now, lazy_receive, queued
from trustgraph_base.messaging.services import Topics

log = logging.getLogger(__name__)

# Messages of an open batch kept undecoded at most (while no handler runs): more is a
# stream, not one agent session's trace, and is decoded this many at a time as it comes.
RAW_MAX = 32
# Messages found come at one deadline that make a stream: it is received as it comes.
STREAM = 8
M = TypeVar("M")


@dataclass(frozen=True)
class Kept(Generic[M]):
    """A batch handler's answer when it keeps messages past its return (the store's writes
    for a server that is down): ``retry`` are redelivered now, each of ``kept`` is acked
    once its future is True, redelivered if False, left unacked if cancelled (the broker
    delivers it again after a stop); the rest of the batch is acked now."""

    retry: Sequence[M]
    kept: Sequence[tuple[M, asyncio.Future[bool]]]


@dataclass(frozen=True, kw_only=True)
class BatchRoute(Route):
    topic_name: str
    max_batch: int
    max_wait: float
    max_linger: float

    def topic(self, topics: Topics) -> str:
        return topics.topic(self.topic_name)

    def runner(self, consumer: Consumer, ctx: Context[Any, Any], topic: str) -> Runner:
        return BatchRunner(self, consumer, ctx, topic)


class BatchRunner(Runner):
    """Up to ``max_batch`` messages per handler call; acked (or nacked) once it returns."""

    def __init__(
        self, route: BatchRoute, consumer: Consumer, ctx: Context[Any, Any], topic: str
    ) -> None:
        super().__init__(route, consumer, ctx, topic)
        self.max_batch, self.max_wait = route.max_batch, route.max_wait
        self.max_linger = max(route.max_linger, route.max_wait)
        self.pending: Receipt[Any] | None = None  # a receive in progress
        self._settling: set[asyncio.Task[None]] = set()  # kept messages being redelivered

    async def _intake(self, work: asyncio.TaskGroup) -> None:
        # A receive is never abandoned on a timeout: the client would still hand its next
        # message to it, and that message would be lost (never acked, never redelivered
        # while the consumer lives). An unfinished receive carries over.
        writing: asyncio.Task[None] | None = None
        try:
            while True:
                good, values = await self._collect(writing)
                if writing is not None:
                    await asyncio.shield(writing)  # a stop lets the batch in hand finish
                    writing = None
                if values:
                    writing = work.create_task(self._handle_batch(good, values))
        finally:
            self.pending = None  # its message, if one comes, is redelivered once we close

    def _receive(self) -> Receipt[Any]:
        """The receive in progress, started if there is none (it is never abandoned)."""
        if self.pending is None:
            self.pending = lazy_receive(self.consumer)
        return self.pending

    async def _collect(
        self, writing: asyncio.Task[None] | None
    ) -> tuple[list[Any], list[BaseModel]]:
        """One batch: closed when full, or once the stream paused for ``max_wait`` or
        ``max_linger`` has passed since its first message, and the previous batch's handler
        is done. Decoded as it arrives while that handler runs, otherwise when it closes
        or ``RAW_MAX`` messages wait. While no handler runs, a message that comes is looked
        at when the batch's deadline comes (with any others that came meanwhile), not the
        moment it comes: a few messages cost this process one wake-up per ``max_wait``,
        not one each, and none a receive (taken from the queue at the deadline, it counts
        as come when it was published)."""
        good: list[Any] = []
        values: list[BaseModel] = []
        raw: list[Any] = []  # received, not decoded yet (they come after ``good``'s)
        first: float | None = None
        last = 0.0
        trickle = True  # no receive kept pending: what comes is taken at the deadlines
        while len(good) + len(raw) < self.max_batch:
            if trickle and first is not None and self.pending is None:
                if writing is None or writing.done():
                    came, last = await self._at_deadline(first, last, len(good) + len(raw))
                    if not came:
                        break  # the stream paused for ``max_wait``, or the batch lingered
                    raw.extend(came)
                    trickle = len(came) < STREAM  # a stream: received as it comes
                    if len(raw) >= RAW_MAX:
                        await self._take(raw, good, values)
                    continue
            receiving = self._receive()
            if first is not None and not receiving.done():
                deadline = min(last + self.max_wait, first + self.max_linger)
                timeout = deadline - time.monotonic()
                busy = writing is not None and not writing.done()
                if timeout <= 0:
                    if not busy:
                        break
                    assert writing is not None
                    waiting: set[asyncio.Future[Any]] = {receiving.waiter(), writing}
                    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                elif busy:  # the decoding overlaps the write: each message as it comes
                    await asyncio.wait({receiving.waiter()}, timeout=timeout)
                else:
                    await asyncio.sleep(timeout)
                continue  # a message came, a pause or the linger passed, or the write ended
            msg = await receiving  # nothing yet: wait for a message however long it takes
            self.pending = None
            # Found waiting (pulsar-client holds what came meanwhile): it counts as come now.
            last = receiving.when
            if first is None:
                first = last
            raw.append(msg)
            if len(raw) >= RAW_MAX or (writing is not None and not writing.done()):
                await self._take(raw, good, values)  # overlaps the write, or a stream
        await self._take(raw, good, values)
        return good, values

    async def _at_deadline(self, first: float, last: float, held: int) -> tuple[list[Any], float]:
        """The messages that came for an open batch by its deadline (none: it closes), and
        when the last of them came: its publish time, between the last one's and now (a
        producer's clock may be off)."""
        timeout = min(last + self.max_wait, first + self.max_linger) - time.monotonic()
        if timeout > 0:
            await asyncio.sleep(timeout)
        now = time.monotonic()
        if now >= first + self.max_linger:
            return [], last  # what came meanwhile goes in the next batch
        came = queued(self.consumer, self.max_batch - held)
        if came:
            sent = max(m.publish_timestamp() for m in came) / 1000 - time.time() + now
            last = min(max(sent, last), now)
        return came, last

    async def _take(self, raw: list[Any], good: list[Any], values: list[BaseModel]) -> None:
        """Decode ``raw`` in order into the batch (emptying it); dead-letter, each alone,
        those that cannot be decoded."""
        for msg in raw:
            value = self._decode(msg)
            if isinstance(value, Exception):
                await self._dead_letter(msg)
                continue
            good.append(msg)
            values.append(value)
        raw.clear()

    async def _handle_batch(self, good: list[Any], values: list[BaseModel]) -> None:
        """Ack the batch once the handler returns; nack all if it raises, or only the values
        it returns (those failed for a reason of their own: the rest are done); those it
        keeps (``Kept``) are acked or nacked when their futures say."""
        meter, route = self.ctx.meter, self.route.subscription
        try:
            with meter.timed("handling_seconds", route=route):
                failed = await self.route.handler(values, self.ctx)
        except Exception as exc:
            log.warning("batch handler failed on %s (will retry): %r", self.topic, exc)
            meter.add("messages_total", len(good), route=route, outcome="retried")
            for msg in good:
                await self._retry(msg)
            return
        later: dict[int, asyncio.Future[bool]] = {}
        if isinstance(failed, Kept):
            later = {id(v): f for v, f in failed.kept}
            failed = failed.retry
        retry = {id(v) for v in failed or ()}
        meter.add(
            "messages_total", len(good) - len(retry) - len(later), route=route, outcome="done"
        )
        meter.add("messages_total", len(retry), route=route, outcome="retried")
        for msg, value in zip(good, values, strict=True):
            if id(value) in retry:
                await self._retry(msg)
            elif id(value) in later:
                later[id(value)].add_done_callback(partial(self._settled, msg))
            else:
                ack_now(self.consumer, msg)

    def _settled(self, msg: Any, fut: asyncio.Future[bool]) -> None:
        """A kept message's outcome: acked, redelivered, or (cancelled) left unacked."""
        if fut.cancelled():
            return
        route = self.route.subscription
        if fut.result():
            self.ctx.meter.add("messages_total", 1, route=route, outcome="done")
            ack_now(self.consumer, msg)
            return
        self.ctx.meter.add("messages_total", 1, route=route, outcome="retried")
        task = asyncio.ensure_future(self._retry(msg))
        self._settling.add(task)
        task.add_done_callback(self._settling.discard)
