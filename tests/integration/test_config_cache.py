"""Processors keep what they read of the configuration until the configuration service says
it changed: a read asked again reaches no service, and a put or a delete is read at once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pulsar.asyncio import Consumer

from tests.support.stack import Stack
from trustgraph_base.messaging import CONFIG, CONFIG_CHANGED, Bus, Processor, Topics
from trustgraph_base.schema import ConfigChanged, ConfigKey, ConfigRequest, ConfigValue
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.config import processor as config
from trustgraph_flow.config.cache import ConfigCache
from trustgraph_flow.prompts.book import ask_config

KEY = ConfigKey(type="prompt", key="template.graph-rag-answer")
READ = ConfigRequest(operation="get", keys=[KEY], user="alice")


class Counter:
    """Counts the messages a subscription receives (one receive always waiting: a receive
    given up on would still take the next message)."""

    def __init__(self, consumer: Consumer) -> None:
        self.seen = 0
        self.consumer = consumer
        self.task = asyncio.create_task(self._count())

    async def _count(self) -> None:
        while True:
            msg = await self.consumer.receive()
            self.seen += 1
            await self.consumer.acknowledge(msg)

    async def since(self, last: int, quiet: float = 0.5) -> int:
        """Messages counted since ``last`` was, once none has come for ``quiet`` seconds."""
        while True:
            before = self.seen
            await asyncio.sleep(quiet)
            if self.seen == before:
                return self.seen - last


async def test_reads_kept_until_a_change_is_said(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, [config.proc], data_dir=tmp_path) as _stack:
        bus = Bus(pulsar_url)
        topics = Topics(prefix)
        asked = await bus.subscribe(topics.request(CONFIG), "inspect")  # a copy of each request
        counter = Counter(asked)
        reader = Processor("reader", ProcessorSettings)
        settings = ProcessorSettings(pulsar_url=pulsar_url, topic_prefix=prefix)
        try:
            async with reader.context(settings, bus) as ctx:
                cache = ConfigCache.of(ctx, CONFIG)
                for _ in range(100):  # listening once subscribed
                    if cache.listening:
                        break
                    await asyncio.sleep(0.05)
                assert cache.listening
                await counter.since(0)
                start = counter.seen
                first = await ask_config(ctx, READ)
                assert first is not None and first.values[0].value  # the default template
                for _ in range(3):
                    again = await ask_config(ctx, READ)
                    assert again == first
                assert await counter.since(start) == 1  # the first read only

                # a put through the gateway: the next read is the new value
                value = json.dumps({"prompt": "Facts:\n{{facts}}\nQ: {{question}}"})
                put = ConfigValue(type=KEY.type, key=KEY.key, value=value)
                await ctx.client(CONFIG).request(
                    ConfigRequest(operation="put", values=[put], user="alice")
                )
                changed = await ask_config(ctx, READ)
                assert changed is not None and changed.values[0].value == value
                # another user's change leaves alice's answer kept
                await ctx.client(CONFIG).request(
                    ConfigRequest(operation="put", values=[put], user="bob")
                )
                assert await ask_config(ctx, READ) == changed
                await ctx.client(CONFIG).request(
                    ConfigRequest(operation="delete", keys=[KEY], user="alice")
                )
                gone = await ask_config(ctx, READ)
                assert gone == first  # the default again
                assert (
                    await counter.since(start) == 6
                )  # and 2 puts, 1 delete, 2 reads after alice's

                # a service starting says anyone's may have changed: nothing kept
                await bus.publish(topics.topic(CONFIG_CHANGED), ConfigChanged())
                for _ in range(100):
                    if not cache.answers:
                        break
                    await asyncio.sleep(0.05)
                assert not cache.answers
        finally:
            counter.task.cancel()
            await bus.close()


async def test_reads_asked_together_ask_once(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    """A burst of the same read, before any answer is kept, reaches the service once; a read
    asked after a change was heard does not share the answer asked before it."""
    async with Stack(pulsar_url, prefix, [config.proc], data_dir=tmp_path) as _stack:
        bus = Bus(pulsar_url)
        topics = Topics(prefix)
        counter = Counter(await bus.subscribe(topics.request(CONFIG), "inspect"))
        reader = Processor("reader", ProcessorSettings)
        settings = ProcessorSettings(pulsar_url=pulsar_url, topic_prefix=prefix)
        try:
            async with reader.context(settings, bus) as ctx:
                cache = ConfigCache.of(ctx, CONFIG)
                for _ in range(100):
                    if cache.listening:
                        break
                    await asyncio.sleep(0.05)
                assert cache.listening
                start = await counter.since(0)
                answers = await asyncio.gather(*(ask_config(ctx, READ) for _ in range(20)))
                assert answers[0] is not None and answers[0].values[0].value
                assert all(a == answers[0] for a in answers)
                assert await counter.since(start) == 1

                # one on its way when a change is heard: the next read asks again
                cache.answers.clear()
                first = asyncio.ensure_future(ask_config(ctx, READ))
                await asyncio.sleep(0)  # it is asked
                cache.changed("alice")
                second = await ask_config(ctx, READ)
                assert await first == second
                assert await counter.since(start + 1) == 2
        finally:
            counter.task.cancel()
            await bus.close()
