"""Kicks: pulsar-lite's shared dispatcher made to run a round for a subscription gone quiet.

pulsar-lite (0.2.0, the latest) sends a Shared subscription's backlog at most 20 messages a
round, and starts a round only on a publish, a flow of permits (a new consumer's first) or
a consumer's departure; a round asked for while another runs is skipped, not queued. So a flow that
lands during a round (a burst being published, several consumers flowing at once) adds
permits that nothing uses, and the backlog waits, with the consumer idle, until the
topic's next message: in a repro, 1 in 10 bursts of 80 x 1.5 MB and 4 in 10 bursts of
600 x 300 KB read by three consumers.

The bus watches every consumer it makes. Once one has taken nothing for a tick
(``KICK_TICK``), the bus kicks its subscription: it subscribes a consumer with no receive
queue to it and closes that at once. The close starts a round (pulsar-lite's consumer
removal dispatches), and the kick's consumer changes nothing else: without a queue it
never grants permits, so no message is sent to it, none is pending on it when it goes,
nothing is redelivered or reordered.

Why this bounds a stall: messages are held back only after a round that left them (or
skipped a round that would have sent them), and every round has someone who acted around
it: a consumer that flowed (it had just taken a message, or just subscribed), one that was
sent messages (it takes them), or a kick. Each of these consumers kicks once it has been
quiet for a tick, and again at the quiet ticks of ``KICK_AT`` in case that kick itself
landed in a round. A round is short (at most 20
messages handed to a connection's queue, never waiting on the network), so the first of
those kicks comes after it: a held backlog waits at most two ticks, not until the next
message. A consumer quiet for longer than ``KICK_AT``'s last tick is left alone until it
takes a message again, so a quiet system pays nothing: once every consumer is past it,
the looks stop too (each woke the process's loop 4 times a second, ~0.85 ms of CPU a second
in every processor of an idle stack), and a consumer's next take starts them again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

import pulsar
from pulsar.asyncio import Client, Consumer

from trustgraph_base.messaging.pulsar_calls import CLOSE_TIMEOUT, best_effort, bounded
from trustgraph_base.messaging.receipts import Watched

log = logging.getLogger(__name__)

KICK_TICK = 0.25
"""Seconds between looks at the consumers; one with nothing taken for a tick is kicked."""
KICK_AT = (1, 2, 4, 8, 16, 32)
"""The quiet ticks at which a consumer's subscription is kicked (then not until it takes)."""
KICK_TIMEOUT = 5.0


@dataclass
class _Watch:
    consumer: Watched
    topic: str
    subscription: str
    seen: int = -1  # ``taken`` at the last look
    quiet: int = 0  # looks since it changed
    # Whether anyone waits on what it would take (None: always so). A reply topic's: is a
    # request out? A reply is held only behind one delivered, so a request sent later is
    # covered by the kicks that delivery restarts.
    awaited: Callable[[], bool] | None = None


class Kicker:
    """Kicks the subscriptions of a bus's quiet consumers (one task while it has any)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._watched: dict[Consumer, _Watch] = {}
        self._task: asyncio.Task[None] | None = None
        self._kicking: asyncio.Lock | None = None  # held while a kick's consumer lives
        self.kicks = 0

    def watch(
        self,
        consumer: Watched,
        topic: str,
        subscription: str,
        awaited: Callable[[], bool] | None = None,
    ) -> None:
        self._watched[consumer] = _Watch(consumer, topic, subscription, awaited=awaited)
        self._look()

    @property
    def looking(self) -> bool:
        """Whether the looks go on (False: every consumer is past its last kick, or none is
        watched; a take starts them again)."""
        return self._task is not None and not self._task.done()

    def _look(self) -> None:
        """Look at the consumers every tick from now on (if not already)."""
        for watch in self._watched.values():
            watch.consumer.taking = None
        if not self.looking:
            self._task = asyncio.ensure_future(self._run())

    def _done_kicking(self) -> bool:
        """No consumer has taken since its last look, and each is past its last kick: stop
        looking until one takes (its ``taking`` hook says so)."""
        if any(
            w.consumer.taken != w.seen or w.quiet <= KICK_AT[-1] for w in self._watched.values()
        ):
            return False
        for watch in self._watched.values():
            watch.consumer.taking = self._look
        return True

    async def forget(self, consumer: Consumer) -> None:
        """Stop kicking for ``consumer``; returns once no kick of its subscription is under
        way (one after an unsubscribe would make the subscription again)."""
        watch = self._watched.pop(consumer, None)
        if watch is not None:
            watch.consumer.taking = None
            async with self._lock():
                pass

    async def close(self) -> None:
        for watch in self._watched.values():
            watch.consumer.taking = None
        self._watched.clear()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        log.debug("kicked quiet subscriptions %d times", self.kicks)

    def _lock(self) -> asyncio.Lock:
        if self._kicking is None:
            self._kicking = asyncio.Lock()
        return self._kicking

    async def _run(self) -> None:
        while self._watched:
            await asyncio.sleep(KICK_TICK)
            due: dict[tuple[str, str], None] = {}
            for watch in list(self._watched.values()):
                if watch.consumer.taken != watch.seen:
                    watch.seen, watch.quiet = watch.consumer.taken, 0
                    continue
                watch.quiet += 1
                if (
                    watch.quiet in KICK_AT
                    and (watch.awaited is None or watch.awaited())
                    and watch.consumer._consumer.is_connected()
                ):
                    due[(watch.topic, watch.subscription)] = None
            for topic, subscription in due:
                async with self._lock():
                    if any(
                        (w.topic, w.subscription) == (topic, subscription)
                        for w in self._watched.values()
                    ):
                        await self._kick(topic, subscription)
            if self._done_kicking():
                return

    async def _kick(self, topic: str, subscription: str) -> None:
        try:
            kick = await bounded(
                f"kicking {subscription} on {topic}",
                self._client.subscribe(
                    topic,
                    subscription,
                    consumer_type=pulsar.ConsumerType.Shared,
                    initial_position=pulsar.InitialPosition.Earliest,
                    receiver_queue_size=0,
                ),
                KICK_TIMEOUT,
            )
        except Exception as exc:  # the broker is away: its consumers come back with it
            log.debug("kicking %s on %s: %s", subscription, topic, exc)
            return
        self.kicks += 1
        await best_effort("closing a kick", kick.close(), CLOSE_TIMEOUT)
