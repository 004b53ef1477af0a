"""The messaging runtime against the real broker."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pulsar.asyncio import Consumer

from tests.conftest import RunningProcessors
from tests.support.poll import until
from tests.support.standin import echo_processor
from trustgraph_base.errors import BrokerUnavailable, RequestTimeout, ServiceError, WireError
from trustgraph_base.gcpause import YOUNG_THRESHOLD, gc_paused
from trustgraph_base.messaging import Bus, Context, Processor, RequestClient, Topic, Topics, kicks
from trustgraph_base.messaging.bus import MAX_REDELIVERIES, broker_auth
from trustgraph_base.messaging.kicks import KICK_TICK
from trustgraph_base.messaging.requests import forwarded, forwarded_pack
from trustgraph_base.messaging.services import (
    EXPLAIN_STORE,
    METRICS,
    TEXT_COMPLETION,
)
from trustgraph_base.rdf.terms import Triple, iri
from trustgraph_base.schema import Metadata, TextCompletionRequest, TextCompletionResponse, Triples
from trustgraph_base.schema.metrics import MetricsReport
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import decode, decode_pack, encode
from trustgraph_flow.gateway.metrics_board import MetricsBoard, listen
from trustgraph_flow.run_journal import RunJournal
from trustgraph_flow.trace_writer import TraceWriter


async def test_streamed_reply(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    await processors.start(echo_processor(), settings)
    client = RequestClient(bus, topics, TEXT_COMPLETION, "tester")
    pieces = [
        r.response async for r in client.stream(TextCompletionRequest(prompt="a b c"), timeout=10)
    ]
    assert pieces == ["a", "b", "c"]
    final = await client.request(TextCompletionRequest(prompt="x y"), timeout=10)
    assert final.response == "y" and final.end_of_stream
    with pytest.raises(ServiceError) as err:
        await client.request(TextCompletionRequest(prompt="fail"), timeout=10)
    assert err.value.type == "llm-error"
    await client.close()


async def test_a_forwarded_stream_passes_each_reply_on_as_it_came(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    await processors.start(echo_processor(), settings)
    client = RequestClient(bus, topics, TEXT_COMPLETION, "tester")
    request = TextCompletionRequest(prompt="a b c")
    sent = [encode(r) async for r in client.stream(request, timeout=10, forward=True)]
    again = [decode(TextCompletionResponse, b) for b in sent]
    assert [(r.response, r.end_of_stream) for r in again] == [
        ("a", False),
        ("b", False),
        ("c", True),
    ]
    with pytest.raises(ServiceError) as err:  # the envelope is still read: errors raise
        await anext(client.stream(TextCompletionRequest(prompt="fail"), timeout=10, forward=True))
    assert err.value.type == "llm-error"
    await client.close()


def test_a_forwarded_reply_keeps_its_bytes_and_checks_its_envelope() -> None:
    data = b'{"response": "fine", "end_of_stream": false, "extra": [1, 2]}'
    reply = forwarded(TextCompletionResponse, data)
    assert encode(reply) == data and reply.end_of_stream is False and reply.error is None
    failed = forwarded(TextCompletionResponse, b'{"error": {"type": "x", "message": "m"}}')
    assert failed.error is not None and failed.error.type == "x" and failed.end_of_stream
    with pytest.raises(WireError, match="malformed JSON"):
        forwarded(TextCompletionResponse, b'{"response": ')
    with pytest.raises(WireError, match="end_of_stream"):
        forwarded(TextCompletionResponse, b'{"end_of_stream": "maybe"}')
    with pytest.raises(WireError, match="error"):
        forwarded(TextCompletionResponse, b'{"error": {"type": "x"}}')


async def test_replies_ready_together_travel_as_one_message(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    """A handler that yields several replies without pausing sends them as one message (the
    ``pack`` property, a JSON array in order), which a RequestClient hands out one by one."""
    await processors.start(echo_processor(), settings)
    reply_topic = topics.topic("packed-replies")
    replies = await bus.subscribe(reply_topic, "inspect")
    await bus.publish(
        topics.request(TEXT_COMPLETION),
        TextCompletionRequest(prompt="one two three"),
        {"id": "p1", "reply-to": reply_topic},
    )
    msg = await asyncio.wait_for(replies.receive(), 10)
    assert (msg.properties()["id"], msg.properties()["pack"]) == ("p1", "3")
    got = decode_pack(TextCompletionResponse, msg.data())
    assert [(r.response, r.end_of_stream) for r in got] == [
        ("one", False), ("two", False), ("three", True),
    ]  # fmt: skip
    client = RequestClient(bus, topics, TEXT_COMPLETION, "pack-tester")
    pieces = [r.response async for r in client.stream(TextCompletionRequest(prompt="a b c d"))]
    assert pieces == ["a", "b", "c", "d"]
    await client.close()


async def test_a_caller_that_asked_for_no_stream_gets_the_replies_in_one_message(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    """Streamed, each reply goes as the handler yields it; not streamed (the caller only
    waits for the last), the replies before it are held and travel with it, in order."""
    await processors.start(echo_processor(pause=0.02), settings)
    reply_topic = topics.topic("held-replies")
    replies = await bus.subscribe(reply_topic, "inspect")

    async def messages(rid: str, streaming: bool, count: int) -> list[list[str]]:
        await bus.publish(
            topics.request(TEXT_COMPLETION),
            TextCompletionRequest(prompt="one two three", streaming=streaming),
            {"id": rid, "reply-to": reply_topic},
        )
        got = []
        for _ in range(count):
            msg = await asyncio.wait_for(replies.receive(), 10)
            await replies.acknowledge(msg)
            assert msg.properties()["id"] == rid
            if msg.properties().get("pack"):
                got.append([r.response for r in decode_pack(TextCompletionResponse, msg.data())])
            else:
                got.append([decode(TextCompletionResponse, msg.data()).response])
        return got

    assert await messages("s1", True, 3) == [["one"], ["two"], ["three"]]
    assert await messages("n1", False, 1) == [["one", "two", "three"]]
    client = RequestClient(bus, topics, TEXT_COMPLETION, "held-tester")
    final = await client.request(TextCompletionRequest(prompt="x y z"), timeout=10)
    assert (final.response, final.end_of_stream) == ("z", True)
    await client.close()


def test_a_pack_with_a_bad_reply_names_its_place() -> None:
    good = encode(TextCompletionResponse(response="fine"))
    with pytest.raises(WireError, match=r"^1\.in_token: "):
        decode_pack(TextCompletionResponse, b"[" + good + b',{"in_token": "many"}]')


def test_a_forwarded_pack_keeps_each_replys_bytes_and_checks_each_envelope() -> None:
    """A pack only written on (the gateway's, ``stream(forward=True)``) is split, not
    validated into models: each reply is its own bytes; a bad envelope or a pack that is
    not a JSON array is still refused, naming where."""
    items = [
        b'{"response": "a \\u00e9 \\"],[\\" \xc3\xa9", "end_of_stream": false, "extra": [1, {}]}',
        b'{"response": "b", "end_of_stream": true}',
    ]
    replies = forwarded_pack(TextCompletionResponse, b" [" + b" , ".join(items) + b"]\n")
    assert [encode(r) for r in replies] == items
    assert [r.end_of_stream for r in replies] == [False, True]
    assert forwarded_pack(TextCompletionResponse, b"[]") == []
    with pytest.raises(WireError, match=r"^1\.end_of_stream: "):
        forwarded_pack(TextCompletionResponse, b"[" + items[1] + b',{"end_of_stream": "x"}]')
    with pytest.raises(WireError, match=r"^0\.error\.message: "):
        forwarded_pack(TextCompletionResponse, b'[{"error": {"type": "x"}}]')
    for bad in (b'{"response": "a"}', b"[{}", b"[{}{}]", b"[{},]", b"[{}] {}", b"[\xff]"):
        with pytest.raises(WireError, match=r"^malformed JSON: "):
            forwarded_pack(TextCompletionResponse, bad)


async def test_malformed_request_is_answered_and_dead_lettered(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    await processors.start(echo_processor(), settings)
    request_topic = topics.request(TEXT_COMPLETION)
    dlq = topics.dead_letter(request_topic, "echo.text-completion")
    dead = await bus.subscribe(dlq, "inspect")
    reply_topic = topics.topic("manual-replies")
    replies = await bus.subscribe(reply_topic, "inspect")
    await bus.publish(
        request_topic, b'{"prompt": 42, "bogus": true}', {"id": "r1", "reply-to": reply_topic}
    )
    reply = await asyncio.wait_for(replies.receive(), 10)
    assert reply.properties()["id"] == "r1"
    assert b"bad-request" in reply.data()
    got = await asyncio.wait_for(dead.receive(), 10)
    assert got.data() == b'{"prompt": 42, "bogus": true}'
    # the service goes on serving
    client = RequestClient(bus, topics, TEXT_COMPLETION, "tester")
    assert (
        await client.request(TextCompletionRequest(prompt="still here"), timeout=10)
    ).response == "here"
    await client.close()


async def test_consumer_poison_message_is_dead_lettered(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    proc: Processor[ProcessorSettings] = Processor("sink")
    seen: asyncio.Queue[str] = asyncio.Queue()
    tries = 0

    @proc.consumer(Topic("things", Triples))
    async def on_triples(msg: Triples, ctx: Context[ProcessorSettings]) -> None:
        nonlocal tries
        if msg.metadata.id == "explode":
            tries += 1
            raise RuntimeError("handler bug")
        await seen.put(msg.metadata.id)

    await processors.start(proc, settings)
    topic = topics.topic("things")
    dead = await bus.subscribe(topics.dead_letter(topic, "sink.things"), "inspect")
    await bus.publish(topic, b"not json at all")
    await bus.publish(topic, Triples(metadata=Metadata(id="explode"), triples=[]))
    await bus.publish(topic, Triples(metadata=Metadata(id="fine"), triples=[]))
    assert await asyncio.wait_for(seen.get(), 10) == "fine"
    first = await asyncio.wait_for(dead.receive(), 15)
    second = await asyncio.wait_for(dead.receive(), 15)
    assert {first.data(), second.data()} >= {b"not json at all"}
    assert any(b"explode" in m.data() for m in (first, second))
    # Tried once and redelivered MAX_REDELIVERIES times, then dead-lettered by the runner
    # (with the message's own properties), and never delivered again.
    await asyncio.sleep(1.0)
    assert tries == MAX_REDELIVERIES + 1


async def test_request_timeout_when_no_service(bus: Bus, topics: Topics) -> None:
    client = RequestClient(bus, topics, TEXT_COMPLETION, "lonely")
    with pytest.raises(RequestTimeout):
        await client.request(TextCompletionRequest(prompt="anyone?"), timeout=0.5)
    await client.close()


async def test_a_broker_token_is_sent_and_the_embedded_broker_still_serves(
    pulsar_url: str, topics: Topics, tmp_path: Path
) -> None:
    """D9: processors take TG_PULSAR_TOKEN (or file:PATH); pulsar-lite ignores it (no auth)."""
    token_file = tmp_path / "client.token"
    token_file.write_text("eyJhbGciOiJIUzI1NiJ9.e30.not-checked-here\n")
    assert broker_auth("") is None
    for token in ("a-token", f"file:{token_file}"):
        bus = Bus(pulsar_url, token=token)
        try:
            topic = topics.topic(f"auth-{len(token)}")
            consumer = await bus.subscribe(topic, "s")
            await bus.publish(topic, b"hello")
            msg = await asyncio.wait_for(consumer.receive(), 10)
            assert msg.data() == b"hello"
            await consumer.acknowledge(msg)
        finally:
            await bus.close()


async def test_messages_sent_without_waiting_arrive_in_order_and_each_receipt_is_awaitable(
    bus: Bus, topics: Topics
) -> None:
    """``send_now``: the first message makes the topic's producer, the rest go straight to
    it (a model, or its wire form already encoded); every future is done once its message
    is persisted, and they arrive in order."""
    topic = topics.topic("sent-now")
    consumer = await bus.subscribe(topic, "s")

    def message(i: int) -> Triples:
        return Triples(metadata=Metadata(id=f"urn:test:{i}", user="u", collection="c"), triples=[])

    receipts = [bus.send_now(topic, message(i) if i % 2 else encode(message(i))) for i in range(20)]
    await asyncio.wait_for(asyncio.gather(*receipts), 10)
    got = []
    for _ in receipts:
        msg = await asyncio.wait_for(consumer.receive(), 10)
        got.append(decode(Triples, msg.data()).metadata.id)
        await consumer.acknowledge(msg)
    assert got == [f"urn:test:{i}" for i in range(20)]
    await (await bus.producer(topic)).close()  # the broker cannot take it: the receipt says so
    with pytest.raises(BrokerUnavailable, match=r"cannot publish to .*sent-now"):
        await asyncio.wait_for(bus.send_now(topic, message(20)), 10)


async def test_a_burst_of_large_messages_arrives_whole(bus: Bus, topics: Topics) -> None:
    """80 messages of 1.5 MB sent at once all reach the consumer: with pulsar-client's
    receiver queue of 1,000, pulsar-lite held the burst's tail back until the topic's next
    message (40-72 of 80 arrived in every try here; ``bus.RECEIVE_QUEUE``), and with a queue
    of 40 still 1 try in 10, until the bus kicked quiet subscriptions (``kicks.py``)."""
    topic = topics.topic("large-burst")
    consumer = await bus.subscribe(topic, "s")
    receipts = [bus.send_now(topic, bytes([i]) * 1_500_000) for i in range(80)]
    await asyncio.wait_for(asyncio.gather(*receipts), 60)
    got = []
    for _ in receipts:
        msg = await asyncio.wait_for(consumer.receive(), 20)  # held back: never comes
        got.append(msg.data()[0])
        await consumer.acknowledge(msg)
    assert sorted(got) == list(range(80))


async def test_a_burst_read_by_several_consumers_arrives_whole(bus: Bus, topics: Topics) -> None:
    """600 messages of 300 KB read by three consumers of one subscription all arrive: a flow
    of permits that lands while pulsar-lite's dispatcher runs a round starts none, and the
    backlog waited, every consumer idle, for the topic's next message (4 of 10 tries here)
    until the bus kicked quiet subscriptions (``kicks.py``)."""
    topic = topics.topic("shared-burst")
    consumers = [await bus.subscribe(topic, "s") for _ in range(3)]
    receipts = [bus.send_now(topic, i.to_bytes(2, "big") * 150_000) for i in range(600)]
    await asyncio.wait_for(asyncio.gather(*receipts), 60)
    arrived: asyncio.Queue[int] = asyncio.Queue()

    async def drain(consumer: Consumer) -> None:
        while True:  # its receive is never abandoned: a message it would take is not lost
            msg = await consumer.receive()
            await consumer.acknowledge(msg)
            arrived.put_nowait(int.from_bytes(msg.data()[:2], "big"))

    draining = [asyncio.ensure_future(drain(c)) for c in consumers]
    try:
        got = [await asyncio.wait_for(arrived.get(), 20) for _ in receipts]  # held: never
    finally:
        for task in draining:
            task.cancel()
        await asyncio.gather(*draining, return_exceptions=True)
    assert sorted(got) == list(range(600))
    assert bus.kicker.kicks > 0  # the consumers were quiet while the burst was sent


async def test_a_kick_takes_no_message_and_leaves_the_order_as_it_was(
    bus: Bus, topics: Topics
) -> None:
    """A quiet consumer's subscription is kicked (a consumer with no receive queue comes and
    goes): nothing is sent to the kick's consumer, so nothing is redelivered, and the quiet
    consumer still gets every message, in order, once it asks."""
    topic = topics.topic("kicked")
    consumer = await bus.subscribe(topic, "s")
    for i in range(3):
        await bus.publish(topic, bytes([i]))

    async def kicked_twice() -> bool:  # after 1 and 2 quiet looks (kicks.KICK_AT)
        return bus.kicker.kicks >= 2

    await until(kicked_twice, timeout=10)
    got = []
    for _ in range(3):
        msg = await asyncio.wait_for(consumer.receive(), 10)
        got.append((msg.data()[0], msg.redelivery_count()))
        await consumer.acknowledge(msg)
    assert got == [(0, 0), (1, 0), (2, 0)]


async def test_a_reply_topic_is_kicked_only_while_a_request_waits_on_it(
    bus: Bus, topics: Topics
) -> None:
    """Nothing can be held back for a reply topic with no request out, so its quiet
    subscription is not kicked (after a lone question, its callers' reply topics were
    kicked 48 times in the next 10 s); while a request waits on it, it is."""
    client = RequestClient(bus, topics, TEXT_COMPLETION, "kicked")
    await client.start()
    await asyncio.sleep(3 * KICK_TICK)  # quiet looks 1 and 2 have passed: kicks were due
    assert bus.kicker.kicks == 0
    waiting = asyncio.ensure_future(client.request(TextCompletionRequest(prompt="x"), timeout=20))

    async def kicked() -> bool:  # nobody serves the request: it waits, quiet (4, 8: KICK_AT)
        return bus.kicker.kicks >= 1

    try:
        await until(kicked, timeout=10)
    finally:
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
    await client.close()


async def test_the_looks_stop_once_every_consumer_is_past_its_last_kick_and_a_take_restarts_them(
    bus: Bus, topics: Topics, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idle process pays nothing: once every consumer has had its last quiet kick
    (``KICK_AT``), the bus stops looking (each look woke its loop); a take starts the looks,
    and the kicks, again."""
    monkeypatch.setattr(kicks, "KICK_TICK", 0.01)  # 33 looks in ~0.3 s, not 8 s
    topic = topics.topic("looks")
    consumer = await bus.subscribe(topic, "s")

    async def stopped() -> bool:
        return not bus.kicker.looking

    await until(stopped, timeout=10)
    kicked = bus.kicker.kicks
    assert kicked >= 1
    await asyncio.sleep(10 * kicks.KICK_TICK)
    assert (bus.kicker.looking, bus.kicker.kicks) == (False, kicked)
    await bus.publish(topic, b"x")
    msg = await asyncio.wait_for(consumer.receive(), 10)
    await consumer.acknowledge(msg)
    assert bus.kicker.looking

    async def kicked_again() -> bool:  # quiet again after its take: kicked at look 1
        return bus.kicker.kicks > kicked

    await until(kicked_again, timeout=10)


