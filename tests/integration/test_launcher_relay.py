"""A process killed holding unacked messages through its relay: the relay closes the broker
side in order, and pulsar-lite hands every message to the successor, no broker restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.integration.test_messaging_restart import held
from trustgraph_base.messaging import Bus, EmbeddedBroker, Topics
from trustgraph_flow.launcher.relay import Relays


async def test_a_consumer_killed_behind_its_relay_frees_its_messages_without_a_broker_restart(
    tmp_path: Path, prefix: str
) -> None:
    broker = EmbeddedBroker(tmp_path / "broker").start()
    relays = Relays(broker.port)
    try:
        topic = Topics(prefix).topic("held")
        publisher = Bus(broker.url)
        for i in range(200):
            await publisher.publish(topic, f"m{i}".encode())
        await publisher.close()
        holder = await held(relays.add(), topic, "hold")  # as tg-start runs a processor
        try:
            assert holder.stdout is not None
            assert await asyncio.wait_for(holder.stdout.readline(), 60) == b"holding\n"
        finally:
            holder.kill()
            await holder.wait()
        broker_pid = broker.proc.pid if broker.proc else None
        successor = await held(relays.add(), topic, "drain")  # the restarted processor
        try:
            out, _ = await asyncio.wait_for(successor.communicate(), 60)
        finally:
            if successor.returncode is None:
                successor.kill()
                await successor.wait()
        assert out == b"200\n"  # every unacked message, redelivered
        assert broker.proc is not None and broker.proc.pid == broker_pid  # never restarted
    finally:
        relays.stop()
        broker.stop()
