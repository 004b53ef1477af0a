"""One subscription's receive loop and the policy it applies to each message (see runtime)."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from pulsar.asyncio import Consumer
from pydantic import BaseModel

from trustgraph_base.errors import ServiceError, WireError
from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.requests import expired
from trustgraph_base.messaging.services import ServiceSpec
from trustgraph_base.schema.core import Error, Response
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import decode

log = logging.getLogger(__name__)

TAKEN_MAX = 10_000  # request ids remembered per subscription for duplicate deliveries

S = TypeVar("S", bound=ProcessorSettings)


@dataclass
class Route:
    topic: str
    subscription: str
    kind: str  # "service" | "consumer" | "batch"
    handler: Callable[..., Any]
    model: type[BaseModel]
    spec: ServiceSpec[Any, Any] | None = None
    concurrency: int | None = 1  # None: the ``service_concurrency`` setting
    max_batch: int = 1
    max_wait: float = 0.0


@dataclass
class Runner:
    """Receives from one subscription and dispatches to its handler under the route's policy."""

    route: Route
    consumer: Consumer
    ctx: Context[Any, Any]
    topic: str
    dlq: str
    inflight: set[asyncio.Task[None]] = field(default_factory=set)
    pending: asyncio.Future[Any] | None = None  # a batch consumer's receive in progress
    # Request ids this process has taken on (newest last, bounded): a second delivery of
    # one (the broker restarted while it ran, and redelivered it) is acked, not run again.
    taken: OrderedDict[str, None] = field(default_factory=OrderedDict)

    async def run(self) -> None:
        if self.route.kind == "batch":
            await self._run_batches()
            return
        # A service waits on other services (an LLM, the store) far more than it computes, so
        # it takes on many requests at once: with a low limit, concurrent callers queue in
        # waves behind one another (bench_concurrency). Every one is still acked after it.
        limit = self.route.concurrency or self.ctx.settings.service_concurrency
        sem = asyncio.Semaphore(limit)
        while True:
            await sem.acquire()
            try:
                msg = await self.consumer.receive()
            except BaseException:
                sem.release()
                raise
            task = asyncio.create_task(self._dispatch(msg))
            self.inflight.add(task)
            task.add_done_callback(self.inflight.discard)
            task.add_done_callback(lambda _t: sem.release())

    async def drain(self, timeout: float) -> None:
        if self.inflight:
            await asyncio.wait(set(self.inflight), timeout=timeout)

    async def _dispatch(self, msg: Any) -> None:
        try:
            if self.route.kind == "service":
                await self._serve(msg)
            else:
                await self._consume(msg)
        except Exception:
            log.exception("unexpected failure handling a message on %s", self.topic)
            self.taken.pop(msg.properties().get("id", ""), None)  # its redelivery must run
            await self.consumer.negative_acknowledge(msg)

    def _decode(self, msg: Any) -> BaseModel | None:
        """The message's value, or None (logged once) when it cannot be decoded, whatever it holds."""
        try:
            return decode(self.route.model, msg.data())
        except (
            Exception
        ) as exc:  # WireError; anything else from a decoder must not kill the consumer
            log.warning(
                "dead-lettering malformed message on %s (id=%s): %s",
                self.topic,
                msg.properties().get("id", "-"),
                exc,
            )
            return None

    async def _dead_letter(self, msg: Any) -> None:
        await self.ctx.bus.publish(self.dlq, msg.data(), dict(msg.properties()))
        await self.consumer.acknowledge(msg)

    async def _consume(self, msg: Any) -> None:
        value = self._decode(msg)
        if value is None:
            await self._dead_letter(msg)
            return
        try:
            await self.route.handler(value, self.ctx)
        except Exception as exc:
            log.warning("handler failed on %s (will retry): %r", self.topic, exc)
            await self.consumer.negative_acknowledge(msg)
            return
        await self.consumer.acknowledge(msg)

    async def _serve(self, msg: Any) -> None:
        spec = self.route.spec
        assert spec is not None
        props = msg.properties()
        reply_to, rid = props.get("reply-to", ""), props.get("id", "")
        if not reply_to or not rid:
            log.warning("request on %s without id/reply-to: dead-lettered", self.topic)
            await self._dead_letter(msg)
            return
        if expired(props):
            # Redelivered after a crash (or queued too long): its caller has given up, and
            # running it now would only leave a second trace nobody asked for.
            log.info("skipping request %s on %s: its caller stopped waiting", rid, self.topic)
            await self.consumer.acknowledge(msg)
            return
        if rid in self.taken:
            log.info("skipping request %s on %s: delivered again, already taken", rid, self.topic)
            await self.consumer.acknowledge(msg)
            return
        self.taken[rid] = None
        if len(self.taken) > TAKEN_MAX:
            self.taken.popitem(last=False)

        async def reply(resp: Response) -> None:
            await self.ctx.bus.publish(reply_to, resp, {"id": rid})

        request = self._decode(msg)
        if request is None:
            try:
                decode(spec.request, msg.data())
            except WireError as exc:
                await reply(spec.response(error=Error(type="bad-request", message=str(exc))))
            await self._dead_letter(msg)
            return
        await self._answer(request, reply, spec)
        await self.consumer.acknowledge(msg)

    async def _answer(
        self,
        request: BaseModel,
        reply: Callable[[Response], Awaitable[None]],
        spec: ServiceSpec[Any, Any],
    ) -> None:
        # A stream's replies before its last are sent without waiting for each receipt: the
        # handler goes on while they travel, in order on one producer (tasks start in the
        # order made). Every one is persisted before the last reply (or an error) is sent,
        # and so before the request is acked.
        sending: list[asyncio.Task[None]] = []
        try:
            result = self.route.handler(request, self.ctx)
            if inspect.isasyncgen(result):
                last: Response = spec.response()
                async for item in result:
                    resp = cast(Response, item)
                    if resp.end_of_stream:
                        last = resp
                        break
                    sending.append(asyncio.ensure_future(reply(resp)))
                while sending:
                    await sending.pop(0)  # raises BrokerUnavailable if one was not persisted
                await reply(last)
            else:
                await reply(await result)
        except ServiceError as exc:
            await _drain(sending)
            await reply(spec.response(error=Error(type=exc.type, message=exc.message)))
        except Exception as exc:
            log.exception("service %s failed", spec.name)
            await _drain(sending)
            await reply(
                spec.response(
                    error=Error(type="internal-error", message=f"{type(exc).__name__}: {exc}")
                )
            )
        finally:
            for task in sending:  # only when cancelled (shutdown): nobody waits for them
                task.cancel()

    async def _run_batches(self) -> None:
        # A receive is never cancelled on a timeout: the client would still hand its next
        # message to the abandoned future, and that message would be lost (never acked,
        # never redelivered while the consumer lives). An unfinished receive carries over.
        #
        # Batches are pipelined: while batch N's handler runs (its write releases the GIL),
        # batch N+1 is received and decoded message by message, and it keeps growing past
        # ``max_wait`` until N is done (or it is full). N+1's handler starts only once N's
        # handler and acks are done: batches are handled in order, and each message is
        # acked strictly after the handler that holds it has returned.
        writing: asyncio.Task[None] | None = None
        try:
            while True:
                good, values = await self._collect(writing)
                if writing is not None:
                    await asyncio.shield(writing)
                    writing = None
                if values:
                    writing = asyncio.create_task(self._handle_batch(good, values))
                    self.inflight.add(writing)
                    writing.add_done_callback(self.inflight.discard)
        finally:
            if self.pending is not None:
                self.pending.cancel()

    def _receive(self) -> asyncio.Future[Any]:
        """The receive in progress, started if there is none (it is never abandoned)."""
        if self.pending is None:
            self.pending = asyncio.ensure_future(self.consumer.receive())
        return self.pending

    async def _collect(
        self, writing: asyncio.Task[None] | None
    ) -> tuple[list[Any], list[BaseModel]]:
        """One batch, decoded as it arrives: closed when full, or once ``max_wait`` has passed
        since its first message and the previous batch's handler is done."""
        good: list[Any] = []
        values: list[BaseModel] = []
        deadline: float | None = None
        while len(good) < self.route.max_batch:
            receiving = self._receive()
            if deadline is None:  # nothing yet: wait for a message however long it takes
                await asyncio.shield(receiving)
            else:
                waiting: set[asyncio.Future[Any]] = {receiving}
                timeout: float | None = deadline - time.monotonic()
                if timeout is not None and timeout <= 0:
                    if writing is None or writing.done():
                        break
                    waiting.add(writing)
                    timeout = None
                await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                if not receiving.done():
                    continue  # max_wait passed, or the previous batch is done: check again
            msg, self.pending = receiving.result(), None
            if deadline is None:
                deadline = time.monotonic() + self.route.max_wait
            value = self._decode(msg)
            if value is None:
                await self._dead_letter(msg)
                continue
            good.append(msg)
            values.append(value)
        return good, values

    async def _handle_batch(self, good: list[Any], values: list[BaseModel]) -> None:
        """Ack the batch once the handler returns; nack all if it raises, or only the values
        it returns (those failed for a reason of their own: the rest are done)."""
        try:
            failed = await self.route.handler(values, self.ctx)
        except Exception as exc:
            log.warning("batch handler failed on %s (will retry): %r", self.topic, exc)
            for msg in good:
                await self.consumer.negative_acknowledge(msg)
            return
        retry = {id(v) for v in failed or ()}
        for msg, value in zip(good, values, strict=True):
            if id(value) in retry:
                await self.consumer.negative_acknowledge(msg)
            else:
                await self.consumer.acknowledge(msg)


async def _drain(sending: list[asyncio.Task[None]]) -> None:
    """Wait for the replies still on their way (before an error reply goes after them)."""
    await asyncio.gather(*sending, return_exceptions=True)
    sending.clear()
