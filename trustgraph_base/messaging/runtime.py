"""The processor runtime: a processor is one module of decorator-registered typed handlers.

    proc = Processor("chunker", ChunkerSettings)

    @proc.consumer(PAGES, PageText)
    async def on_page(page: PageText, ctx: Context) -> None: ...

    @proc.service(GRAPH_RAG)
    async def answer(req: GraphRagRequest, ctx: Context) -> AsyncIterator[GraphRagResponse]: ...

    main = proc.main

Policy lives here, not in handlers: payloads are validated from the message model; a
message that does not validate is logged once and dead-lettered; a consumer's message is
acked only after its handler returns, and negatively acked (then dead-lettered after a
few redeliveries) if it raises; a service handler's failure is answered as an ``Error``
and the request acked. Shutdown stops intake, drains in-flight work, and never
unsubscribes durable subscriptions.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, NoReturn, TypeVar, cast

from pulsar.asyncio import Consumer
from pydantic import BaseModel, ValidationError
from pydantic_settings import SettingsError

from trustgraph_base.errors import ServiceError, TrustGraphError, WireError
from trustgraph_base.messaging.bus import Bus
from trustgraph_base.messaging.requests import RequestClient
from trustgraph_base.messaging.services import Req, Resp, ServiceSpec, Topics
from trustgraph_base.schema.core import Error, Response
from trustgraph_base.settings import ProcessorSettings, load_settings
from trustgraph_base.wire import decode, describe

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
S = TypeVar("S", bound=ProcessorSettings)

ServiceHandler = Callable[[Any, "Context[Any]"], Awaitable[Any] | AsyncIterator[Any]]
ConsumerHandler = Callable[[Any, "Context[Any]"], Awaitable[None]]
BatchHandler = Callable[[list[Any], "Context[Any]"], Awaitable[None]]
Hook = Callable[["Context[Any]"], Awaitable[None]]


class Context(Generic[S]):
    """What a handler may use: settings, publishing, requests to other services, state."""

    def __init__(self, name: str, settings: S, bus: Bus) -> None:
        self.name = name
        self.settings = settings
        self.bus = bus
        self.topics = Topics(settings.topic_prefix)
        self.state: dict[str, Any] = {}
        self._clients: dict[str, RequestClient[Any, Any]] = {}

    @property
    def client_name(self) -> str:
        return f"{self.name}-{self.settings.instance}" if self.settings.instance else self.name

    async def publish(self, topic_name: str, message: BaseModel, *, batching: bool = False) -> None:
        """Publish a message on a one-way topic (by short name, e.g. ``TRIPLES_STORE``)."""
        await self.bus.publish(self.topics.topic(topic_name), message, batching=batching)

    def client(self, spec: ServiceSpec[Req, Resp]) -> RequestClient[Req, Resp]:
        """The request client for another service (one per process and service)."""
        found = self._clients.get(spec.name)
        if found is None:
            found = RequestClient(self.bus, self.topics, spec, self.client_name)
            self._clients[spec.name] = found
        return cast(RequestClient[Req, Resp], found)

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()


@dataclass
class _Route:
    topic: str
    subscription: str
    kind: str  # "service" | "consumer" | "batch"
    handler: Callable[..., Any]
    model: type[BaseModel]
    spec: ServiceSpec[Any, Any] | None = None
    concurrency: int = 1
    max_batch: int = 1
    max_wait: float = 0.0


class Processor(Generic[S]):
    """A named processor: its settings class, handlers and lifecycle hooks."""

    def __init__(self, name: str, settings_cls: type[S] | None = None) -> None:
        self.name = name
        self.settings_cls: type[S] = settings_cls or cast(type[S], ProcessorSettings)
        self.routes: list[_Route] = []
        self.startup: list[Hook] = []
        self.shutdown: list[Hook] = []

    # -- registration ---------------------------------------------------------------

    def service(
        self, spec: ServiceSpec[Req, Resp], *, concurrency: int = 16
    ) -> Callable[[Any], Any]:
        """Register the handler of a request/response service.

        The handler is ``async def (req, ctx) -> Resp`` or an async generator yielding
        responses (intermediate ones with ``end_of_stream=False``).
        """

        def register(fn: Any) -> Any:
            self._check(fn)
            self.routes.append(
                _Route(
                    "", f"{self.name}.{spec.name}", "service", fn, spec.request, spec, concurrency
                )
            )
            return fn

        return register

    def consumer(
        self, topic_name: str, model: type[M], *, concurrency: int = 1
    ) -> Callable[[Any], Any]:
        """Register ``async def (msg, ctx) -> None`` for a one-way topic."""

        def register(fn: Any) -> Any:
            self._check(fn)
            self.routes.append(
                _Route(
                    topic_name,
                    f"{self.name}.{topic_name}",
                    "consumer",
                    fn,
                    model,
                    None,
                    concurrency,
                )
            )
            return fn

        return register

    def batch_consumer(
        self, topic_name: str, model: type[M], *, max_batch: int = 256, max_wait: float = 0.01
    ) -> Callable[[Any], Any]:
        """Register ``async def (msgs, ctx) -> None`` called with up to ``max_batch`` messages.

        The whole batch is acked after the handler returns (or nacked if it raises).
        """

        def register(fn: Any) -> Any:
            self._check(fn)
            self.routes.append(
                _Route(
                    topic_name,
                    f"{self.name}.{topic_name}",
                    "batch",
                    fn,
                    model,
                    None,
                    1,
                    max_batch,
                    max_wait,
                )
            )
            return fn

        return register

    def on_start(self, fn: Hook) -> Hook:
        """Run before any consumer starts (open stores, load models)."""
        self.startup.append(fn)
        return fn

    def on_stop(self, fn: Hook) -> Hook:
        """Run after every consumer has drained."""
        self.shutdown.append(fn)
        return fn

    @staticmethod
    def _check(fn: Any) -> None:
        if not (inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn)):
            raise TypeError(f"handler {fn!r} must be 'async def'")

    # -- running --------------------------------------------------------------------

    def main(self, argv: list[str] | None = None) -> None:
        """Entry point: settings from flags and ``TG_*`` environment, run until SIGTERM/SIGINT."""
        run_main(self.name, self.settings_cls, argv, self.run)

    async def run(
        self, settings: S, stop: asyncio.Event, ready: asyncio.Event | None = None
    ) -> None:
        """Run until ``stop`` is set; set ``ready`` (and touch the ready file) once subscribed."""
        bus = Bus(settings.pulsar_url)
        ctx: Context[S] = Context(self.name, settings, bus)
        runners: list[_Runner] = []
        try:
            for hook in self.startup:
                await hook(ctx)
            for route in self.routes:
                topic = (
                    ctx.topics.request(route.spec) if route.spec else ctx.topics.topic(route.topic)
                )
                dlq = ctx.topics.dead_letter(topic, route.subscription)
                consumer = await bus.subscribe(topic, route.subscription, dead_letter_topic=dlq)
                runners.append(_Runner(route, consumer, ctx, topic, dlq))
            tasks = [asyncio.create_task(r.run(), name=r.topic) for r in runners]
            if settings.ready_file:
                _touch(settings.ready_file)
            if ready is not None:
                ready.set()
            log.info("%s ready on %s", self.name, settings.pulsar_url)
            stopper = asyncio.create_task(stop.wait())
            done, _ = await asyncio.wait([stopper, *tasks], return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            for task in done:
                if task is not stopper and task.exception() is not None:
                    log.error("consumer %s died: %r", task.get_name(), task.exception())
            log.info("%s stopping: draining in-flight work", self.name)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(
                *(r.drain(settings.drain_timeout) for r in runners), return_exceptions=True
            )
        finally:
            for hook in self.shutdown:
                try:
                    await hook(ctx)
                except Exception:
                    log.exception("shutdown hook failed")
            await ctx.close()
            await bus.close()
            log.info("%s stopped", self.name)


def run_main(
    name: str,
    settings_cls: type[S],
    argv: list[str] | None,
    body: Callable[[S, asyncio.Event], Awaitable[None]],
) -> NoReturn:
    """Run a long-lived process: parse settings, log to stderr, stop on SIGTERM/SIGINT.

    A bad setting is one line and exit 2; a startup failure one line and exit 1. The
    process ends with ``os._exit`` once everything is drained and closed: pulsar-client's
    C++ objects can crash in their destructors at interpreter teardown (seen under load as
    an abort or a segfault after a clean stop), and nothing is left to run by then.
    """
    try:
        settings = load_settings(settings_cls, argv, prog=name)
    except (ValidationError, SettingsError) as exc:
        detail = describe(exc) if isinstance(exc, ValidationError) else str(exc)
        print(f"{name}: bad setting: {detail}", file=sys.stderr)
        _exit(2)
    logging.basicConfig(
        level=settings.log_level.upper(),
        format=f"%(asctime)s {name} %(levelname)s %(message)s",
        stream=sys.stderr,
    )

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await body(settings, stop)

    code = 0
    try:
        asyncio.run(main())
    except (TrustGraphError, OSError) as exc:
        log.error("%s", exc)
        code = 1
    except Exception:
        log.exception("%s failed", name)
        code = 1
    _exit(code)


def _exit(code: int) -> NoReturn:
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _touch(path: str) -> None:
    Path(path).write_text(str(time.time()))


@dataclass
class _Runner:
    """Receives from one subscription and dispatches to its handler under the route's policy."""

    route: _Route
    consumer: Consumer
    ctx: Context[Any]
    topic: str
    dlq: str
    inflight: set[asyncio.Task[None]] = field(default_factory=set)
    pending: asyncio.Future[Any] | None = None  # a batch consumer's receive in progress

    async def run(self) -> None:
        if self.route.kind == "batch":
            await self._run_batches()
            return
        sem = asyncio.Semaphore(self.route.concurrency)
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
            await self.consumer.negative_acknowledge(msg)

    def _decode(self, msg: Any) -> BaseModel | None:
        try:
            return decode(self.route.model, msg.data())
        except WireError as exc:
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
        finished = False
        try:
            result = self.route.handler(request, self.ctx)
            if inspect.isasyncgen(result):
                async for item in result:
                    resp = cast(Response, item)
                    await reply(resp)
                    if resp.end_of_stream:
                        finished = True
                        break
                if not finished:
                    await reply(spec.response())
            else:
                await reply(await result)
        except ServiceError as exc:
            await reply(spec.response(error=Error(type=exc.type, message=exc.message)))
        except Exception as exc:
            log.exception("service %s failed", spec.name)
            await reply(
                spec.response(
                    error=Error(type="internal-error", message=f"{type(exc).__name__}: {exc}")
                )
            )

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

    async def _collect(self, writing: asyncio.Task[None] | None) -> tuple[list[Any], list[BaseModel]]:
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
        try:
            await self.route.handler(values, self.ctx)
        except Exception as exc:
            log.warning("batch handler failed on %s (will retry): %r", self.topic, exc)
            for msg in good:
                await self.consumer.negative_acknowledge(msg)
            return
        for msg in good:
            await self.consumer.acknowledge(msg)
