"""Request/response over Pulsar: correlate replies by the ``id`` property.

Each requester process has its own reply topic (``<service>.reply.<client>.<process>``,
``process`` random per process start) named in the ``reply-to`` property of every
request, so replicas with the same client name never take each other's replies; a
router task hands each reply to the request waiting for its ``id``. A streaming service
sends several replies; the last has ``end_of_stream`` true. Replies ready at the same time
travel as one message (property ``pack``: a JSON array of them, in order), so a burst of
events costs one broker round trip.

Every request also carries ``deadline`` (epoch milliseconds): past it the caller has
stopped waiting for a first reply, and a service that only gets the request then (it
was redelivered after a crash) acks it without running it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, Generic, cast

from pulsar.asyncio import Consumer
from pydantic import BaseModel, ConfigDict

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError, WireError
from trustgraph_base.messaging.bus import Bus
from trustgraph_base.messaging.delivery import deadline_of
from trustgraph_base.messaging.receipts import ack_now, next_message
from trustgraph_base.messaging.services import Req, Resp, ServiceSpec, Topics
from trustgraph_base.schema.core import Error
from trustgraph_base.wire import decode, decode_pack, from_json, keep_encoding, split_pack

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120.0
PROCESS = uuid.uuid4().hex[:12]  # this process's part of its reply topics' names


def deadline_property(timeout: float) -> str:
    """The ``deadline`` property of a request sent now by a caller waiting ``timeout`` s."""
    return str(int((time.time() + timeout) * 1000))


def expired(properties: dict[str, str], now: float | None = None) -> bool:
    """Has the caller of a request with these properties stopped waiting?"""
    deadline = deadline_of(properties)
    if deadline is None:
        return False  # an older caller: no deadline
    return (time.time() if now is None else now) > deadline


class _Envelope(BaseModel):
    """What a reply says to whoever passes it on: did it fail, is it the last."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    error: Error | None = None
    end_of_stream: bool = True


def forwarded(cls: type[Resp], data: bytes, value: Any = None) -> Resp:
    """A reply that is only written on as it came (``stream(forward=True)``): its envelope
    parsed and checked, the rest kept as ``data`` for ``encode`` to return. Its other
    fields are left unset: read nothing else of it. ``value``: ``data`` already parsed
    (an item of a pack, ``forwarded_pack``).

    Validating a 4 MB trace piece into models only to write its bytes on took ~0.16 s of
    the gateway's CPU per 20,000-step trace; the client validates what it reads.
    """
    envelope = decode(_Envelope, data) if value is None else from_json(_Envelope, value)
    reply = cls.model_construct(error=envelope.error, end_of_stream=envelope.end_of_stream)
    return keep_encoding(cast(Resp, reply), data)


def forwarded_pack(cls: type[Resp], data: bytes) -> list[Resp]:
    """The replies of a pack only written on (``forwarded``, each keeping its own bytes):
    how the agent's explain events travel, so most of a session's triples."""
    replies = []
    for place, (value, item) in enumerate(split_pack(data)):
        try:
            replies.append(forwarded(cls, item, value))
        except WireError as exc:
            raise WireError(f"{place}.{exc}") from None
    return replies


