"""Each processor's metrics report: its ``Meter`` published on the ``metrics`` topic every
``metrics_interval`` seconds while it serves (the gateway keeps the newest of each and
answers ``/api/metrics``). A report that cannot be sent is skipped, never an error: the
metrics never stop or slow a processor's work."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from typing import Any

from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.services import METRICS
from trustgraph_base.schema.metrics import MetricSample, MetricsReport

log = logging.getLogger(__name__)


def report_of(ctx: Context[Any, Any], every: float) -> MetricsReport:
    """The processor's report now: its meter's values, each labelled with the processor."""
    samples = [
        MetricSample(kind=kind, name=name, labels=dict(labels), value=value)
        for kind, name, labels, value in ctx.meter.samples()
    ]
    instance = f"{socket.gethostname()}:{os.getpid()}"
    if ctx.settings.instance:
        instance += f":{ctx.settings.instance}"
    return MetricsReport(
        processor=ctx.name, instance=instance, at=time.time(), every=every, samples=samples
    )


async def report_metrics(ctx: Context[Any, Any], stopping: asyncio.Event) -> None:
    """Publish a report at once, then every ``metrics_interval`` seconds until ``stopping``."""
    every = float(ctx.settings.metrics_interval)
    if every <= 0:
        return
    while not stopping.is_set():
        try:
            await ctx.publish(METRICS, report_of(ctx, every))
        except Exception as exc:  # the broker away: the next report says it all again
            log.debug("metrics report not sent: %s", exc)
        try:
            await asyncio.wait_for(stopping.wait(), every)
        except TimeoutError:
            pass
