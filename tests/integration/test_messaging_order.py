"""Messages published on one topic reach it in the order they were published, while the
topic's producer is still being made too (a service's first replies to a new caller)."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import RunningProcessors
from tests.support.standin import echo_processor
from trustgraph_base.messaging import Bus, RequestClient, Topics
from trustgraph_base.messaging.services import TEXT_COMPLETION
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_base.settings import ProcessorSettings

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only


async def test_publishes_made_while_the_producer_is_made_arrive_in_order(
    bus: Bus, topics: Topics
) -> None:
    # One publish started per pass of the loop, from before the topic's producer exists
    # until well after: a service's reply tasks to a caller it has not answered before. A
    # publish that found the producer made went straight out, ahead of earlier ones still
    # queued on the producer lock: a stream's last reply overtook the replies before it,
    # its caller stopped at it, and they came to nobody ("found no waiting caller").
    topic = topics.topic("publish-order")
    consumer = await bus.subscribe(topic, "s")
    sending: list[asyncio.Task[None]] = []
    for i in range(300):
        sending.append(asyncio.ensure_future(bus.publish(topic, i.to_bytes(2, "big"))))
        await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(*sending), 30)
    got = []
    for _ in sending:
        msg = await asyncio.wait_for(consumer.receive(), 10)
        got.append(int.from_bytes(msg.data(), "big"))
        await consumer.acknowledge(msg)
    assert got == list(range(300))


async def test_publish_and_send_now_keep_one_order_on_a_new_topic(bus: Bus, topics: Topics) -> None:
    # Either way of sending, interleaved from the topic's first message: the order they
    # were called in (``send_now`` queues behind a producer being made; a ``publish`` with
    # properties must queue behind it too, not go around it).
    topic = topics.topic("mixed-order")
    consumer = await bus.subscribe(topic, "s")
    sending: list[asyncio.Future[None]] = []
    for i in range(200):
        data = i.to_bytes(2, "big")
        if i % 2:
            sending.append(asyncio.ensure_future(bus.publish(topic, data, {"n": str(i)})))
        else:
            sending.append(asyncio.ensure_future(bus.send_now(topic, data)))
        await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(*sending), 30)
    got = []
    for _ in sending:
        msg = await asyncio.wait_for(consumer.receive(), 10)
        n = int.from_bytes(msg.data(), "big")
        got.append(n)
        assert msg.properties() == ({"n": str(n)} if n % 2 else {})
        await consumer.acknowledge(msg)
    assert got == list(range(200))


async def test_a_new_callers_concurrent_streams_each_get_every_reply_in_order(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    # A caller the service has not answered before (a new reply topic): its first streams'
    # replies are sent while the service makes the producer for that topic. Each stream
    # must get all its words, in order, and end with its last: not end early at a last
    # reply that overtook the others (the agent then lost GraphRAG's evidence).
    await processors.start(echo_processor(pause=0.001), settings)
    client = RequestClient(bus, topics, TEXT_COMPLETION, "new-caller")
    prompts = [" ".join(f"s{n}w{i}" for i in range(12)) for n in range(30)]

    async def words(prompt: str) -> list[str]:
        request = TextCompletionRequest(prompt=prompt, streaming=True)
        return [r.response async for r in client.stream(request, timeout=30)]

    try:
        got = await asyncio.gather(*(words(p) for p in prompts))
    finally:
        await client.close()
    assert got == [p.split() for p in prompts]
