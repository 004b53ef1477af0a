"""Request/response over Pulsar: correlate replies by the ``id`` property.

Each requester has its own reply topic (``<service>.reply.<client>``) named in the
``reply-to`` property of every request; a router task hands each reply to the
request waiting for its ``id``. A streaming service sends several replies; the last
has ``end_of_stream`` true.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Generic

from trustgraph_base.errors import RequestTimeout, ServiceError, WireError
from trustgraph_base.messaging.bus import Bus
from trustgraph_base.messaging.services import Req, Resp, ServiceSpec, Topics
from trustgraph_base.wire import decode

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120.0


class RequestClient(Generic[Req, Resp]):
    """Send requests to one service and receive its (possibly streamed) replies."""

    def __init__(self, bus: Bus, topics: Topics, spec: ServiceSpec[Req, Resp], client: str) -> None:
        self.bus = bus
        self.spec = spec
        self.request_topic = topics.request(spec)
        self.reply_topic = topics.reply(spec, client)
        self.subscription = client
        self._pending: dict[str, asyncio.Queue[Resp]] = {}
        self._router: asyncio.Task[None] | None = None
        self._start_lock = asyncio.Lock()

    async def start(self) -> None:
        """Subscribe to the reply topic (idempotent)."""
        async with self._start_lock:
            if self._router is not None:
                return
            consumer = await self.bus.subscribe(self.reply_topic, self.subscription)
            self._router = asyncio.create_task(
                self._route(consumer), name=f"route:{self.reply_topic}"
            )

    async def _route(self, consumer: object) -> None:
        from pulsar.asyncio import Consumer

        assert isinstance(consumer, Consumer)
        while True:
            msg = await consumer.receive()
            rid = msg.properties().get("id", "")
            queue = self._pending.get(rid)
            if queue is None:
                log.warning(
                    "a reply from '%s' (id %s) found no waiting caller: it timed out, or the "
                    "request was redelivered and answered twice",
                    self.spec.name,
                    rid,
                )
            else:
                try:
                    queue.put_nowait(decode(self.spec.response, msg.data()))
                except WireError as exc:
                    error = {"error": {"type": "bad-response", "message": str(exc)}}
                    queue.put_nowait(self.spec.response.model_validate(error))
            await consumer.acknowledge(msg)

    async def stream(
        self, request: Req, *, timeout: float = DEFAULT_TIMEOUT
    ) -> AsyncIterator[Resp]:
        """Yield each reply until the final one.

        Raises ``ServiceError`` when a reply carries an error, ``RequestTimeout`` when no
        reply arrives within ``timeout`` seconds of the previous one.
        """
        await self.start()
        rid = str(uuid.uuid4())
        queue: asyncio.Queue[Resp] = asyncio.Queue()
        self._pending[rid] = queue
        try:
            await self.bus.publish(
                self.request_topic, request, {"id": rid, "reply-to": self.reply_topic}
            )
            while True:
                try:
                    reply = await asyncio.wait_for(queue.get(), timeout)
                except TimeoutError:
                    raise RequestTimeout(
                        f"no reply from service '{self.spec.name}' within {timeout:g}s"
                    ) from None
                if reply.error is not None:
                    raise ServiceError(reply.error.type, reply.error.message)
                yield reply
                if reply.end_of_stream:
                    return
        finally:
            self._pending.pop(rid, None)

    async def request(self, request: Req, *, timeout: float = DEFAULT_TIMEOUT) -> Resp:
        """Send a request and return its final reply (earlier streamed replies are dropped)."""
        last: Resp | None = None
        async for reply in self.stream(request, timeout=timeout):
            last = reply
        assert last is not None
        return last

    async def close(self) -> None:
        if self._router is not None:
            self._router.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._router
            self._router = None
