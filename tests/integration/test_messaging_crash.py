"""Crash and restart behaviour of the runtime against the real broker."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest

from tests.conftest import RunningProcessors
from tests.support.standin import echo_processor
from trustgraph_base.messaging import Bus, EmbeddedBroker, RequestClient, Topics
from trustgraph_base.messaging.services import TEXT_COMPLETION
from trustgraph_base.schema import Metadata, TextCompletionRequest, Triples
from trustgraph_base.settings import ProcessorSettings

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only


async def _start_sink(pulsar_url: str, prefix: str, record: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.slow_sink",
        "--pulsar-url", pulsar_url, "--topic-prefix", prefix, "--record", str(record),
        "--log-level", "WARNING",
        stdin=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def _wait_for_lines(record: Path, n: int, timeout: float) -> list[str]:
    async def poll() -> list[str]:
        while True:
            seen = record.read_text().split() if record.exists() else []
            if len(set(seen)) >= n:
                return seen
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(poll(), timeout)


async def test_killed_consumer_unacked_messages_reach_its_successor(
    pulsar_url: str, prefix: str, bus: Bus, tmp_path: Path
) -> None:
    record = tmp_path / "seen.txt"
    first = await _start_sink(pulsar_url, prefix, record)
    topic = Topics(prefix).topic("work")
    ids = [f"m{i}" for i in range(60)]
    for mid in ids:
        await bus.publish(topic, Triples(metadata=Metadata(id=mid), triples=[]))
    await _wait_for_lines(record, 5, 30)
    first.send_signal(signal.SIGKILL)
    await first.wait()
    handled_by_first = set(record.read_text().split())
    assert handled_by_first < set(ids), "the first consumer should die mid-stream"

    successor = await _start_sink(pulsar_url, prefix, record)
    try:
        seen = await _wait_for_lines(record, len(ids), 60)
    finally:
        successor.terminate()
        await successor.wait()
    assert set(seen) == set(ids)  # at-least-once: nothing unacked is lost


async def test_client_reconnects_after_broker_restart(
    processors: RunningProcessors, tmp_path: Path, prefix: str
) -> None:
    broker = EmbeddedBroker(tmp_path / "broker").start()
    try:
        settings = ProcessorSettings(pulsar_url=broker.url, topic_prefix=prefix)
        await processors.start(echo_processor(), settings)
        bus = Bus(broker.url)
        client = RequestClient(bus, Topics(prefix), TEXT_COMPLETION, "tester")
        assert (
            await client.request(TextCompletionRequest(prompt="before"), timeout=10)
        ).response == "before"

        broker.stop()
        broker.start()  # same port, same data

        async def ask_until_answered() -> str:
            while True:
                try:
                    reply = await client.request(
                        TextCompletionRequest(prompt="after restart"), timeout=3
                    )
                    return reply.response
                except TimeoutError:
                    continue

        assert await asyncio.wait_for(ask_until_answered(), 60) == "restart"
        await client.close()
        await processors.stop_all()
        await bus.close()
    finally:
        broker.stop()
