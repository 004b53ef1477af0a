"""The calls the bus makes to pulsar-client, each bounded: authentication, the logger, a
Shared subscription retried until its deadline, and a send that does not wait."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

import _pulsar
import pulsar
from pulsar.asyncio import Client, Producer
from pydantic import BaseModel

from trustgraph_base.errors import BrokerUnavailable
from trustgraph_base.messaging.receipts import Receipt, Watched
from trustgraph_base.wire import encode

log = logging.getLogger(__name__)

NACK_DELAY_MS = 200
MAX_REDELIVERIES = 3
# Every wait on the broker has a deadline. pulsar-client bounds its own operations
# (``operation_timeout``, ``send_timeout``); these bound our awaits on top of them, so a
# lost callback cannot hang a process.
SEND_TIMEOUT = 30.0
SUBSCRIBE_DEADLINE = 90.0  # retried: a killed predecessor may hold the subscription for a while
CLOSE_TIMEOUT = 5.0

T = TypeVar("T")


async def bounded(what: str, awaitable: Awaitable[T], timeout: float) -> T:
    """Await with a deadline; ``BrokerUnavailable`` naming ``what`` when it passes."""
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except TimeoutError:
        raise BrokerUnavailable(f"{what}: no answer from the broker within {timeout:g}s") from None


async def best_effort(what: str, awaitable: Awaitable[Any], timeout: float) -> None:
    """``bounded``, for a close or flush whose failure changes nothing (already closed, the
    broker gone): logged at debug, never raised."""
    try:
        await bounded(what, awaitable, timeout)
    except Exception as exc:
        log.debug("%s: %s", what, exc)


def pulsar_logger() -> Any:
    return pulsar.ConsoleLogger(pulsar.LoggerLevel.Error)


def broker_auth(token: str) -> pulsar.Authentication | None:
    """Pulsar token authentication for ``token`` (``file:PATH`` reads it from a file, again
    on each connection, so a rotated token is picked up); None without one."""
    if not token:
        return None
    if token.startswith("file:"):
        path = token.removeprefix("file:").removeprefix("//")

        def read() -> str:
            with open(path, encoding="utf-8") as fh:
                return fh.read().strip()

        return pulsar.AuthenticationToken(read)
    return pulsar.AuthenticationToken(token)


def hand_over(
    producer: Producer,
    where: str,
    payload: BaseModel | bytes,
    done: Receipt[None],
    properties: dict[str, str] | None = None,
) -> None:
    """Give ``payload`` (with its ``properties``) to ``producer`` without a Task or a future
    of pulsar.asyncio's: the broker's receipt arrives on ``done`` (``where``: the topic and
    broker, for errors)."""

    def receipt(result: Any, _msg_id: Any) -> None:  # on a pulsar-client thread
        ok = result == _pulsar.Result.Ok
        done.arrive(None if ok else BrokerUnavailable(f"cannot publish to {where}: {result}"))

    builder = _pulsar.MessageBuilder()
    try:
        builder.content(payload if isinstance(payload, bytes) else encode(payload))
        for key, value in (properties or {}).items():
            builder.property(key, value)
        # pulsar.asyncio's Producer.send less its Task-bound future and MessageId
        producer._producer.send_async(builder.build(), receipt)
    except Exception as exc:
        done.arrive(BrokerUnavailable(f"cannot publish to {where}: {exc}"))


async def subscribe_shared(
    client: Client,
    topic: str,
    subscription: str,
    *,
    receiver_queue_size: int,
    deadline_s: float,
    operation_timeout: int,
    url: str,
) -> Watched:
    """A Shared, durable subscription from the earliest unacked message, retried with
    backoff for ``deadline_s`` (then ``BrokerUnavailable``); its consumer counts its
    receives (``Watched``).

    No pulsar-client dead-letter policy: the runners dead-letter themselves (``Runner._retry``).
    With the policy, pulsar-client moved valid messages its consumer never failed to the
    dead-letter topic now and then (1-53 of 2,000 imported traces, in 4 of 10 bench runs,
    all delivered and acked at the broker, none redelivered, nothing logged by the store)."""
    deadline = time.monotonic() + deadline_s
    delay = 0.5
    while True:
        try:
            consumer = await bounded(
                f"subscribing to {topic}",
                client.subscribe(
                    topic,
                    subscription,
                    consumer_type=pulsar.ConsumerType.Shared,
                    initial_position=pulsar.InitialPosition.Earliest,
                    negative_ack_redelivery_delay_ms=NACK_DELAY_MS,
                    receiver_queue_size=receiver_queue_size,
                ),
                operation_timeout + 5,
            )
            break
        except Exception as exc:
            if time.monotonic() + delay > deadline:
                raise BrokerUnavailable(
                    f"cannot subscribe to {topic} as '{subscription}' at {url} within "
                    f"{deadline_s:g}s: {exc} (is another process on this "
                    "subscription, or a killed one not yet timed out by the broker?)"
                ) from exc
            log.warning("subscribing to %s failed (%s); retrying in %.1fs", topic, exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
    return Watched(consumer)
