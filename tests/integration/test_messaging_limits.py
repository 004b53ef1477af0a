"""The broker's 5 MiB message limit on every topic (issue 36 item 1): a message at the limit
is taken by the real broker; one byte more is refused at once with a clear error, before it
is sent, and is never retried; a service whose reply would be too large answers an error."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from trustgraph_base.errors import ErrorType, MessageTooLarge, ServiceError
from trustgraph_base.messaging import (
    CHUNKS,
    COLLECTION_DELETED,
    DOCUMENT_LOADED,
    EXPLAIN_STORE,
    INGEST_EVENTS,
    PAGES,
    SERVICES,
    TRIPLES_STORE,
    Bus,
    Context,
    Processor,
    RequestClient,
    Topic,
    Topics,
)
from trustgraph_base.messaging.limits import MAX_MESSAGE_BYTES
from trustgraph_base.schema import LibrarianRequest, LibrarianResponse, Metadata, Triples
from trustgraph_base.settings import ProcessorSettings

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only

ONE_WAY: list[Topic[Any]] = [
    TRIPLES_STORE,
    EXPLAIN_STORE,
    DOCUMENT_LOADED,
    PAGES,
    CHUNKS,
    INGEST_EVENTS,
    COLLECTION_DELETED,
]
REQUEST_PROPS = {"id": "0" * 36, "reply-to": "persistent://public/default/x.reply.client-1"}


def every_topic(topics: Topics) -> list[tuple[str, dict[str, str]]]:
    """Each topic the system uses, with the properties its messages carry."""
    found: list[tuple[str, dict[str, str]]] = [(topics.topic(t), {}) for t in ONE_WAY]
    for spec in SERVICES.values():
        found.append((topics.request(spec), REQUEST_PROPS))
        found.append((topics.reply(spec, "client-1"), {"id": REQUEST_PROPS["id"]}))
    return found


def props_size(props: dict[str, str]) -> int:
    return sum(len(k) + len(v) for k, v in props.items())


async def test_every_topic_takes_a_message_at_the_limit_and_refuses_one_byte_more(
    bus: Bus, topics: Topics
) -> None:
    named = every_topic(topics)
    assert len(named) == len(ONE_WAY) + 2 * len(SERVICES)
    for topic, props in named:
        at_limit = b"x" * (MAX_MESSAGE_BYTES - props_size(props))
        await bus.publish(topic, at_limit, props)  # persisted by the broker
        with pytest.raises(MessageTooLarge) as err:
            await bus.publish(topic, at_limit + b"x", props)
        assert err.value.type == ErrorType.FRAME_TOO_LARGE
        assert topic in err.value.message and "split or sent by reference" in err.value.message
        with pytest.raises(MessageTooLarge):  # the unawaited path refuses it too, at once
            bus.send_now(topic, at_limit + b"x" * (props_size(props) + 1))


async def test_a_handler_whose_output_is_too_large_is_dead_lettered_not_retried(
    settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    work, out = Topic("work", Triples), Topic("out", Triples)
    proc: Processor[ProcessorSettings] = Processor("oversize")
    calls: list[str] = []

    @proc.consumer(work)
    async def grows(msg: Triples, ctx: Context[ProcessorSettings]) -> None:
        calls.append(msg.metadata.id)
        await ctx.bus.publish(ctx.topics.topic(out), b"x" * (MAX_MESSAGE_BYTES + 1))

    dlq = topics.dead_letter(topics.topic(work), "oversize.work")
    dead = await bus.subscribe(dlq, "test")
    stop, ready = asyncio.Event(), asyncio.Event()
    running = asyncio.create_task(proc.run(settings, stop, ready))
    try:
        await asyncio.wait_for(ready.wait(), 30)
        await bus.publish(topics.topic(work), Triples(metadata=Metadata(id="m1"), triples=[]))
        letter = await asyncio.wait_for(dead.receive(), 10)
        assert b'"m1"' in letter.data()
        # a retry would run the handler again within the nack delay (0.2 s); wait well past it
        await asyncio.sleep(1.5)
        assert calls == ["m1"]
    finally:
        stop.set()
        await asyncio.wait_for(running, 30)


async def test_a_reply_too_large_answers_an_error_and_a_request_too_large_is_refused(
    settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    from trustgraph_base.messaging import LIBRARIAN

    proc: Processor[ProcessorSettings] = Processor("bloated")

    @proc.service(LIBRARIAN)
    async def answer(req: LibrarianRequest, ctx: Context[ProcessorSettings]) -> LibrarianResponse:
        return LibrarianResponse(content="x" * (MAX_MESSAGE_BYTES + 1))

    stop, ready = asyncio.Event(), asyncio.Event()
    running = asyncio.create_task(proc.run(settings, stop, ready))
    client = RequestClient(bus, topics, LIBRARIAN, "tester")
    try:
        await asyncio.wait_for(ready.wait(), 30)
        with pytest.raises(ServiceError) as err:
            await client.request(LibrarianRequest(operation="get-content", id="x"), timeout=10)
        assert err.value.type == ErrorType.FRAME_TOO_LARGE  # an answer, not a timeout
        with pytest.raises(MessageTooLarge):
            await client.request(
                LibrarianRequest(operation="put-content", content="x" * MAX_MESSAGE_BYTES),
                timeout=10,
            )
    finally:
        await client.close()
        stop.set()
        await asyncio.wait_for(running, 30)


async def test_a_handler_failing_on_every_try_gives_up_once_before_the_dead_letter(
    settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    work = Topic("work", Triples)
    proc: Processor[ProcessorSettings] = Processor("stubborn")
    tries: list[int] = []
    gave_up: asyncio.Queue[str] = asyncio.Queue()

    async def give_up(msg: Triples, exc: Exception, ctx: Context[ProcessorSettings]) -> None:
        await gave_up.put(f"{msg.metadata.id}: {exc}")

    @proc.consumer(work, give_up=give_up)
    async def fails(msg: Triples, ctx: Context[ProcessorSettings]) -> None:
        tries.append(len(tries))
        raise RuntimeError(f"try {len(tries)}")

    dead = await bus.subscribe(topics.dead_letter(topics.topic(work), "stubborn.work"), "test")
    stop, ready = asyncio.Event(), asyncio.Event()
    running = asyncio.create_task(proc.run(settings, stop, ready))
    try:
        await asyncio.wait_for(ready.wait(), 30)
        await bus.publish(topics.topic(work), Triples(metadata=Metadata(id="m1"), triples=[]))
        assert await asyncio.wait_for(gave_up.get(), 30) == "m1: try 4"  # the last of 1 + 3
        await asyncio.wait_for(dead.receive(), 30)
        assert len(tries) == 4 and gave_up.empty()
    finally:
        stop.set()
        await asyncio.wait_for(running, 30)
