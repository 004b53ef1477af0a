"""One subscription's receive loop and the policy it applies to each message (see runtime).

A registration is a ``Route`` of its kind (service, consumer; the batch consumer's is in
``batches``), immutable,
because a module's processor may run more than once; each run makes the route's
``Runner`` for its subscription. A runner's in-flight handlers are the tasks of its
``TaskGroup``: a stop ends intake and waits for them (the drain); a failure the message
policy does not absorb ends the runner, and with it the process.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pulsar.asyncio import Consumer
from pydantic import BaseModel

from trustgraph_base.errors import ErrorType, ServiceError, WireError
from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.requests import expired
from trustgraph_base.messaging.services import ServiceSpec, Topics
from trustgraph_base.schema.core import Error, Response
from trustgraph_base.wire import decode, encode_pack

log = logging.getLogger(__name__)

TAKEN_MAX = 10_000  # request ids remembered per subscription for duplicate deliveries
PACK_MAX = 16  # replies held together in one message at most
# A caller that did not ask for a stream (``streaming`` false) only waits for the last
# reply: the ones before it are held for up to this long and go with it in one message, so
# they do not cost a broker round trip each. A slow handler still sends what it holds every
# HOLD_S, well inside any caller's timeout between replies.
HOLD_S = 1.0


@dataclass(frozen=True, kw_only=True)
class Route(ABC):
    """A registered handler: its subscription, its payload model and its kind's policy."""

    subscription: str
    handler: Callable[..., Any]
    model: type[BaseModel]

    @abstractmethod
    def topic(self, topics: Topics) -> str:
        """The full name of the topic it consumes."""

    @abstractmethod
    def runner(self, consumer: Consumer, ctx: Context[Any, Any], topic: str) -> Runner:
        """The runner of one run's subscription."""


@dataclass(frozen=True, kw_only=True)
class ServiceRoute(Route):
    spec: ServiceSpec[Any, Any]
    concurrency: int | None  # None: the ``service_concurrency`` setting

    def topic(self, topics: Topics) -> str:
        return topics.request(self.spec)

    def runner(self, consumer: Consumer, ctx: Context[Any, Any], topic: str) -> Runner:
        return ServiceRunner(self, consumer, ctx, topic)


@dataclass(frozen=True, kw_only=True)
class ConsumerRoute(Route):
    topic_name: str
    concurrency: int

    def topic(self, topics: Topics) -> str:
        return topics.topic(self.topic_name)

    def runner(self, consumer: Consumer, ctx: Context[Any, Any], topic: str) -> Runner:
        return ConsumerRunner(self, consumer, ctx, topic)


class Runner(ABC):
    """Receives from one subscription and hands each message to the route's handler."""

    def __init__(
        self, route: Route, consumer: Consumer, ctx: Context[Any, Any], topic: str
    ) -> None:
        self.route = route
        self.consumer = consumer
        self.ctx = ctx
        self.topic = topic
        self.dlq = ctx.topics.dead_letter(topic, route.subscription)

    async def run(self, stopping: asyncio.Event, drain_timeout: float) -> None:
        """Receive until ``stopping`` is set, then wait up to ``drain_timeout`` for the
        handlers in flight; raise what ended intake or a handler's task, if anything did."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(None) as deadline, asyncio.TaskGroup() as work:
                intake = work.create_task(self._intake(work))
                await stopping.wait()
                intake.cancel()
                deadline.reschedule(loop.time() + drain_timeout)
        except TimeoutError:
            log.warning(
                "%s: in-flight work cancelled %gs after the stop", self.topic, drain_timeout
            )
        except BaseExceptionGroup as group:
            log.error("consumer %s died: %r", self.topic, group.exceptions[0])
            raise

    @abstractmethod
    async def _intake(self, work: asyncio.TaskGroup) -> None:
        """Receive for ever, starting each message's handling as a task in ``work``."""

    def _decode(self, msg: Any) -> BaseModel | Exception:
        """The message's value, or why it cannot be decoded (logged once), whatever it holds."""
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
            return exc

    async def _dead_letter(self, msg: Any) -> None:
        await self.ctx.bus.publish(self.dlq, msg.data(), dict(msg.properties()))
        await self.consumer.acknowledge(msg)


class _OneByOne(Runner):
    """Up to ``concurrency`` messages handled at once, each on its own."""

    async def _intake(self, work: asyncio.TaskGroup) -> None:
        # A service waits on other services (an LLM, the store) far more than it computes, so
        # it takes on many requests at once: with a low limit, concurrent callers queue in
        # waves behind one another (bench_concurrency). Every one is still acked after it.
        limit = cast(ServiceRoute | ConsumerRoute, self.route).concurrency
        sem = asyncio.Semaphore(limit or self.ctx.settings.service_concurrency)
        while True:
            await sem.acquire()
            try:
                msg = await self.consumer.receive()
            except BaseException:
                sem.release()
                raise
            task = work.create_task(self._dispatch(msg))
            task.add_done_callback(lambda _t: sem.release())

    async def _dispatch(self, msg: Any) -> None:
        try:
            await self._handle(msg)
        except Exception:
            log.exception("unexpected failure handling a message on %s", self.topic)
            self._forget(msg)
            await self.consumer.negative_acknowledge(msg)

    @abstractmethod
    async def _handle(self, msg: Any) -> None: ...

    def _forget(self, msg: Any) -> None:
        """A message whose handling failed: its redelivery must run."""


