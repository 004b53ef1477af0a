"""One subscription's receive loop and the policy it applies to each message (see runtime).

A registration is a ``Route`` of its kind (consumer here; the service's is in ``serving``,
the batch consumer's in ``batches``), immutable,
because a module's processor may run more than once; each run makes the route's
``Runner`` for its subscription. A runner's in-flight handlers are the tasks of its
``TaskGroup``: a stop ends intake and waits for them (the drain); a failure the message
policy does not absorb ends the runner, and with it the process.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from pulsar.asyncio import Consumer
from pydantic import BaseModel

from trustgraph_base.errors import MessageTooLarge
from trustgraph_base.messaging.bus import MAX_REDELIVERIES
from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.receipts import ack_now, next_message
from trustgraph_base.messaging.services import Topics
from trustgraph_base.wire import decode

log = logging.getLogger(__name__)


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
class ConsumerRoute(Route):
    topic_name: str
    concurrency: int
    # Called with the message, the failure and the context when the handler failed on a
    # message for the last time (it goes to the dead-letter topic next): a pipeline stage
    # says so downstream instead of leaving its work in progress for good.
    give_up: Callable[[Any, Exception, Context[Any, Any]], Awaitable[None]] | None = None

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
        ack_now(self.consumer, msg)

    async def _retry(
        self, msg: Any, giving_up: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """A message whose handling failed: delivered again (negatively acknowledged), or,
        once it has failed ``MAX_REDELIVERIES`` redeliveries already, dead-lettered, after
        ``giving_up()`` (the one place that decides a try was the last)."""
        if msg.redelivery_count() < MAX_REDELIVERIES:
            await self.consumer.negative_acknowledge(msg)
            return
        log.error(
            "dead-lettering a message on %s (id=%s): failed %d times",
            self.topic,
            msg.properties().get("id", "-"),
            msg.redelivery_count() + 1,
        )
        if giving_up is not None:
            await giving_up()
        await self._dead_letter(msg)


class OneByOne(Runner):
    """Up to ``concurrency`` messages handled at once, each on its own."""

    async def _intake(self, work: asyncio.TaskGroup) -> None:
        # A service waits on other services (an LLM, the store) far more than it computes, so
        # it takes on many requests at once: with a low limit, concurrent callers queue in
        # waves behind one another (bench_concurrency). Every one is still acked after it.
        limit = getattr(self.route, "concurrency", None)
        sem = asyncio.Semaphore(limit or self.ctx.settings.service_concurrency)
        while True:
            await sem.acquire()
            try:
                msg = await next_message(self.consumer)
            except BaseException:
                sem.release()
                raise
            task = work.create_task(self._dispatch(msg))
            task.add_done_callback(lambda _t: sem.release())

    async def _dispatch(self, msg: Any) -> None:
        meter, route = self.ctx.meter, self.route.subscription
        try:
            with meter.timed("handling_seconds", route=route):
                await self._handle(msg)
            meter.add("messages_total", route=route, outcome="done")
        except Exception:
            log.exception("unexpected failure handling a message on %s", self.topic)
            meter.add("messages_total", route=route, outcome="retried")
            self._forget(msg)
            await self._retry(msg)

    @abstractmethod
    async def _handle(self, msg: Any) -> None: ...

    def _forget(self, msg: Any) -> None:
        """A message whose handling failed: its redelivery must run."""


class ConsumerRunner(OneByOne):
    """A one-way topic: acked after the handler returns, nacked (retried) if it raises."""

    async def _handle(self, msg: Any) -> None:
        value = self._decode(msg)
        if isinstance(value, Exception):
            await self._dead_letter(msg)
            return
        try:
            await self.route.handler(value, self.ctx)
        except MessageTooLarge as exc:  # fails the same way on every retry
            log.error("handler failed on %s (dead-lettered, not retried): %s", self.topic, exc)
            await self._give_up(value, exc)
            await self._dead_letter(msg)
            return
        except Exception as exc:
            log.warning(
                "handler failed on %s (try %d of %d): %r",
                self.topic,
                msg.redelivery_count() + 1,
                MAX_REDELIVERIES + 1,
                exc,
            )
            await self._retry(msg, partial(self._give_up, value, exc))
            return
        ack_now(self.consumer, msg)

    async def _give_up(self, value: BaseModel, exc: Exception) -> None:
        give_up = cast(ConsumerRoute, self.route).give_up
        if give_up is None:
            return
        try:
            await give_up(value, exc, self.ctx)
        except Exception:
            log.exception("giving up a message on %s failed too", self.topic)
