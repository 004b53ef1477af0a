"""The runtime's batch consumer (the store's write path): the next batch is received and
decoded while the current one is handled, but handled only after it, in order; messages
that come while nothing is handled are decoded when their batch closes."""

from __future__ import annotations

import asyncio

from tests.conftest import RunningProcessors
from tests.support.poll import eventually
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


async def test_a_batch_decoded_once_it_closes_keeps_its_order_dead_letters_alone_and_is_acked(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    """Messages that come once no write is running are decoded when their batch closes: a
    malformed one among them is dead-lettered alone, the rest are handled in the order sent
    (after those decoded during the write) and acked: a second run gets none of them again."""
    proc: Processor[ProcessorSettings] = Processor("batcher")
    handled: list[str] = []
    gate, started = asyncio.Event(), asyncio.Event()

    @proc.batch_consumer(Topic("writes", Triples), max_batch=100, max_wait=0.2)
    async def write(batch: list[Triples], ctx: Context[ProcessorSettings]) -> None:
        handled.extend(m.metadata.id for m in batch)
        started.set()
        await gate.wait()  # the first write holds the runner until the test lets it go

    async def send(*ids: str) -> None:
        for ident in ids:
            await bus.publish(topic, Triples(metadata=Metadata(id=ident), triples=[]))

    async def so_far() -> list[str]:
        return list(handled)

    await processors.start(proc, settings)
    topic = topics.topic("writes")
    dead = await bus.subscribe(topics.dead_letter(topic, "batcher.writes"), "inspect")
    await send("m0")
    await asyncio.wait_for(started.wait(), 10)
    await send("m1", "m2")
    await bus.publish(topic, b"bad during the write")
    assert (await asyncio.wait_for(dead.receive(), 15)).data() == b"bad during the write"
    gate.set()  # the writes from here on are instant: the messages come while none runs
    await send("m3", "m4")
    await bus.publish(topic, b"bad while idle")
    await send(*(f"m{n}" for n in range(5, 50)))  # more than RAW_MAX: decoded as they come
    assert (await asyncio.wait_for(dead.receive(), 15)).data() == b"bad while idle"
    sent = [f"m{n}" for n in range(50)]
    assert await eventually(so_far, lambda h: "m49" in h) == sent

    await processors.stop_all()
    await processors.start(proc, settings)  # the same subscription again
    await send("after")
    assert await eventually(so_far, lambda h: "after" in h) == [*sent, "after"]  # none again


async def test_a_trickle_taken_at_its_deadlines_is_one_batch_and_a_stream_after_it_loses_nothing(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    """Messages that come a few at a time while no write runs (an agent's trace, one a step)
    are taken from pulsar-client's queue at the batch's deadlines, none received meanwhile:
    they are one batch in the order sent, a message after the pause is the next batch, and a
    stream that follows (many at one deadline: received as it comes again) is handled whole,
    in order."""
    proc: Processor[ProcessorSettings] = Processor("batcher")
    batches: list[list[str]] = []

    @proc.batch_consumer(Topic("writes", Triples), max_batch=100, max_wait=0.15, max_linger=5)
    async def write(batch: list[Triples], ctx: Context[ProcessorSettings]) -> None:
        batches.append([m.metadata.id for m in batch])

    async def so_far() -> list[list[str]]:
        return list(batches)

    async def send(*ids: str) -> None:
        for ident in ids:
            await bus.publish(topic, Triples(metadata=Metadata(id=ident), triples=[]))

    await processors.start(proc, settings)
    topic = topics.topic("writes")
    for n in range(4):  # 40 ms apart: a step's pace in bench_agent, well inside max_wait
        await send(f"t{n}")
        await asyncio.sleep(0.04)
    assert await eventually(so_far, lambda b: len(b) >= 1) == [[f"t{n}" for n in range(4)]]
    await send("alone")
    assert (await eventually(so_far, lambda b: len(b) >= 2))[1] == ["alone"]
    await send(*(f"s{n}" for n in range(60)))
    done = await eventually(so_far, lambda b: sum(map(len, b)) >= 65)
    assert [i for b in done[2:] for i in b] == [f"s{n}" for n in range(60)]
