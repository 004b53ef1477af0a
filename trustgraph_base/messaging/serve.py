"""Serving a processor's routes: subscribe each, run their runners and a watch on the stop
signal and the bus in one ``TaskGroup``, drain on stop; what ended it if it was not a stop."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from trustgraph_base.gcpause import serving_collector
from trustgraph_base.messaging.bus import Bus
from trustgraph_base.messaging.context import Context
from trustgraph_base.messaging.dispatch import Route, Runner
from trustgraph_base.messaging.entry import touch
from trustgraph_base.messaging.reporting import report_metrics

log = logging.getLogger(__name__)


async def serve(
    routes: list[Route], ctx: Context[Any, Any], stop: asyncio.Event, ready: asyncio.Event | None
) -> BaseException | None:
    """Subscribe, run until stopped, drain; what made it stop if it was not ``stop``.

    The subscriptions' runners and the watch on ``stop`` and the bus are one
    ``TaskGroup``: a runner that dies takes the others down with it at once.
    """
    runners = []
    for route in routes:
        topic = route.topic(ctx.topics)
        consumer = await ctx.bus.subscribe(topic, route.subscription)
        runners.append(route.runner(consumer, ctx, topic))
    # What is loaded by now is never garbage, and a message's models live until it is
    # answered: GraphRAG spent ~13 % of its CPU in ``gc_collect_main`` (perf) walking both.
    with serving_collector():
        return await _serve(runners, ctx, stop, ready)


async def _serve(
    runners: list[Runner], ctx: Context[Any, Any], stop: asyncio.Event, ready: asyncio.Event | None
) -> BaseException | None:
    settings = ctx.settings
    if settings.ready_file:
        touch(settings.ready_file)
    if ready is not None:
        ready.set()
    log.info("%s ready on %s", ctx.name, settings.pulsar_url)
    stopping = asyncio.Event()
    try:
        async with asyncio.TaskGroup() as tasks:
            watch = tasks.create_task(_watch(stop, ctx.bus, stopping))
            tasks.create_task(report_metrics(ctx, stopping))
            for runner in runners:
                tasks.create_task(runner.run(stopping, settings.drain_timeout))
        return watch.result()
    except BaseExceptionGroup as group:
        return _first(group)


async def _watch(stop: asyncio.Event, bus: Bus, stopping: asyncio.Event) -> BaseException | None:
    """Wait for ``stop`` or a fatal failure on the bus, then set ``stopping`` (the runners
    drain); the failure, if it was one."""
    stopped = asyncio.ensure_future(stop.wait())
    failed = asyncio.ensure_future(bus.failed())
    try:
        done, _ = await asyncio.wait({stopped, failed}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        failed.cancel()
    log.info("stopping: draining in-flight work")
    stopping.set()
    return failed.result() if failed in done else None


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first failure in a (nested) exception group."""
    found = group.exceptions[0]
    return _first(found) if isinstance(found, BaseExceptionGroup) else found
