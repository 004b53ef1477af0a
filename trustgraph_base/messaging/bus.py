"""The Pulsar connection: cached producers and Shared, dead-lettered subscriptions.

pulsar-lite's limits shape every choice here: Shared subscriptions only (others
duplicate under load), persistent topics only, an explicit negative-ack delay (the
client's default is 60 s), and no batch-index acks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from pulsar.asyncio import Client, Consumer, Producer
from pydantic import BaseModel

from trustgraph_base.errors import BrokerUnavailable
from trustgraph_base.messaging.kicks import Kicker
from trustgraph_base.messaging.limits import check_size
from trustgraph_base.messaging.pulsar_calls import (
    CLOSE_TIMEOUT,
    MAX_REDELIVERIES,
    SEND_TIMEOUT,
    SUBSCRIBE_DEADLINE,
    best_effort,
    bounded,
    broker_auth,
    hand_over,
    pulsar_logger,
    subscribe_shared,
)
from trustgraph_base.messaging.receipts import Receipt
from trustgraph_base.wire import encode

log = logging.getLogger(__name__)

# Names other modules have imported from here since before pulsar_calls.py.
__all__ = ["MAX_REDELIVERIES", "Bus", "broker_auth"]


RECEIVE_QUEUE = 40
"""Messages a consumer holds ahead of its handler (pulsar-client's receiver queue). Small on
purpose: pulsar-client grants permits again only once half its queue is taken, and
pulsar-lite sends at most 20 messages a round, starting one on a flow of permits; with the
client's 1,000 a burst of large messages outran the rounds. What a round still leaves
behind, a kick of the quiet subscription sends (``kicks.py``)."""


class Bus:
    """One Pulsar client per process, shared by every producer and consumer in it."""

    def __init__(
        self,
        url: str,
        *,
        operation_timeout: int = 30,
        subscribe_deadline: float = SUBSCRIBE_DEADLINE,
        token: str = "",
        batch_delay_ms: int = 1,
    ) -> None:
        self.url = url
        self.batch_delay_ms = batch_delay_ms  # how long a batching producer waits for more
        self.operation_timeout = operation_timeout
        self.subscribe_deadline = subscribe_deadline
        try:
            self._client = Client(
                url,
                operation_timeout_seconds=operation_timeout,
                connection_timeout_ms=10_000,
                logger=pulsar_logger(),
                authentication=broker_auth(token),
            )
        except Exception as exc:
            raise BrokerUnavailable(f"cannot use broker URL {url!r}: {exc}") from exc
        self._producers: dict[str, Producer] = {}
        self._producer_lock = asyncio.Lock()
        # messages waiting, in order, for their topic's producer to be made (``_send``)
        self._first: dict[str, list[tuple[bytes, dict[str, str] | None, Receipt[None]]]] = {}
        self._making: set[asyncio.Task[None]] = set()  # their producers being made
        self._consumers: list[Consumer] = []
        self.kicker = Kicker(self._client)  # kicks the subscriptions of quiet consumers
        self.failure: BaseException | None = None
        self.closing = False  # close() has begun: consumers ending now are not failures
        self._failed: asyncio.Event | None = None

    def fail(self, exc: BaseException) -> None:
        """A task this process depends on died (a reply router): the process must go down.

        The runtime and the gateway wait on ``failed()`` beside their stop signal and then
        exit non-zero, so a supervisor restarts them instead of leaving them deaf.
        """
        if self.failure is None:
            self.failure = exc
            log.error("fatal: %r", exc)
        self._event().set()

    async def failed(self) -> BaseException:
        """Wait until ``fail`` is called; the failure."""
        await self._event().wait()
        assert self.failure is not None
        return self.failure

    def _event(self) -> asyncio.Event:
        if self._failed is None:
            self._failed = asyncio.Event()
        return self._failed

    async def producer(self, topic: str, *, batching: bool = False) -> Producer:
        """A cached producer for ``topic`` (batching trades ~1 ms latency for throughput;
        the topic's first producer made decides for every later sender in this process)."""
        found = self._producers.get(topic)
        if found is not None:
            return found
        async with self._producer_lock:
            found = self._producers.get(topic)
            if found is None:
                try:
                    found = await bounded(
                        f"creating a producer on {topic}",
                        self._client.create_producer(
                            topic,
                            batching_enabled=batching,
                            batching_max_publish_delay_ms=self.batch_delay_ms,
                            block_if_queue_full=True,
                            max_pending_messages=10_000,
                            send_timeout_millis=int(SEND_TIMEOUT * 1000),
                        ),
                        self.operation_timeout + 5,
                    )
                except BrokerUnavailable:
                    raise
                except Exception as exc:
                    raise BrokerUnavailable(
                        f"cannot publish to {topic} at {self.url}: {exc}"
                    ) from exc
                self._producers[topic] = found
        return found

    async def publish(
        self,
        topic: str,
        payload: BaseModel | bytes,
        properties: dict[str, str] | None = None,
        *,
        batching: bool = False,
    ) -> None:
        """Send one message and wait until the broker has persisted it (in its place in the
        topic's order, as ``send_now``)."""
        data = payload if isinstance(payload, bytes) else encode(payload)
        check_size(topic, data, properties)
        await self._send(topic, data, properties, batching)

    def send_now(
        self, topic: str, payload: BaseModel | bytes, *, batching: bool = False
    ) -> Receipt[None]:
        """Hand one message to the topic's producer now, without waiting: awaiting the
        receipt returns once the broker has persisted it (``BrokerUnavailable`` if it did
        not). No Task per message, and the receipt wakes this loop only if something waits
        for it when it comes."""
        data = payload if isinstance(payload, bytes) else encode(payload)
        check_size(topic, data, None)  # raises MessageTooLarge now, not in the receipt
        return self._send(topic, data, None, batching)

    def _send(
        self, topic: str, data: bytes, properties: dict[str, str] | None, batching: bool
    ) -> Receipt[None]:
        """Messages reach a topic in the order they are handed here (``publish`` and
        ``send_now`` alike), also while its producer is being made: they wait behind its
        first message, in order, and nothing goes around them. (A ``publish`` that found
        the producer made went straight out, ahead of earlier ones still waiting for it: a
        service's last reply to a new caller overtook the replies before it, the caller
        stopped at it, and those came to nobody; test_messaging_order.)"""
        done: Receipt[None] = Receipt(asyncio.get_running_loop())
        waiting = self._first.get(topic)
        if waiting is not None:  # behind the topic's first messages
            waiting.append((data, properties, done))
            return done
        producer = self._producers.get(topic)
        if producer is None:  # the topic's first message: its producer is made first
            self._first[topic] = [(data, properties, done)]
            making = asyncio.ensure_future(self._send_first(topic, batching))
            self._making.add(making)
            making.add_done_callback(self._making.discard)
            return done
        # Bounded by the producer's send_timeout (no Task per message): 25-35 µs of CPU
        # less per awaited send than pulsar.asyncio's ``send``.
        hand_over(producer, f"{topic} at {self.url}", data, done, properties)
        return done

    async def _send_first(self, topic: str, batching: bool) -> None:
        """Make ``topic``'s producer, then hand it the messages that waited, in order (no
        pause between: none sent meanwhile can pass them)."""
        try:
            producer = await self.producer(topic, batching=batching)
        except BrokerUnavailable as exc:
            for _, _, done in self._first.pop(topic):
                done.arrive(exc)
            return
        for data, properties, done in self._first.pop(topic):
            hand_over(producer, f"{topic} at {self.url}", data, done, properties)

    async def subscribe(
        self,
        topic: str,
        subscription: str,
        *,
        receiver_queue_size: int = RECEIVE_QUEUE,
        awaited: Callable[[], bool] | None = None,
    ) -> Consumer:
        """A Shared, durable subscription starting at the earliest unacked message; its
        quiet subscription is kicked only while ``awaited()`` (``kicks.py``), if given.

        A message that fails ``MAX_REDELIVERIES`` times more is not retried for ever: the
        runner that handles it dead-letters it itself (``dispatch.Runner._retry``).
        """
        consumer = await subscribe_shared(
            self._client,
            topic,
            subscription,
            receiver_queue_size=receiver_queue_size,
            deadline_s=self.subscribe_deadline,
            operation_timeout=self.operation_timeout,
            url=self.url,
        )
        self._consumers.append(consumer)
        self.kicker.watch(consumer, topic, subscription, awaited)
        return consumer

    async def unsubscribe(self, consumer: Consumer) -> None:
        """Drop a process-private subscription (a reply topic's) for good; best effort."""
        if consumer in self._consumers:
            self._consumers.remove(consumer)
        await self.kicker.forget(consumer)
        await best_effort("unsubscribing", consumer.unsubscribe(), CLOSE_TIMEOUT)
        await best_effort("closing a consumer", consumer.close(), CLOSE_TIMEOUT)

    async def close(self) -> None:
        """Close consumers (never unsubscribing them), flush producers, close the client."""
        self.closing = True
        await self.kicker.close()
        for consumer in self._consumers:
            await best_effort("closing a consumer", consumer.close(), CLOSE_TIMEOUT)
        self._consumers.clear()
        for producer in self._producers.values():
            await best_effort("flushing a producer", producer.flush(), SEND_TIMEOUT)
            await best_effort("closing a producer", producer.close(), CLOSE_TIMEOUT)
        self._producers.clear()
        await best_effort("closing the client", self._client.close(), CLOSE_TIMEOUT)
