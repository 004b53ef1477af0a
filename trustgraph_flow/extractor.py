"""The knowledge extractor: asks the LLM for a chunk's edges, stores them with provenance.

The request and the reply's validation are ``extraction``'s. Facts go to the default graph; the
chunk's subgraph (``tg:contains << s p o >>``) and the extraction activity go to
``urn:graph:source``. The chunk text and entity labels are embedded and indexed.
Unusable LLM output is retried once, then reported and that chunk's edges skipped; an
unavailable LLM, embeddings or vector service fails the message so it is redelivered.
"""

from __future__ import annotations

import logging

from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import (
    CHUNKS,
    EMBEDDINGS,
    INGEST_EVENTS,
    TRIPLES_STORE,
    VECTORS,
    Context,
    Processor,
)
from trustgraph_base.provenance.uris import entity_uri
from trustgraph_base.schema import (
    ChunkText,
    EmbeddingsRequest,
    IngestEvent,
    TextCompletionResponse,
    Triples,
    VectorItem,
    VectorRequest,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.extracted_triples import edge_triples, extraction_triples
from trustgraph_flow.extraction import (
    EDGES_SCHEMA,
    BadOutput,
    ExtractedEdge,
    ExtractedEdges,
    check_edges,
    extraction_request,
)
from trustgraph_flow.structured import BadReply, ask

log = logging.getLogger(__name__)


class Settings(ProcessorSettings):
    max_edges: int = 200
    """Most edges kept per chunk (more is a runaway answer)."""


proc: Processor[Settings] = Processor("extractor", Settings)
CONCURRENCY = 4  # chunks in flight at once: LLM calls dominate, so overlap them


async def _extract(
    chunk: ChunkText, ctx: Context[Settings]
) -> tuple[list[ExtractedEdge], TextCompletionResponse | None, str | None]:
    """Edges of a chunk, trying twice; an unusable answer gives no edges and an error."""
    error = ""
    resp: TextCompletionResponse | None = None
    for attempt in (1, 2):
        try:
            reply = await ask(
                ctx, extraction_request(chunk.text), ExtractedEdges, schema=EDGES_SCHEMA
            )
            resp = reply.response
            return check_edges(reply.value, ctx.settings.max_edges), resp, None
        except BadReply as exc:
            resp = exc.response
            error = f"not an edge list: {exc}"
        except (BadOutput, ServiceError) as exc:
            error = str(exc)
        log.warning("extraction from %s failed (attempt %d): %s", chunk.chunk, attempt, error)
    return [], resp, error


async def _index(chunk: ChunkText, edges: list[ExtractedEdge], ctx: Context[Settings]) -> None:
    """Embed the chunk text and entity labels and upsert them into the vector index."""
    labels = list(dict.fromkeys([e.s for e in edges] + [e.o for e in edges if not e.o_literal]))
    timeout = ctx.settings.request_timeout
    emb = await ctx.client(EMBEDDINGS).request(
        EmbeddingsRequest(texts=[chunk.text, *labels]), timeout=timeout
    )
    if len(emb.vectors) != 1 + len(labels):
        got, want = len(emb.vectors), 1 + len(labels)
        raise RuntimeError(f"embeddings returned {got} vectors for {want} texts")
    scope = {"user": chunk.metadata.user, "collection": chunk.metadata.collection}
    vectors = ctx.client(VECTORS)
    await vectors.request(
        VectorRequest(
            operation="upsert",
            kind="chunk",
            items=[
                VectorItem(
                    id=chunk.chunk, vector=emb.vectors[0], text=chunk.text, document=chunk.document
                )
            ],
            **scope,
        ),
        timeout=timeout,
    )
    if labels:
        items = [
            VectorItem(id=entity_uri(lbl), vector=vec, text=lbl, document=chunk.document)
            for lbl, vec in zip(labels, emb.vectors[1:], strict=True)
        ]
        await vectors.request(
            VectorRequest(operation="upsert", kind="entity", items=items, **scope), timeout=timeout
        )


@proc.consumer(CHUNKS, concurrency=CONCURRENCY)
async def on_chunk(chunk: ChunkText, ctx: Context[Settings]) -> None:
    """Extract, index and store one chunk's knowledge, then report it."""
    edges, resp, error = await _extract(chunk, ctx)
    await _index(chunk, edges, ctx)
    facts, quoted = edge_triples(edges)
    if resp is not None and error is None:
        triples = facts + extraction_triples(chunk, quoted, resp)
        await ctx.publish(TRIPLES_STORE, Triples(metadata=chunk.metadata, triples=triples))
    await ctx.publish(
        INGEST_EVENTS,
        IngestEvent(
            metadata=chunk.metadata,
            document=chunk.document,
            stage="extracted",
            edges=len(edges),
            error=f"{chunk.chunk}: {error}" if error else None,
            source=chunk.chunk,
        ),
    )


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
