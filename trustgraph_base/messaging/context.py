"""What a handler is given: settings, publishing, requests to other services, typed state."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Generic, cast

from pydantic import BaseModel
from typing_extensions import TypeVar

from trustgraph_base.messaging.bus import Bus
from trustgraph_base.messaging.receipts import Receipt
from trustgraph_base.messaging.requests import RequestClient
from trustgraph_base.messaging.services import Req, Resp, ServiceSpec, Topic, Topics
from trustgraph_base.meter import Meter
from trustgraph_base.settings import ProcessorSettings

log = logging.getLogger(__name__)

S = TypeVar("S", bound=ProcessorSettings)
M = TypeVar("M", bound=BaseModel)
# The processor's state (what its lifespan hook opened). Unnamed, it is ``object``: a
# helper taking ``Context[Any]`` takes any processor's context, and cannot use its state.
T_co = TypeVar("T_co", covariant=True, default=object)

_UNOPENED: Any = object()


class Context(Generic[S, T_co]):
    """What a handler may use: settings, publishing, requests to other services, state.

    ``ctx.state`` is the object the processor's ``@proc.lifespan`` hook opened (typed by the
    second parameter, ``Context[Settings, State]``): it is there before the first message.
    """

    def __init__(self, name: str, settings: S, bus: Bus) -> None:
        self.name = name
        self.settings = settings
        self.bus = bus
        self.topics = Topics(settings.topic_prefix)
        self._state: Any = _UNOPENED
        self._clients: dict[str, RequestClient[Any, Any]] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self.meter = Meter()  # what it counts, reported on the bus (``reporting``)

    @property
    def state(self) -> T_co:
        """The processor's state, opened at start by its lifespan hook."""
        if self._state is _UNOPENED:
            raise RuntimeError(f"{self.name}: state asked for before the lifespan hook opened it")
        return cast(T_co, self._state)

    @property
    def client_name(self) -> str:
        return f"{self.name}-{self.settings.instance}" if self.settings.instance else self.name

    async def publish(self, topic: Topic[M], message: M, *, batching: bool = False) -> None:
        """Publish ``message`` on a one-way topic (e.g. ``TRIPLES_STORE``) of its type."""
        checked = self._checked(topic, message)
        await self.bus.publish(self.topics.topic(topic), checked, batching=batching)

    def send_now(
        self, topic: Topic[M], message: M | bytes, *, batching: bool = False
    ) -> Receipt[None]:
        """Hand ``message`` (or its wire form, already encoded) to the broker now, without
        waiting (``Bus.send_now``); awaiting the receipt returns once it is persisted."""
        payload = message if isinstance(message, bytes) else self._checked(topic, message)
        return self.bus.send_now(self.topics.topic(topic), payload, batching=batching)

    @staticmethod
    def _checked(topic: Topic[M], message: M) -> M:
        if not isinstance(message, topic.model):  # what mypy checks, for untyped callers
            raise TypeError(
                f"{topic.name} carries {topic.model.__name__}, not {type(message).__name__}"
            )
        return message

    def client(self, spec: ServiceSpec[Req, Resp]) -> RequestClient[Req, Resp]:
        """The request client for another service (one per process and service)."""
        found = self._clients.get(spec.name)
        if found is None:
            found = RequestClient(self.bus, self.topics, spec, self.client_name)
            self._clients[spec.name] = found
        return cast(RequestClient[Req, Resp], found)

    def on_close(self, close: Callable[[], Awaitable[None]]) -> None:
        """Await ``close()`` when the context closes, beside the request clients' (e.g. to
        drop a subscription private to this process)."""
        self._closers.append(close)

    async def close(self) -> None:
        # Together: each close is bounded, but in sequence they add up with the broker gone.
        await asyncio.gather(
            *(c.close() for c in self._clients.values()), *(close() for close in self._closers)
        )
