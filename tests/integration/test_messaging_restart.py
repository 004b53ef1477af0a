"""A service killed with requests in flight: its successor subscribes at once and answers
the callers still waiting; requests whose callers gave up are not run; a fatal failure
ends the process non-zero."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.support.launcher import start_module
from tests.support.poll import eventually
from trustgraph_base.errors import RequestTimeout
from trustgraph_base.messaging import Bus, EmbeddedBroker, RequestClient, Topics
from trustgraph_base.messaging.services import TEXT_COMPLETION
from trustgraph_base.schema import TextCompletionRequest

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only

Start = Callable[..., Awaitable[asyncio.subprocess.Process]]


@pytest.fixture
async def echo(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Start]:
    """Start the slow echo service as a subprocess (ready once subscribed); all stopped after."""
    started: list[asyncio.subprocess.Process] = []

    async def start(delay: float = 0.5, url: str = pulsar_url) -> asyncio.subprocess.Process:
        proc = await start_module(
            "tests.support.slow_echo", "--pulsar-url", url,
            "--topic-prefix", prefix, "--record", str(tmp_path / "seen.txt"),
            "--log-level", "WARNING", "--delay", str(delay),
            ready=tmp_path / f"ready{len(started)}",
        )  # fmt: skip
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


def seen(tmp_path: Path) -> list[str]:
    path = tmp_path / "seen.txt"
    return path.read_text().split() if path.exists() else []


async def test_killed_service_comes_back_and_answers_waiting_callers(
    echo: Start, prefix: str, tmp_path: Path
) -> None:
    broker = EmbeddedBroker(tmp_path / "broker").start()
    bus = Bus(broker.url)
    try:
        await killed_mid_work(echo, broker, bus, prefix, tmp_path)
    finally:
        await bus.close()
        broker.stop()


async def killed_mid_work(
    echo: Start, broker: EmbeddedBroker, bus: Bus, prefix: str, tmp_path: Path
) -> None:
    client = RequestClient(bus, Topics(prefix), TEXT_COMPLETION, "caller")
    prompts = [f"p{i}" for i in range(1000)]
    calls = [
        asyncio.ensure_future(client.request(TextCompletionRequest(prompt=p), timeout=90))
        for p in prompts
    ]
    await client.start()
    second = await echo(
        delay=60, url=broker.url
    )  # subscribes from the earliest message: the whole backlog at once

    async def started() -> list[str]:
        return seen(tmp_path)

    began = await eventually(started, bool)  # it has begun on the backlog
    assert set(began) <= set(prompts), began
    second.send_signal(signal.SIGKILL)  # mid-work: it holds them all, acked none
    await second.wait()

    # What the launcher does when a processor is killed: pulsar-lite keeps a reset
    # connection's consumer, with its messages, until it restarts (see the last test).
    broker.stop()
    broker.start()
    await echo(delay=0.01, url=broker.url)
    answers = await asyncio.wait_for(asyncio.gather(*calls), 90)
    assert [a.response for a in answers] == prompts
    await client.close()


async def test_a_request_whose_caller_gave_up_is_not_run(
    echo: Start, bus: Bus, prefix: str, tmp_path: Path
) -> None:
    first = await echo()
    first.send_signal(signal.SIGKILL)
    await first.wait()
    client = RequestClient(bus, Topics(prefix), TEXT_COMPLETION, "caller")
    with pytest.raises(RequestTimeout):
        await client.request(TextCompletionRequest(prompt="abandoned"), timeout=0.5)

    await echo()
    reply = await client.request(TextCompletionRequest(prompt="fresh"), timeout=60)
    assert reply.response == "fresh"
    assert seen(tmp_path) == ["fresh"]  # the abandoned request was acked, not run
    await client.close()


async def test_a_fatal_failure_ends_the_process_non_zero(
    echo: Start, bus: Bus, prefix: str
) -> None:
    proc = await echo()
    client = RequestClient(bus, Topics(prefix), TEXT_COMPLETION, "caller")
    call = asyncio.ensure_future(client.request(TextCompletionRequest(prompt="fatal"), timeout=30))
    assert await asyncio.wait_for(proc.wait(), 60) == 1
    call.cancel()
    await client.close()


HOLD = """
import asyncio, sys
from trustgraph_base.messaging import Bus
async def main():
    bus = Bus(sys.argv[1])
    consumer = await bus.subscribe(sys.argv[2], "held")
    if sys.argv[3] == "hold":
        for n in range(1, 10**6):
            await consumer.receive()  # never acked
            if n == 5:
                print("holding", flush=True)
    got = set()
    while len(got) < 200:
        msg = await consumer.receive()
        got.add(msg.data())
        await consumer.acknowledge(msg)
    print(len(got), flush=True)
    await bus.close()
asyncio.run(main())
"""


async def held(pulsar_url: str, topic: str, mode: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD, pulsar_url, topic, mode,
        stdout=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def test_a_consumer_killed_holding_unacked_messages_is_freed_by_a_broker_restart(
    tmp_path: Path, prefix: str
) -> None:
    """The pulsar-lite limit the launcher works around (docs/messaging.md): a consumer whose
    connection is reset (killed with deliveries unread) stays registered with its messages
    until the broker restarts; then its successor gets every one of them."""
    broker = EmbeddedBroker(tmp_path / "broker").start()
    try:
        topic = Topics(prefix).topic("held")
        publisher = Bus(broker.url)
        for i in range(200):
            await publisher.publish(topic, f"m{i}".encode())
        await publisher.close()
        holder = await held(broker.url, topic, "hold")
        try:
            assert holder.stdout is not None
            assert await asyncio.wait_for(holder.stdout.readline(), 60) == b"holding\n"
        finally:
            holder.kill()
            await holder.wait()
        broker.stop()
        broker.start()  # same port, same data
        successor = await held(broker.url, topic, "drain")
        try:
            out, _ = await asyncio.wait_for(successor.communicate(), 60)
        finally:
            if successor.returncode is None:
                successor.kill()
                await successor.wait()
        assert out == b"200\n"
    finally:
        broker.stop()
