"""The newest metrics report of each processor process, heard on the ``metrics`` topic.

Each gateway keeps its own board: it reads the topic on a subscription of its own, named
after the gateway (``gateway[-INSTANCE].metrics``), so a restarted gateway takes up where it
left and no backlog is left behind; gateways run side by side need distinct ``--instance``
names, as their request clients do. A processor whose last report is older than three of
its reporting intervals is down (``processor_up`` 0, no ``processor_info``): it is named,
not forgotten, until the gateway restarts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from aiohttp import web

from trustgraph_base.messaging import Bus, Topics
from trustgraph_base.messaging.services import METRICS
from trustgraph_base.schema.metrics import MetricsReport
from trustgraph_base.wire import decode

log = logging.getLogger(__name__)

MISSED = 3  # reports a processor may miss before it is down


@dataclass(frozen=True)
class Heard:
    report: MetricsReport
    when: float  # time.monotonic() when it came


class MetricsBoard:
    """The newest report of each (processor, instance)."""

    def __init__(self) -> None:
        self.heard: dict[tuple[str, str], Heard] = {}

    def take(self, report: MetricsReport, now: float | None = None) -> None:
        key = (report.processor, report.instance)
        last = self.heard.get(key)
        if last is None or report.at >= last.report.at:  # a backlog's older ones are skipped
            self.heard[key] = Heard(report, time.monotonic() if now is None else now)

    def up(self, heard: Heard, now: float) -> bool:
        return now - heard.when <= MISSED * heard.report.every

    def everyone(self) -> list[Heard]:
        return sorted(self.heard.values(), key=lambda h: (h.report.processor, h.report.instance))


METRICS_BOARD = web.AppKey("metrics_board", MetricsBoard)


def _never() -> bool:
    return False


async def listen(bus: Bus, topics: Topics, subscription: str, board: MetricsBoard) -> None:
    """Put every report the topic carries on ``board``, for as long as the gateway runs."""
    # Not kicked (``kicks.py``): a report held back goes with the topic's next one, which
    # every processor sends every few seconds; kicking it was ~2.3 subscribes a second, idle.
    consumer = await bus.subscribe(topics.topic(METRICS), subscription, awaited=_never)
    while True:
        msg = await consumer.receive()
        try:
            board.take(decode(MetricsReport, msg.data()))
        except Exception as exc:  # a malformed report harms nothing: it is dropped
            log.warning("dropping a malformed metrics report: %s", exc)
        await consumer.acknowledge(msg)


@contextlib.asynccontextmanager
async def metrics_listener(
    app: web.Application, bus: Bus, topics: Topics, client: str
) -> AsyncIterator[None]:
    """``app[METRICS_BOARD]``, kept current while the block runs."""
    board = MetricsBoard()
    app[METRICS_BOARD] = board
    task = asyncio.create_task(listen(bus, topics, f"{client}.metrics", board))
    try:
        yield
    finally:
        task.cancel()  # a receive may not give way at once: the stop never waits long on it
        await asyncio.wait({task}, timeout=1.0)