async def test_the_gateways_metrics_subscription_is_not_kicked_and_still_hears_reports(
    bus: Bus, topics: Topics
) -> None:
    """The metrics topic carries a report from every processor every few seconds, each a
    round for what is held: its quiet subscription is not kicked (~2.3 kicks a second, idle)."""
    board = MetricsBoard()
    listening = asyncio.create_task(listen(bus, topics, "gateway.metrics", board))
    try:
        await asyncio.sleep(4 * KICK_TICK)  # quiet looks 1 and 2 have passed
        assert bus.kicker.kicks == 0
        report = MetricsReport(processor="p", instance="i", at=1.0, every=5.0)
        await bus.publish(topics.topic(METRICS), report)

        async def heard() -> bool:
            return ("p", "i") in board.heard

        await until(heard, timeout=10)
    finally:
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)


async def test_messages_sent_without_waiting_may_share_a_batch_and_arrive_each_alone(
    bus: Bus, topics: Topics
) -> None:
    """``send_now(batching=True)`` (trace messages): what is sent in one pass leaves in a
    batch the broker stores as one entry, and each message still arrives alone, in order,
    with its own receipt; without it every message is its own entry."""
    batched, single = topics.topic("sent-batched"), topics.topic("sent-single")
    consumers = {t: await bus.subscribe(t, "s") for t in (batched, single)}

    def message(i: int) -> Triples:
        return Triples(metadata=Metadata(id=f"urn:test:{i}", user="u", collection="c"), triples=[])

    for topic, batching in ((batched, True), (single, False)):
        await bus.producer(topic, batching=batching)  # made first: the rest go in one pass
        receipts = [bus.send_now(topic, encode(message(i)), batching=batching) for i in range(8)]
        await asyncio.wait_for(asyncio.gather(*receipts), 10)
    for topic, in_batch in ((batched, True), (single, False)):
        got, indexes = [], []
        for _ in range(8):
            msg = await asyncio.wait_for(consumers[topic].receive(), 10)
            got.append(decode(Triples, msg.data()).metadata.id)
            indexes.append(msg.message_id().batch_index())
            await consumers[topic].acknowledge(msg)
        assert got == [f"urn:test:{i}" for i in range(8)]
        # A batched message has its index in the batch; one sent alone has none (-1).
        assert (max(indexes) > 0) is in_batch, indexes


