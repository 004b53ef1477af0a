"""The runners' supervision: a stop drains the handlers in flight; a failure the message
policy does not absorb ends the processor (non-zero, for its supervisor) instead of
leaving a consumer that no longer consumes."""

from __future__ import annotations

import asyncio

import pytest

from trustgraph_base.errors import TrustGraphError
from trustgraph_base.messaging import Bus, Context, Processor, Topic, Topics
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.settings import ProcessorSettings

WORK = Topic("work", Triples)


class Fatal(BaseException):
    """Not an ``Exception``: the per-message policy (nack, retry) does not take it."""


def message(mid: str) -> Triples:
    return Triples(metadata=Metadata(id=mid), triples=[])


async def test_a_stop_waits_for_the_handler_in_flight(
    settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    proc: Processor[ProcessorSettings] = Processor("drainer")
    started, gate = asyncio.Event(), asyncio.Event()
    finished: list[str] = []

    @proc.consumer(WORK)
    async def slow(msg: Triples, ctx: Context[ProcessorSettings]) -> None:
        started.set()
        await gate.wait()
        finished.append(msg.metadata.id)

    stop, ready = asyncio.Event(), asyncio.Event()
    running = asyncio.create_task(proc.run(settings, stop, ready))
    await asyncio.wait_for(ready.wait(), 30)
    await bus.publish(topics.topic(WORK), message("m1"))
    await asyncio.wait_for(started.wait(), 10)
    stop.set()
    for _ in range(20):  # the stop is seen, intake ends; the handler still holds the run
        await asyncio.sleep(0)
    assert not running.done() and finished == []
    gate.set()
    await asyncio.wait_for(running, 30)  # returns: a clean stop
    assert finished == ["m1"]


async def test_a_failure_beyond_the_message_policy_ends_the_processor(
    settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    proc: Processor[ProcessorSettings] = Processor("breaker")

    @proc.consumer(WORK)
    async def breaks(msg: Triples, ctx: Context[ProcessorSettings]) -> None:
        raise Fatal(f"cannot handle {msg.metadata.id}")

    stop, ready = asyncio.Event(), asyncio.Event()
    running = asyncio.create_task(proc.run(settings, stop, ready))
    await asyncio.wait_for(ready.wait(), 30)
    await bus.publish(topics.topic(WORK), message("m1"))
    with pytest.raises(TrustGraphError, match=r"breaker cannot go on: Fatal\('cannot handle m1'\)"):
        await asyncio.wait_for(running, 30)
