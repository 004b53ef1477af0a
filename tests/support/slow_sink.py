"""A consumer run as its own process by the crash tests: records each message id it handles."""

from __future__ import annotations

import asyncio
from pathlib import Path

from trustgraph_base.messaging import Context, Processor, Topic
from trustgraph_base.schema import Triples
from trustgraph_base.settings import ProcessorSettings


class SinkSettings(ProcessorSettings):
    record: str = "seen.txt"
    delay: float = 0.02


proc: Processor[SinkSettings] = Processor("slow-sink", SinkSettings)


@proc.consumer(Topic("work", Triples))
async def handle(msg: Triples, ctx: Context[SinkSettings]) -> None:
    await asyncio.sleep(ctx.settings.delay)
    with Path(ctx.settings.record).open("a") as f:
        f.write(msg.metadata.id + "\n")


if __name__ == "__main__":
    proc.main()
