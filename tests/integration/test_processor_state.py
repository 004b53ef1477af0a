"""A processor's typed state: opened before the first message (a resource that cannot be
opened stops the processor at start), the same object in every handler, closed after the
last handler has drained."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from tests.conftest import RunningProcessors
from trustgraph_base.messaging import Bus, Context, Processor, Topic, Topics
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.settings import ProcessorSettings

WORK = Topic("work", Triples)


@dataclass
class Ledger:
    seen: list[str] = field(default_factory=list)
    closed: bool = False


async def test_state_is_open_for_every_message_and_closed_after_the_drain(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    proc: Processor[ProcessorSettings, Ledger] = Processor("ledger")
    ledgers: list[Ledger] = []
    handled: asyncio.Queue[str] = asyncio.Queue()

    @proc.lifespan
    async def open_ledger(ctx: Context[ProcessorSettings]) -> AsyncIterator[Ledger]:
        ledger = Ledger()
        ledgers.append(ledger)
        yield ledger
        ledger.closed = True

    @proc.consumer(WORK)
    async def record(msg: Triples, ctx: Context[ProcessorSettings, Ledger]) -> None:
        assert not ctx.state.closed
        ctx.state.seen.append(msg.metadata.id)
        await handled.put(msg.metadata.id)

    await processors.start(proc, settings)
    for mid in ("a", "b"):
        await bus.publish(topics.topic(WORK), Triples(metadata=Metadata(id=mid), triples=[]))
        assert await asyncio.wait_for(handled.get(), 10) == mid
    assert len(ledgers) == 1 and ledgers[0].seen == ["a", "b"] and not ledgers[0].closed
    await processors.stop_all()
    assert ledgers[0].closed


async def test_a_resource_that_cannot_be_opened_stops_the_processor_at_start(
    processors: RunningProcessors, settings: ProcessorSettings
) -> None:
    proc: Processor[ProcessorSettings, Ledger] = Processor("no-ledger")
    handled: list[Triples] = []

    @proc.lifespan
    async def open_ledger(ctx: Context[ProcessorSettings]) -> AsyncIterator[Ledger]:
        raise OSError(f"cannot open the ledger under {ctx.settings.data_dir}")
        yield Ledger()

    @proc.consumer(WORK)
    async def record(msg: Triples, ctx: Context[ProcessorSettings, Ledger]) -> None:
        handled.append(msg)

    with pytest.raises(OSError, match="cannot open the ledger under"):
        await processors.start(proc, settings)
    assert handled == []
