"""Wrong models on typed topics: every marked line is a mypy error (tests/unit/test_processor_typing.py)."""

from __future__ import annotations

from trustgraph_base.messaging import CHUNKS, PAGES, TRIPLES_STORE, Context, Processor
from trustgraph_base.schema import ChunkText, Metadata, PageText, Triples
from trustgraph_base.settings import ProcessorSettings

proc: Processor[ProcessorSettings] = Processor("wrong")


async def publish_pages_on_the_store_topic(page: PageText, ctx: Context[ProcessorSettings]) -> None:
    await ctx.publish(TRIPLES_STORE, page)  # mypy: misc (no M fits both the topic and the message)


async def publish_triples_on_chunks(ctx: Context[ProcessorSettings]) -> None:
    await ctx.publish(CHUNKS, Triples(metadata=Metadata(id="m"), triples=[]))  # mypy: misc


@proc.consumer(PAGES)  # mypy: arg-type
async def takes_chunks_from_pages(chunk: ChunkText, ctx: Context[ProcessorSettings]) -> None:
    await ctx.publish(CHUNKS, chunk)


@proc.batch_consumer(TRIPLES_STORE)  # mypy: arg-type
async def takes_pages_from_the_store_topic(
    batch: list[PageText], ctx: Context[ProcessorSettings]
) -> None:
    del batch, ctx