class ConsumerRunner(_OneByOne):
    """A one-way topic: acked after the handler returns, nacked (retried) if it raises."""

    async def _handle(self, msg: Any) -> None:
        value = self._decode(msg)
        if isinstance(value, Exception):
            await self._dead_letter(msg)
            return
        try:
            await self.route.handler(value, self.ctx)
        except Exception as exc:
            log.warning("handler failed on %s (will retry): %r", self.topic, exc)
            await self.consumer.negative_acknowledge(msg)
            return
        await self.consumer.acknowledge(msg)


class ServiceRunner(_OneByOne):
    """Requests: each answered on its ``reply-to`` (a failure as an ``Error``), then acked."""

    def __init__(
        self, route: ServiceRoute, consumer: Consumer, ctx: Context[Any, Any], topic: str
    ) -> None:
        super().__init__(route, consumer, ctx, topic)
        self.spec = route.spec
        # Request ids this process has taken on (newest last, bounded): a second delivery of
        # one (the broker restarted while it ran, and redelivered it) is acked, not run again.
        self.taken: OrderedDict[str, None] = OrderedDict()

    def _forget(self, msg: Any) -> None:
        self.taken.pop(msg.properties().get("id", ""), None)

    async def _handle(self, msg: Any) -> None:
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

        async def reply(resps: Sequence[Response]) -> None:
            if len(resps) == 1:
                await self.ctx.bus.publish(reply_to, resps[0], {"id": rid})
            else:  # replies ready together: one message (RequestClient unpacks it)
                await self.ctx.bus.publish(
                    reply_to, encode_pack(resps), {"id": rid, "pack": str(len(resps))}
                )

        request = self._decode(msg)
        if isinstance(request, Exception):
            if isinstance(request, WireError):
                error = Error(type=ErrorType.BAD_REQUEST, message=str(request))
                await reply([self.spec.response(error=error)])
            await self._dead_letter(msg)
            return
        await self._answer(request, reply)
        await self.consumer.acknowledge(msg)

    async def _answer(
        self, request: BaseModel, reply: Callable[[Sequence[Response]], Awaitable[None]]
    ) -> None:
        # A stream's replies before its last are sent without waiting for each receipt: the
        # handler goes on while they travel, in order on one producer (tasks start in the
        # order made). Replies the handler yields without pausing in between are held until
        # it pauses and go as one message; a caller that asked for no stream has them held
        # until the last (or HOLD_S). The last reply goes after every earlier one (in their
        # message when they were held with it); an error reply only once every earlier one
        # is persisted; the request is acked only once all of them are.
        spec = self.spec
        sending: list[asyncio.Task[None]] = []
        held: list[Response] = []
        streamed = getattr(request, "streaming", True) is not False
        loop = asyncio.get_running_loop()
        timer: asyncio.Handle | None = None

        def flush() -> None:
            nonlocal timer
            if timer is not None:
                timer.cancel()
                timer = None
            if held:
                sending.append(asyncio.ensure_future(reply(held[:])))
                held.clear()

        try:
            result = self.route.handler(request, self.ctx)
            if inspect.isasyncgen(result):
                last: Response = spec.response()
                async for item in result:
                    resp = cast(Response, item)
                    if resp.end_of_stream:
                        last = resp
                        break
                    if not held and streamed:  # sent once the handler pauses (or ends)
                        loop.call_soon(flush)
                    elif not held:  # not streamed: with the last, or after HOLD_S
                        timer = loop.call_later(HOLD_S, flush)
                    held.append(resp)
                    if len(held) == PACK_MAX:  # a handler that never pauses: bounded messages
                        flush()
                held.append(last)
                flush()
                while sending:
                    await sending.pop(0)  # raises BrokerUnavailable if one was not persisted
            else:
                await reply([await result])
        except ServiceError as exc:
            flush()
            await _drain(sending)
            await reply([spec.response(error=Error(type=exc.type, message=exc.message))])
        except Exception as exc:
            log.exception("service %s failed", spec.name)
            flush()
            await _drain(sending)
            message = f"{type(exc).__name__}: {exc}"
            await reply(
                [spec.response(error=Error(type=ErrorType.INTERNAL_ERROR, message=message))]
            )
        finally:
            if timer is not None:
                timer.cancel()
            for task in sending:  # only when cancelled (shutdown): nobody waits for them
                task.cancel()


async def _drain(sending: list[asyncio.Task[None]]) -> None:
    """Wait for the replies still on their way (before an error reply goes after them)."""
    await asyncio.gather(*sending, return_exceptions=True)
    sending.clear()
