"""Services: a request's runner answers it on its ``reply-to`` (a failure as an
``Error``), then acks it. Replies ready together go as one message; a request delivered
again (to this process, or, with ``once``, after a restart once it was answered) or whose
caller has gone is acked without running."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pulsar.asyncio import Consumer
from pydantic import BaseModel

from trustgraph_base.errors import ErrorType, ServiceError, WireError
from trustgraph_base.messaging.answered import AnsweredLog
from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.delivery import CURRENT, Delivery, deadline_of
from trustgraph_base.messaging.dispatch import OneByOne, Route, Runner
from trustgraph_base.messaging.receipts import ack_now
from trustgraph_base.messaging.requests import expired
from trustgraph_base.messaging.services import ServiceSpec, Topics
from trustgraph_base.schema.core import Error, Response
from trustgraph_base.wire import encode_pack

log = logging.getLogger(__name__)

TAKEN_MAX = 10_000  # request ids remembered per subscription for duplicate deliveries
PACK_MAX = 16  # replies held together in one message at most
# A caller that did not ask for a stream (``streaming`` false) only waits for the last
# reply: the ones before it are held for up to this long and go with it in one message, so
# they do not cost a broker round trip each. A slow handler still sends what it holds every
# HOLD_S, well inside any caller's timeout between replies.
HOLD_S = 1.0


@dataclass(frozen=True, kw_only=True)
class ServiceRoute(Route):
    spec: ServiceSpec[Any, Any]
    concurrency: int | None  # None: the ``service_concurrency`` setting
    once: bool = False  # keep answered ids on disk: a redelivery after a crash is not run

    def topic(self, topics: Topics) -> str:
        return topics.request(self.spec)

    def runner(self, consumer: Consumer, ctx: Context[Any, Any], topic: str) -> Runner:
        return ServiceRunner(self, consumer, ctx, topic)


class ServiceRunner(OneByOne):
    """Requests: each answered on its ``reply-to`` (a failure as an ``Error``), then acked."""

    def __init__(
        self, route: ServiceRoute, consumer: Consumer, ctx: Context[Any, Any], topic: str
    ) -> None:
        super().__init__(route, consumer, ctx, topic)
        self.spec = route.spec
        # Request ids this process has taken on (newest last, bounded): a second delivery of
        # one (the broker restarted while it ran, and redelivered it) is acked, not run again.
        self.taken: OrderedDict[str, None] = OrderedDict()
        # Ids answered, on disk (``once``): a redelivery after a kill between the last reply
        # and the ack (acks go in groups) is acked, not run again.
        self.answered: AnsweredLog | None = None
        if route.once:
            folder = Path(ctx.settings.data_dir) / ctx.client_name / "answered"
            self.answered = AnsweredLog(folder / f"{route.subscription}.log")

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
            ack_now(self.consumer, msg)
            return
        if self.answered is not None and rid in self.answered:
            log.info("skipping request %s on %s: answered before a restart", rid, self.topic)
            ack_now(self.consumer, msg)
            return
        if rid in self.taken:
            log.info("skipping request %s on %s: delivered again, already taken", rid, self.topic)
            ack_now(self.consumer, msg)
            return
        self.taken[rid] = None
        if len(self.taken) > TAKEN_MAX:
            self.taken.popitem(last=False)
        settled: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        deadline = deadline_of(props)
        delivery = Delivery(rid, deadline, settled)

        async def reply(resps: Sequence[Response]) -> None:
            if len(resps) == 1:
                await self.ctx.bus.publish(reply_to, resps[0], {"id": rid})
            else:  # replies ready together: one message (RequestClient unpacks it)
                await self.ctx.bus.publish(
                    reply_to, encode_pack(resps), {"id": rid, "pack": str(len(resps))}
                )
            for told in delivery.told:  # persisted: the caller has them
                told(resps)

        request = self._decode(msg)
        if isinstance(request, Exception):
            if isinstance(request, WireError):
                error = Error(type=ErrorType.BAD_REQUEST, message=str(request))
                await reply([self.spec.response(error=error)])
            await self._dead_letter(msg)
            return
        token = CURRENT.set(delivery)
        opened: list[AsyncGenerator[Any, Any]] = []
        try:
            try:
                await self._answer(request, reply, opened)
                if self.answered is not None:
                    self.answered.add(rid, deadline)  # every reply is persisted: before the ack
            except Exception:  # not answered (nacked, delivered again): its trace is not kept
                settled.set_result(None)
                raise
            # A trace's run may now be done in its journal. Cancelled (the process stops) it
            # is not: the run stays in the journal for the request's next delivery to continue.
            settled.set_result(None)
        finally:
            await _closed(opened)
            CURRENT.reset(token)
        ack_now(self.consumer, msg)

    async def _answer(
        self,
        request: BaseModel,
        reply: Callable[[Sequence[Response]], Awaitable[None]],
        opened: list[AsyncGenerator[Any, Any]],
    ) -> None:
        # A stream's replies before its last are sent without waiting for each receipt: the
        # handler goes on while they travel, in order on one producer (tasks start in the
        # order made). Replies the handler yields without pausing in between are held until
        # it pauses and go as one message; a caller that asked for no stream has them held
        # until the last (or HOLD_S). The last reply goes after every earlier one (in their
        # message when they were held with it); an error reply only once every earlier one
        # is persisted; the request is acked only once all of them are. A handler's generator
        # is put in ``opened``, for the caller to close once the request is settled.
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
                opened.append(result)
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
            self.ctx.meter.add("errors_total", route=self.route.subscription, type=exc.type)
            flush()
            await _drain(sending)
            await reply([spec.response(error=Error(type=exc.type, message=exc.message))])
        except Exception as exc:
            log.exception("service %s failed", spec.name)
            self.ctx.meter.add(
                "errors_total", route=self.route.subscription, type=ErrorType.INTERNAL_ERROR
            )
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


async def _closed(opened: list[AsyncGenerator[Any, Any]]) -> None:
    """Close the handler's generator, left at the yield of its last reply (or where an error
    or the caller's going stopped it): its ``finally`` blocks (a trace run's end, ``done`` in
    the run journal) run now, not whenever the collector finds it (never soon when a
    reference cycle holds it, as a traceback it keeps does)."""
    for generator in opened:
        try:
            await generator.aclose()
        except Exception:
            log.exception("closing a handler's replies failed")


async def _drain(sending: list[asyncio.Task[None]]) -> None:
    """Wait for the replies still on their way (before an error reply goes after them)."""
    await asyncio.gather(*sending, return_exceptions=True)
    sending.clear()
