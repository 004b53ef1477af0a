"""The runtime's batch consumer (the store's write path): the next batch is received and
decoded while the current one is handled, but handled only after it, in order."""

from __future__ import annotations

import asyncio

from tests.conftest import RunningProcessors
from trustgraph_base.messaging import Bus, Context, Processor, Topic, Topics
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.settings import ProcessorSettings


async def test_next_batch_collected_during_the_write_and_handled_after_it(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    proc: Processor[ProcessorSettings] = Processor("batcher")
    batches: list[list[str]] = []
    gate, started, second = asyncio.Event(), asyncio.Event(), asyncio.Event()

    @proc.batch_consumer(Topic("writes", Triples), max_batch=100, max_wait=0.001)
    async def write(batch: list[Triples], ctx: Context[ProcessorSettings]) -> None:
        batches.append([m.metadata.id for m in batch])
        started.set()
        if len(batches) == 2:
            second.set()
        await gate.wait()  # a slow write: the first batch holds the runner here

    await processors.start(proc, settings)
    topic = topics.topic("writes")
    dead = await bus.subscribe(topics.dead_letter(topic, "batcher.writes"), "inspect")
    await bus.publish(topic, Triples(metadata=Metadata(id="m0"), triples=[]))
    await asyncio.wait_for(started.wait(), 10)
    for n in range(1, 21):
        await bus.publish(topic, Triples(metadata=Metadata(id=f"m{n}"), triples=[]))
    await bus.publish(topic, b"not json")
    # the malformed message comes last: once dead-lettered, the others were decoded too
    assert (await asyncio.wait_for(dead.receive(), 15)).data() == b"not json"
    assert batches == [["m0"]]  # the second batch waits for the first handler
    gate.set()
    await asyncio.wait_for(second.wait(), 10)
    assert batches[1] == [f"m{n}" for n in range(1, 21)]  # grown past max_wait, in order
