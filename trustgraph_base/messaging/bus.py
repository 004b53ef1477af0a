"""The Pulsar connection: cached producers and Shared, dead-lettered subscriptions.

pulsar-lite's limits shape every choice here: Shared subscriptions only (others
duplicate under load), persistent topics only, an explicit negative-ack delay (the
client's default is 60 s), and no batch-index acks.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pulsar
from pulsar.asyncio import Client, Consumer, Producer
from pydantic import BaseModel

from trustgraph_base.errors import BrokerUnavailable
from trustgraph_base.wire import encode

log = logging.getLogger(__name__)

NACK_DELAY_MS = 200
MAX_REDELIVERIES = 3


def _pulsar_logger() -> Any:
    return pulsar.ConsoleLogger(pulsar.LoggerLevel.Error)


class Bus:
    """One Pulsar client per process, shared by every producer and consumer in it."""

    def __init__(self, url: str, *, operation_timeout: int = 30) -> None:
        self.url = url
        try:
            self._client = Client(
                url,
                operation_timeout_seconds=operation_timeout,
                connection_timeout_ms=10_000,
                logger=_pulsar_logger(),
            )
        except Exception as exc:
            raise BrokerUnavailable(f"cannot use broker URL {url!r}: {exc}") from exc
        self._producers: dict[str, Producer] = {}
        self._producer_lock = asyncio.Lock()
        self._consumers: list[Consumer] = []

    async def producer(self, topic: str, *, batching: bool = False) -> Producer:
        """A cached producer for ``topic`` (batching trades ~1 ms latency for throughput)."""
        found = self._producers.get(topic)
        if found is not None:
            return found
        async with self._producer_lock:
            found = self._producers.get(topic)
            if found is None:
                try:
                    found = await self._client.create_producer(
                        topic,
                        batching_enabled=batching,
                        batching_max_publish_delay_ms=1,
                        block_if_queue_full=True,
                        max_pending_messages=10_000,
                    )
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
        """Send one message and wait until the broker has persisted it."""
        data = payload if isinstance(payload, bytes) else encode(payload)
        producer = await self.producer(topic, batching=batching)
        await producer.send(data, properties=properties or {})

    async def subscribe(
        self,
        topic: str,
        subscription: str,
        *,
        dead_letter_topic: str | None = None,
        receiver_queue_size: int = 1000,
    ) -> Consumer:
        """A Shared, durable subscription starting at the earliest unacked message.

        With ``dead_letter_topic``, a message negatively acknowledged more than
        ``MAX_REDELIVERIES`` times goes there instead of blocking the consumer.
        """
        policy = None
        if dead_letter_topic:
            policy = pulsar.ConsumerDeadLetterPolicy(
                max_redeliver_count=MAX_REDELIVERIES, dead_letter_topic=dead_letter_topic
            )
        try:
            consumer = await self._client.subscribe(
                topic,
                subscription,
                consumer_type=pulsar.ConsumerType.Shared,
                initial_position=pulsar.InitialPosition.Earliest,
                negative_ack_redelivery_delay_ms=NACK_DELAY_MS,
                receiver_queue_size=receiver_queue_size,
                dead_letter_policy=policy,
            )
        except Exception as exc:
            raise BrokerUnavailable(f"cannot subscribe to {topic} at {self.url}: {exc}") from exc
        self._consumers.append(consumer)
        return consumer

    async def close(self) -> None:
        """Close consumers (never unsubscribing them), flush producers, close the client."""
        for consumer in self._consumers:
            try:
                await consumer.close()
            except Exception as exc:  # already closed or broker gone
                log.debug("closing consumer: %s", exc)
        self._consumers.clear()
        for producer in self._producers.values():
            try:
                await producer.flush()
                await producer.close()
            except Exception as exc:
                log.debug("closing producer: %s", exc)
        self._producers.clear()
        try:
            await self._client.close()
        except Exception as exc:
            log.debug("closing client: %s", exc)