class RequestClient(Generic[Req, Resp]):
    """Send requests to one service and receive its (possibly streamed) replies."""

    def __init__(
        self,
        bus: Bus,
        topics: Topics,
        spec: ServiceSpec[Req, Resp],
        client: str,
        *,
        keep_wire: bool = False,
    ) -> None:
        """``keep_wire``: each reply that came alone keeps the bytes it came in
        (``wire.keep_encoding``), for a caller that writes replies on unchanged (the gateway)."""
        self.bus = bus
        self.spec = spec
        self.keep_wire = keep_wire
        self.request_topic = topics.request(spec)
        self.reply_topic = topics.reply(spec, f"{client}.{PROCESS}")
        self.subscription = client
        self._pending: dict[str, asyncio.Queue[Resp]] = {}
        self._forwarded: set[str] = set()  # request ids whose replies are only passed on
        self._router: asyncio.Task[None] | None = None
        self._consumer: Consumer | None = None
        self._start_lock = asyncio.Lock()

    async def start(self) -> None:
        """Subscribe to the reply topic (idempotent)."""
        async with self._start_lock:
            if self._router is not None:
                return
            # Kicked only while a request waits: no request out, no reply to hold back.
            consumer = await self.bus.subscribe(
                self.reply_topic, self.subscription, awaited=lambda: bool(self._pending)
            )
            self._consumer = consumer
            self._router = asyncio.create_task(
                self._route(consumer), name=f"route:{self.reply_topic}"
            )

    async def _route(self, consumer: Consumer) -> None:
        try:
            await self._route_replies(consumer)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Without its router this process would never hear a reply again: go down.
            if not self.bus.closing:
                self.bus.fail(RuntimeError(f"reply router for '{self.spec.name}' died: {exc!r}"))
            raise

    async def _route_replies(self, consumer: Consumer) -> None:
        while True:
            msg = await next_message(consumer)
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
                    if msg.properties().get("pack"):
                        unpack = forwarded_pack if rid in self._forwarded else decode_pack
                        for reply in unpack(self.spec.response, msg.data()):
                            queue.put_nowait(reply)
                    elif rid in self._forwarded:
                        queue.put_nowait(forwarded(self.spec.response, msg.data()))
                    else:
                        data = msg.data()
                        reply = decode(self.spec.response, data)
                        queue.put_nowait(keep_encoding(reply, data) if self.keep_wire else reply)
                except WireError as exc:
                    error = {"error": {"type": "bad-response", "message": str(exc)}}
                    queue.put_nowait(self.spec.response.model_validate(error))
            ack_now(consumer, msg)

    async def stream(
        self, request: Req, *, timeout: float = DEFAULT_TIMEOUT, forward: bool = False
    ) -> AsyncIterator[Resp]:
        """Yield each reply until the final one.

        Raises ``ServiceError`` when a reply carries an error, ``RequestTimeout`` when no
        reply arrives within ``timeout`` seconds of the previous one. ``forward``: the
        caller only writes each reply on (``wire.encode``), so a reply that came alone is
        not validated past its envelope (``forwarded``).
        """
        await self.start()
        rid = str(uuid.uuid4())
        queue: asyncio.Queue[Resp] = asyncio.Queue()
        self._pending[rid] = queue
        if forward:
            self._forwarded.add(rid)
        try:
            props = {
                "id": rid,
                "reply-to": self.reply_topic,
                "deadline": deadline_property(timeout),
            }
            await self.bus.publish(self.request_topic, request, props)
            while True:
                if queue.empty():
                    try:
                        reply = await asyncio.wait_for(queue.get(), timeout)
                    except TimeoutError:
                        raise RequestTimeout(
                            f"no reply from service '{self.spec.name}' within {timeout:g}s"
                        ) from None
                else:  # the rest of a pack: no timer for a reply already here
                    reply = queue.get_nowait()
                if reply.error is not None:
                    raise ServiceError(ErrorType(reply.error.type), reply.error.message)
                yield reply
                if reply.end_of_stream:
                    return
        finally:
            self._pending.pop(rid, None)
            self._forwarded.discard(rid)

    async def request(self, request: Req, *, timeout: float = DEFAULT_TIMEOUT) -> Resp:
        """Send a request and return its final reply (earlier streamed replies are dropped)."""
        last: Resp | None = None
        async for reply in self.stream(request, timeout=timeout):
            last = reply
        assert last is not None
        return last

    def abandon(self, error: ErrorType, message: str) -> None:
        """End every request still waiting here with ``error`` (a caller shutting down):
        each waiter raises ``ServiceError`` at once instead of waiting out its timeout."""
        reply = self.spec.response.model_validate({"error": {"type": error, "message": message}})
        for queue in self._pending.values():
            queue.put_nowait(reply)

    async def close(self) -> None:
        if self._router is not None:
            self._router.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._router
            self._router = None
        if self._consumer is not None:  # private to this process: nobody will read it again
            await self.bus.unsubscribe(self._consumer)
            self._consumer = None
