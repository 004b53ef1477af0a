"""The knowledge extractor: asks the LLM for a chunk's edges, stores them with provenance.

The request and the reply's validation are ``extraction``'s. Facts go to the default graph; the
chunk's subgraph (``tg:contains << s p o >>``) and the extraction activity go to
``urn:graph:source``. The chunk text and entity labels are embedded and indexed.
Unusable LLM output is retried once, then reported and that chunk's edges skipped; an
unavailable LLM, embeddings or vector service fails the message so it is redelivered.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from pydantic import Field

from trustgraph_base.errors import RequestTimeout, ServiceError
from trustgraph_base.messaging import (
    CHUNKS,
    EMBEDDINGS,
    INGEST_EVENTS,
    LOADS_REMOVED,
    TRIPLES_STORE,
    VECTORS,
    Context,
    Processor,
)
from trustgraph_base.provenance import GRAPH_SOURCE
from trustgraph_base.provenance.uris import activity_uri, entity_uri
from trustgraph_base.schema import (
    ChunkText,
    EmbeddingsRequest,
    IngestEvent,
    LoadsRemoved,
    TextCompletionRequest,
    TextCompletionResponse,
    Triples,
    VectorItem,
    VectorRequest,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.document_budget import DocumentClock
from trustgraph_flow.extracted_triples import edge_spans, edge_triples, extraction_triples
from trustgraph_flow.extraction import (
    EDGES_SCHEMA,
    MAX_REPLY_TOKENS,
    BadOutput,
    ExtractedEdge,
    ExtractedEdges,
    check_edges,
    cut_off,
    extraction_request,
    salvage,
)
from trustgraph_flow.prompts.book import prompted
from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.structured import BadReply, ask

log = logging.getLogger(__name__)


class Settings(ProcessorSettings):
    max_edges: int = 200
    """Most edges kept per chunk (more is a runaway answer)."""
    document_budget: float = Field(default=600.0, ge=0)
    """Seconds a document's extraction may take (0: no limit), plus chunk_budget a chunk."""
    chunk_budget: float = Field(default=30.0, ge=0)
    """Seconds each chunk adds to its document's budget; past it, chunks get no edges."""


@dataclass(frozen=True)
class State:
    """Each document's time budget, and the loads removed (heard on ``LOADS_REMOVED``, kept
    in memory: the store and the vector index refuse their writes whatever this missed)."""

    clock: DocumentClock
    removed: RemovedLoads = field(default_factory=RemovedLoads)


proc: Processor[Settings, State] = Processor("extractor", Settings)
CONCURRENCY = 4  # chunks in flight at once: LLM calls dominate, so overlap them
Extracted = tuple[list[ExtractedEdge], TextCompletionResponse | None, str | None]


@proc.lifespan
async def extractor_state(ctx: Context[Settings]) -> AsyncIterator[State]:
    yield State(DocumentClock(ctx.settings.document_budget, ctx.settings.chunk_budget))


async def _extract(
    chunk: ChunkText, ctx: Context[Settings, State], request: TextCompletionRequest
) -> Extracted:
    """Edges of a chunk, trying twice; an unusable answer gives no edges and an error, and
    so does a document whose time budget is used up."""
    key = (chunk.metadata.user, chunk.metadata.collection, chunk.document)
    error = ""
    resp: TextCompletionResponse | None = None
    clock = ctx.state.clock
    left = clock.arrived(key)
    for attempt in (1, 2):
        left = left if attempt == 1 else clock.remaining(key)
        if left is not None and left <= 0:
            return [], resp, clock.reason()
        wait = min(left or ctx.settings.request_timeout, ctx.settings.request_timeout)
        try:
            reply = await ask(ctx, request, ExtractedEdges, schema=EDGES_SCHEMA, timeout=wait)
            return check_edges(reply.value, ctx.settings.max_edges), reply.response, None
        except BadReply as exc:
            resp = exc.response
            error = f"not an edge list: {exc}"
            if cut_off(exc.text, resp, request.max_tokens or MAX_REPLY_TOKENS):
                return _salvaged(chunk, exc.text, resp, request, ctx.settings.max_edges)
        except (BadOutput, ServiceError) as exc:
            error = str(exc)
        except RequestTimeout:
            if left is None or wait < left:
                raise  # the service is slow: redelivered
            return [], resp, clock.reason()
        log.warning("extraction from %s failed (attempt %d): %s", chunk.chunk, attempt, error)
    return [], resp, error


def _salvaged(
    chunk: ChunkText,
    text: str,
    resp: TextCompletionResponse | None,
    request: TextCompletionRequest,
    max_edges: int,
) -> Extracted:
    """The whole edges of a reply cut off by its length limit (asked again, it would be)."""
    try:
        edges = check_edges(salvage(text), max_edges)
    except BadOutput as exc:
        return [], resp, str(exc)
    log.warning(
        "the reply for %s ran into its max_tokens (%s): kept its %d whole edges",
        chunk.chunk,
        request.max_tokens,
        len(edges),
    )
    if not edges:
        return [], resp, f"the reply was cut off at {request.max_tokens} tokens before an edge"
    return edges, resp, None


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
            load=chunk.metadata.load,
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
            VectorRequest(
                operation="upsert", kind="entity", items=items, load=chunk.metadata.load, **scope
            ),
            timeout=timeout,
        )


async def _gave_up(chunk: ChunkText, exc: Exception, ctx: Context[Settings, State]) -> None:
    """The chunk failed on every try (a service down or refusing it): it is reported done
    without edges, with the reason, so its document still ends."""
    await _report(chunk, 0, f"failed on every try ({exc})", ctx)


async def _report(
    chunk: ChunkText, edges: int, error: str | None, ctx: Context[Settings, State]
) -> None:
    """The chunk's ``extracted`` event: its edge count, and why it has none if it failed."""
    await ctx.publish(
        INGEST_EVENTS,
        IngestEvent(
            metadata=chunk.metadata,
            document=chunk.document,
            stage="extracted",
            edges=edges,
            error=f"{chunk.chunk}: {error}" if error else None,
            source=chunk.chunk,
        ),
    )


@proc.consumer(CHUNKS, concurrency=CONCURRENCY, give_up=_gave_up)
async def on_chunk(chunk: ChunkText, ctx: Context[Settings, State]) -> None:
    """Extract, index and store one chunk's knowledge, then report it (nothing for a chunk
    of a removed load: its document is gone)."""
    if ctx.state.removed.removed(chunk.metadata):
        return
    request, prompt = await prompted(ctx, chunk.metadata.user, extraction_request(chunk.text))
    edges, resp, error = await _extract(chunk, ctx, request)
    if ctx.state.removed.removed(chunk.metadata):  # removed while the model answered
        return
    await _index(chunk, edges, ctx)
    facts, quoted = edge_triples(edges)
    if resp is not None and error is None:
        spans = edge_spans(chunk, edges, quoted)
        triples = facts + extraction_triples(chunk, quoted, resp, spans)
        if prompt is not None:
            triples += prompt.triples(activity_uri(chunk.chunk, "extract"), GRAPH_SOURCE)
        await ctx.publish(TRIPLES_STORE, Triples(metadata=chunk.metadata, triples=triples))
    await _report(chunk, len(edges), error, ctx)


@proc.consumer(LOADS_REMOVED)
async def on_removed(event: LoadsRemoved, ctx: Context[Settings, State]) -> None:
    """A document (or collection) was removed: its chunks still queued are dropped."""
    ctx.state.removed.heard(event)


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
