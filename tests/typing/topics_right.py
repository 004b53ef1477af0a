"""The correct counterpart of topics_wrong.py: it must pass mypy."""

from __future__ import annotations

from trustgraph_base.messaging import CHUNKS, PAGES, TRIPLES_STORE, Context, Processor
from trustgraph_base.schema import ChunkText, Metadata, PageText, Triples
from trustgraph_base.settings import ProcessorSettings

proc: Processor[ProcessorSettings] = Processor("right")


async def publish_triples_on_the_store_topic(ctx: Context[ProcessorSettings]) -> None:
    await ctx.publish(TRIPLES_STORE, Triples(metadata=Metadata(id="m"), triples=[]))


@proc.consumer(PAGES)
async def chunk_pages(page: PageText, ctx: Context[ProcessorSettings]) -> None:
    chunk = ChunkText(
        metadata=page.metadata,
        document=page.document,
        chunk=f"{page.document}/c0",
        index=0,
        char_offset=0,
        char_length=len(page.text),
        text=page.text,
    )
    await ctx.publish(CHUNKS, chunk)


@proc.batch_consumer(TRIPLES_STORE)
async def store(batch: list[Triples], ctx: Context[ProcessorSettings]) -> list[Triples]:
    del ctx
    return batch[:0]
