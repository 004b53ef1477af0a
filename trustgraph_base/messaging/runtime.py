"""The processor runtime: a processor is one module of decorator-registered typed handlers.

    proc: Processor[ChunkerSettings, Splitter] = Processor("chunker", ChunkerSettings)

    @proc.lifespan  # opens the state before the first message, closes it after the last
    async def open_splitter(ctx: Context[ChunkerSettings]) -> AsyncIterator[Splitter]:
        splitter = Splitter(ctx.settings.chunk_size)
        yield splitter
        splitter.close()

    @proc.consumer(PAGES)  # a Topic[PageText]: the payload type comes from the topic
    async def on_page(page: PageText, ctx: Context[ChunkerSettings, Splitter]) -> None:
        ctx.state.split(page.text)  # typed: a Splitter

    @proc.service(GRAPH_RAG)
    async def answer(req: GraphRagRequest, ctx: Context[...]) -> AsyncIterator[GraphRagResponse]: ...

    main = proc.main

Policy lives here, not in handlers: payloads are validated from the message model; a
message that does not validate is logged once and dead-lettered; a consumer's message is
acked only after its handler returns, and negatively acked (then dead-lettered after a
few redeliveries) if it raises; a service handler's failure is answered as an ``Error``
and the request acked. Shutdown stops intake, drains in-flight work, and never
unsubscribes durable subscriptions. The subscriptions' runners (``dispatch``, ``batches``)
run in one ``TaskGroup``: one that dies brings the process down, non-zero.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Generic, TypeAlias, cast

from pydantic import BaseModel
from typing_extensions import TypeVar

from trustgraph_base.errors import TrustGraphError
from trustgraph_base.messaging.batches import BatchRoute, Kept
from trustgraph_base.messaging.bus import Bus
from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.dispatch import ConsumerRoute, Route
from trustgraph_base.messaging.entry import run_main
from trustgraph_base.messaging.serve import serve
from trustgraph_base.messaging.services import Req, Resp, ServiceSpec, Topic
from trustgraph_base.messaging.serving import ServiceRoute
from trustgraph_base.settings import ProcessorSettings

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
S = TypeVar("S", bound=ProcessorSettings)
T = TypeVar("T", default=object)  # the processor's state (see Processor.lifespan)

X = TypeVar("X")  # the state, in the handler types below

# Opens the state: an async generator that yields it once, and closes it after the yield.
Lifespan: TypeAlias = Callable[[Context[S]], AsyncIterator[X]]
ConsumerFn: TypeAlias = Callable[[M, Context[S, X]], Awaitable[None]]
GiveUpFn: TypeAlias = Callable[[M, Exception, Context[S, X]], Awaitable[None]]
# A batch handler may return the messages that failed on their own (to be retried).
BatchFn: TypeAlias = Callable[[list[M], Context[S, X]], Awaitable[Sequence[M] | Kept[M] | None]]
# A service handler (ServiceFn[Req, S, T, Resp]) returns its response, or is an async
# generator of responses.
ServiceFn: TypeAlias = Callable[[Req, Context[S, X]], Awaitable[Resp] | AsyncIterator[Resp]]


class Processor(Generic[S, T]):
    """A named processor: its settings class, its state's lifespan, and its handlers."""

    def __init__(self, name: str, settings_cls: type[S] | None = None) -> None:
        self.name = name
        # The module that made this processor: its docstring heads ``--help``.
        self.module: str = sys._getframe(1).f_globals.get("__name__", "")
        self.settings_cls: type[S] = settings_cls or cast(type[S], ProcessorSettings)
        self.routes: list[Route] = []
        self.opener: Callable[[Context[S]], AbstractAsyncContextManager[T]] | None = None

    # -- registration ---------------------------------------------------------------

    def service(
        self, spec: ServiceSpec[Req, Resp], *, concurrency: int | None = None, once: bool = False
    ) -> Callable[[ServiceFn[Req, S, T, Resp]], ServiceFn[Req, S, T, Resp]]:
        """Register the handler of a request/response service.

        The handler is ``async def (req, ctx) -> Resp`` or an async generator yielding
        responses (intermediate ones with ``end_of_stream=False``). It runs for up to
        ``concurrency`` requests at once (default: the ``service_concurrency`` setting).
        With ``once``, the ids of requests answered are kept in the data folder until their
        callers' deadlines, so a request delivered again after a crash is not run twice.
        """

        def register(fn: ServiceFn[Req, S, T, Resp]) -> ServiceFn[Req, S, T, Resp]:
            self._add(
                ServiceRoute(
                    subscription=f"{self.name}.{spec.name}",
                    handler=fn,
                    model=spec.request,
                    spec=spec,
                    concurrency=concurrency,
                    once=once,
                )
            )
            return fn

        return register

    def consumer(
        self,
        topic: Topic[M],
        *,
        concurrency: int = 1,
        give_up: GiveUpFn[M, S, T] | None = None,
    ) -> Callable[[ConsumerFn[M, S, T]], ConsumerFn[M, S, T]]:
        """Register ``async def (msg, ctx) -> None`` for a one-way topic (``msg`` of its type).

        ``give_up`` (``async def (msg, exc, ctx)``) runs when the handler failed on a message
        for the last time, before it is dead-lettered.
        """
        _check_topic(topic)

        def register(fn: ConsumerFn[M, S, T]) -> ConsumerFn[M, S, T]:
            self._add(
                ConsumerRoute(
                    subscription=f"{self.name}.{topic.name}",
                    handler=fn,
                    model=topic.model,
                    topic_name=topic.name,
                    concurrency=concurrency,
                    give_up=cast(Any, give_up),
                )
            )
            return fn

        return register

    def batch_consumer(
        self,
        topic: Topic[M],
        *,
        max_batch: int = 256,
        max_wait: float = 0.01,
        max_linger: float = 0.0,
    ) -> Callable[[BatchFn[M, S, T]], BatchFn[M, S, T]]:
        """Register ``async def (msgs, ctx)`` called with up to ``max_batch`` messages.

        A batch closes when it is full, when no message has come for ``max_wait`` seconds,
        or ``max_linger`` seconds (at least ``max_wait``) after its first message.

        The whole batch is acked after the handler returns (or nacked if it raises). A
        handler may return the messages that failed on their own (e.g. one collection's
        store could not be opened): only those are nacked (retried, then dead-lettered). Or
        a ``Kept``: its kept messages are acked later, each when its future says.
        """
        _check_topic(topic)

        def register(fn: BatchFn[M, S, T]) -> BatchFn[M, S, T]:
            self._add(
                BatchRoute(
                    subscription=f"{self.name}.{topic.name}",
                    handler=fn,
                    model=topic.model,
                    topic_name=topic.name,
                    max_batch=max_batch,
                    max_wait=max_wait,
                    max_linger=max_linger,
                )
            )
            return fn

        return register

    def lifespan(self, fn: Lifespan[S, T]) -> Lifespan[S, T]:
        """Register what opens the processor's state: ``async def (ctx)`` yielding it once.

        It runs before the first subscription (a resource that cannot be opened stops the
        process at start); the state is ``ctx.state`` in every handler; the code after the
        ``yield`` closes it once every handler has drained (as in ``contextlib``: put it in
        a ``finally`` to close on a failure too).
        """
        if not inspect.isasyncgenfunction(fn):
            raise TypeError(f"lifespan {fn!r} must be an async generator (one 'yield')")
        if self.opener is not None:
            raise TypeError(f"{self.name} has a lifespan already: one state object per processor")
        self.opener = asynccontextmanager(fn)
        return fn

    @asynccontextmanager
    async def context(self, settings: S, bus: Bus) -> AsyncIterator[Context[S, T]]:
        """A context with the processor's state open, closed on exit (what ``run`` serves
        in; also the seam a test uses to call handlers without a broker)."""
        ctx: Context[S, T] = Context(self.name, settings, bus)
        try:
            if self.opener is None:
                ctx._state = None
                yield ctx
                return
            async with self.opener(cast(Context[S], ctx)) as state:
                ctx._state = state
                yield ctx
        finally:
            await ctx.close()

    def _add(self, route: Route) -> None:
        fn = route.handler
        if not (inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn)):
            raise TypeError(f"handler {fn!r} must be 'async def'")
        self.routes.append(route)

    # -- running --------------------------------------------------------------------

    def main(self, argv: list[str] | None = None) -> None:
        """Entry point: settings from flags and ``TG_*`` environment, run until SIGTERM/SIGINT."""
        module = sys.modules.get(self.module)
        run_main(
            self.name, self.settings_cls, argv, self.run, about=getattr(module, "__doc__", None)
        )

    async def run(
        self, settings: S, stop: asyncio.Event, ready: asyncio.Event | None = None
    ) -> None:
        """Run until ``stop`` is set; set ``ready`` (and touch the ready file) once subscribed."""
        bus = Bus(settings.pulsar_url, token=settings.pulsar_token)
        try:
            async with self.context(settings, bus) as ctx:
                death = await serve(self.routes, ctx, stop, ready)
        finally:
            await bus.close()
            log.info("%s stopped", self.name)
        if death is not None:
            # Exit non-zero so a supervisor restarts the process (it cannot serve any more).
            raise TrustGraphError(f"{self.name} cannot go on: {death!r}")


def _check_topic(topic: object) -> None:
    if not isinstance(topic, Topic):
        raise TypeError(f"a consumer takes a Topic (e.g. PAGES), not {topic!r}")


__all__ = ["Context", "Processor"]