async def test_a_traces_messages_leave_in_order(
    settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    """The trace writer's messages (a question's entities, sent in one pass) reach the
    store's topic in the order sent, each its own entry (no batching producer: see
    ``test_settling_trace_messages_never_stops_the_process``)."""
    consumer = await bus.subscribe(topics.topic(EXPLAIN_STORE), "trace-order")
    ctx: Context[ProcessorSettings] = Context("tracer", settings, bus)
    writer = TraceWriter(ctx, "urn:test:q", "u", "c", "2026-01-01T00:00:00Z")
    await writer.publish("urn:test:first", [])  # the topic's producer is made
    for i in range(6):
        writer.send(
            f"urn:test:{i}", [Triple(s=iri(f"urn:test:{i}"), p=iri("urn:p"), o=iri("urn:o"))]
        )
    await asyncio.wait_for(writer.delivered(), 10)
    got, indexes = [], []
    for _ in range(7):
        msg = await asyncio.wait_for(consumer.receive(), 10)
        got.append(decode(Triples, msg.data()).metadata.id)
        indexes.append(msg.message_id().batch_index())
        await consumer.acknowledge(msg)
    assert got == ["urn:test:first", *(f"urn:test:{i}" for i in range(6))]
    assert max(indexes) <= 0, indexes  # not in batches


async def test_what_a_processor_loaded_before_it_was_ready_is_out_of_the_collector(
    processors: RunningProcessors, settings: ProcessorSettings
) -> None:
    """Once subscribed, a processor freezes what it loaded (``gc.freeze``) and collects the
    youngest generation less often: the cyclic collector's passes no longer walk the
    modules and schemas, nor each message's models many times over. Stopped, it gives
    both back (a test's process runs many processors in turn)."""
    gc.unfreeze()  # whatever an earlier test in this process left frozen
    before = gc.get_threshold()
    await processors.start(echo_processor(), settings)
    assert gc.get_freeze_count() > 10_000  # modules, classes, pydantic's schemas
    assert gc.get_threshold() == (YOUNG_THRESHOLD, before[1], before[2])
    await processors.stop_all()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


_SETTLING = """
import asyncio, sys, tempfile, time
from pathlib import Path
from trustgraph_base.messaging import Bus, Context
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.run_journal import RunJournal
from trustgraph_flow.trace_writer import TraceWriter

async def main(url: str, prefix: str) -> int:
    bus = Bus(url)
    settings = ProcessorSettings(pulsar_url=url, topic_prefix=prefix)
    ctx = Context("tracer", settings, bus)
    journal = RunJournal(Path(tempfile.mkdtemp()) / "runs")
    writer = TraceWriter(ctx, "urn:test:q", "u", "c", "2026-01-01T00:00:00Z", journal)
    writer.run = journal.open("urn:test:q", "u", "c")
    n, end = 0, time.monotonic() + 10.0
    while time.monotonic() < end:
        for _ in range(20):
            writer.send(f"urn:test:step{n}", [])
            await writer.settle()
            n += 1
        await asyncio.sleep(0)
    await writer.delivered()
    await bus.close()
    return n

print(asyncio.run(main(sys.argv[1], sys.argv[2])))
"""


async def test_settling_trace_messages_never_stops_the_process(
    pulsar_url: str, prefix: str
) -> None:
    """A process that sends and settles trace messages as fast as it can for 10 s ends. When
    a settle pushed a batching producer's batch out (pulsar-client's ``flush_async``, which
    keeps the GIL while it waits for the producer's lock) it deadlocked against the batch
    timer's thread (which holds that lock and waits for the GIL to copy a Python send
    callback): GraphRAG stopped answering in a burst of questions. In a process of its own,
    since a deadlock holds the GIL."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _SETTLING,
        pulsar_url,
        prefix,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        pytest.fail("the process sending and settling trace messages hung")
    assert proc.returncode == 0, err.decode()
    assert int(out) > 100  # it did send


async def test_a_settled_trace_message_leaves_before_the_event_that_names_it(
    pulsar_url: str, settings: ProcessorSettings, topics: Topics, tmp_path: Path
) -> None:
    """A journaled trace message is safe once written to the journal, so ``settle`` does not
    wait for the broker; it still hands it over at once (not on a batching producer, whose
    delay, here 2 s, would hold it): the agent passes an explain event on right after, and
    the caller must find the entity ahead of what it sends then."""
    sender, other = Bus(pulsar_url, batch_delay_ms=2000), Bus(pulsar_url)
    try:
        consumer = await other.subscribe(topics.topic(EXPLAIN_STORE), "s")
        ctx: Context[ProcessorSettings] = Context("tracer", settings, sender)
        await sender.producer(topics.topic(EXPLAIN_STORE))  # the process's, made already
        journal = RunJournal(tmp_path / "runs")
        writer = TraceWriter(ctx, "urn:test:q", "u", "c", "2026-01-01T00:00:00Z", journal)
        writer.run = journal.open("urn:test:q", "u", "c")
        writer.send("urn:test:step", [])
        await asyncio.wait_for(writer.settle(), 1)  # journaled: no wait for the broker
        sentinel = Metadata(id="urn:test:sentinel", user="u", collection="c")
        sentinel_message = Triples(metadata=sentinel, triples=[])
        await other.publish(topics.topic(EXPLAIN_STORE), sentinel_message)
        got = []
        for _ in range(2):
            msg = await asyncio.wait_for(consumer.receive(), 10)
            got.append(decode(Triples, msg.data()).metadata.id)
            await consumer.acknowledge(msg)
        assert got == ["urn:test:step", "urn:test:sentinel"]
    finally:
        await sender.close()
        await other.close()


async def test_a_held_trace_message_goes_to_the_broker_with_the_next_one(
    pulsar_url: str, settings: ProcessorSettings, topics: Topics, tmp_path: Path
) -> None:
    """A RAG question (or synthesis) sent with ``hold`` is journaled on its own at once (safe:
    its explain event may go) and reaches the broker in one message with the stage after it,
    its triples first; what is still held when the run's receipts are awaited goes then. The
    journal keeps each stage's own message (a rerun reads them by their ids), and every one
    shares the receipt of the message it went in."""
    bus = Bus(pulsar_url)
    try:
        consumer = await bus.subscribe(topics.topic(EXPLAIN_STORE), "held")
        ctx: Context[ProcessorSettings] = Context("tracer", settings, bus)
        journal = RunJournal(tmp_path / "runs")
        writer = TraceWriter(ctx, "urn:test:q", "u", "c", "2026-01-01T00:00:00Z", journal)
        writer.run = journal.open("urn:test:q", "u", "c")

        def said(name: str) -> list[Triple]:
            return [Triple(s=iri(f"urn:test:{name}"), p=iri("urn:p"), o=iri("urn:o"))]

        await writer.publish("urn:test:q", said("q"), hold=True)
        assert [decode(Triples, m).metadata.id for m in journal.messages(writer.run)] == [
            "urn:test:q"
        ]
        await writer.publish("urn:test:exploration", said("exploration"))
        await writer.publish("urn:test:synthesis", said("synthesis"), hold=True)
        await writer.publish("urn:test:verification", said("verification"))
        await writer.publish("urn:test:last", said("last"), hold=True)
        await asyncio.wait_for(writer.delivered(), 10)
        got = []
        for _ in range(3):
            msg = await asyncio.wait_for(consumer.receive(), 10)
            message = decode(Triples, msg.data())
            got.append((message.metadata.id, [t.s.i for t in message.triples]))  # type: ignore[union-attr]
            await consumer.acknowledge(msg)
        assert got == [
            ("urn:test:q", ["urn:test:q", "urn:test:exploration"]),
            ("urn:test:synthesis", ["urn:test:synthesis", "urn:test:verification"]),
            ("urn:test:last", ["urn:test:last"]),
        ]
        journaled = [decode(Triples, m) for m in journal.messages(writer.run)]
        assert [(m.metadata.id, len(m.triples)) for m in journaled] == [
            (f"urn:test:{n}", 1) for n in ("q", "exploration", "synthesis", "verification", "last")
        ]
        assert writer.count == 5 and writer.receipts[0] is writer.receipts[1]
    finally:
        await bus.close()


def this_generator() -> object:
    """The async generator whose code calls this (found among its frame's referrers)."""
    frame = sys._getframe(1)
    return next(g for g in gc.get_referrers(frame) if getattr(g, "ag_frame", None) is frame)


async def test_a_handlers_replies_are_closed_once_answered_not_left_to_the_collector(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    """A streaming handler's generator, left at the yield of its last reply, was left to the
    garbage collector (``serving._answer``): its ``finally`` (a trace run's end, the run
    journal's ``done``) ran when it was freed, and while a reference cycle held it, not until
    the cyclic collector ran. It is closed once its request is answered; the caller sees the
    same replies."""
    proc: Processor[ProcessorSettings] = Processor("lingering")
    ended: asyncio.Queue[str] = asyncio.Queue()

    @proc.service(TEXT_COMPLETION)
    async def complete(
        req: TextCompletionRequest, ctx: Context[ProcessorSettings]
    ) -> AsyncIterator[TextCompletionResponse]:
        held = [this_generator()]  # its frame holds it: a cycle
        try:
            for word in req.prompt.split():
                yield TextCompletionResponse(response=word, end_of_stream=False)
            yield TextCompletionResponse(response=".", end_of_stream=True)
            yield TextCompletionResponse(response="never asked for", end_of_stream=True)
        finally:
            held.clear()
            ended.put_nowait(req.prompt)

    await processors.start(proc, settings)
    client = RequestClient(bus, topics, TEXT_COMPLETION, "tester")
    try:
        with gc_paused():  # as while the store builds a long trace's view
            request = TextCompletionRequest(prompt="a b")
            pieces = [r.response async for r in client.stream(request, timeout=10)]
            assert pieces == ["a", "b", "."]
            assert await asyncio.wait_for(ended.get(), 10) == "a b"  # before: never, paused
    finally:
        await client.close()
