"""The knowledge extractor: asks the LLM for a chunk's edges, stores them with provenance.

The reply is structured output: the edge-list schema (``ExtractedEdges``) is sent with
the request and every reply is validated against it. Facts go to the default graph; the
chunk's subgraph (``tg:contains << s p o >>``) and the extraction activity go to
``urn:graph:source``. The chunk text and entity labels are embedded and indexed.
Unusable LLM output is retried once, then reported and that chunk's edges skipped; an
unavailable LLM, embeddings or vector service fails the message so it is redelivered.
"""

from __future__ import annotations

import logging

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
from trustgraph_base.provenance import (
    GRAPH_SOURCE,
    RDFS,
    TG,
    activity_triples,
    metrics_triples,
    now_iso,
    subgraph_triples,
)
from trustgraph_base.provenance.uris import (
    activity_uri,
    component_uri,
    entity_uri,
    relation_uri,
    subgraph_uri,
)
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple
from trustgraph_base.schema import (
    ChunkText,
    EmbeddingsRequest,
    IngestEvent,
    TextCompletionRequest,
    TextCompletionResponse,
    Triples,
    VectorItem,
    VectorRequest,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.structured import BadReply, EdgeList, ask, schema_of, validate

log = logging.getLogger(__name__)

SYSTEM = (
    "You extract knowledge graph edges from text. Answer with JSON only: an object "
    '{"edges": [...]} whose items are {"s": subject, "p": predicate, "o": object, '
    '"o_literal": bool}.'
)
PROMPT = """Extract the factual relationships stated in the text below.
Use short entity names as they appear in the text and a short lowercase predicate
(for example "capital of", "born in", "wrote"). Set "o_literal" to true when the object
is a value (a number, date or quantity) rather than a named entity.
Answer with JSON only, no prose: an object whose "edges" list has one item per
relationship, each with "s" (subject), "p" (predicate), "o" (object) and "o_literal".

Text:
{text}
"""
MAX_REPLY_EDGES = 50  # the schema's maxItems: a small model may otherwise repeat itself
MAX_REPLY_TOKENS = 2048
MAX_LABEL = 80  # the schema's maxLength for a label


class Settings(ProcessorSettings):
    max_edges: int = 200
    """Most edges kept per chunk (more is a runaway answer)."""


class ExtractedEdge(BaseModel):
    """One edge as the LLM states it (labels, not URIs)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    s: str = Field(min_length=1)
    p: str = Field(min_length=1)
    o: str = Field(min_length=1)
    o_literal: bool = False

    @field_validator("s", "p", "o")
    @classmethod
    def _label(cls, value: str) -> str:
        label = " ".join(value.split())
        if not label:
            raise ValueError("empty label")
        return label


class ExtractedEdges(EdgeList):
    """An ``extract-edges`` reply: ``{"edges": [...]}`` (a bare list is accepted too)."""

    edges: list[ExtractedEdge]


EDGES_SCHEMA = schema_of(ExtractedEdges, max_length=MAX_LABEL)
EDGES_SCHEMA["properties"]["edges"]["maxItems"] = MAX_REPLY_EDGES


class BadOutput(ValueError):
    """The LLM's answer is not a valid edge list."""


def check_edges(reply: ExtractedEdges, max_edges: int = 200) -> list[ExtractedEdge]:
    """The edges of a validated reply, without repeats; too many is a runaway answer."""
    if len(reply.edges) > max_edges:
        raise BadOutput(f"{len(reply.edges)} edges in one chunk (limit {max_edges})")
    return list(dict.fromkeys(reply.edges))


def parse_edges(answer: str, max_edges: int = 200) -> list[ExtractedEdge]:
    """Validate an ``extract-edges`` answer: ``{"edges": [{s, p, o, o_literal}]}`` or a list."""
    try:
        reply = validate(answer, ExtractedEdges)
    except BadReply as exc:
        raise BadOutput(f"not an edge list: {exc}") from None
    return check_edges(reply, max_edges)


Quoted = tuple[IriTerm, IriTerm, IriTerm | LiteralTerm]


def edge_triples(edges: list[ExtractedEdge]) -> tuple[list[Triple], list[Quoted]]:
    """The facts with their labels (default graph), and the edges as terms for the subgraph."""
    facts: dict[str, Triple] = {}
    quoted: list[Quoted] = []

    def label(uri: str, text: str) -> None:
        fact = Triple(s=IriTerm(i=uri), p=RDFS.label, o=LiteralTerm(v=text))
        facts.setdefault(f"label {uri}", fact)

    for edge in edges:
        s, p = IriTerm(i=entity_uri(edge.s)), IriTerm(i=relation_uri(edge.p))
        label(s.i, edge.s)
        label(p.i, edge.p)
        o: IriTerm | LiteralTerm
        if edge.o_literal:
            o = LiteralTerm(v=edge.o)
        else:
            o = IriTerm(i=entity_uri(edge.o))
            label(o.i, edge.o)
        facts.setdefault(f"{s.i} {p.i} {o.model_dump_json()}", Triple(s=s, p=p, o=o))
        quoted.append((s, p, o))
    return list(facts.values()), quoted


proc: Processor[Settings] = Processor("extractor", Settings)
CONCURRENCY = 4  # chunks in flight at once: LLM calls dominate, so overlap them


def extraction_request(text: str) -> TextCompletionRequest:
    """The ``extract-edges`` request for one chunk's text."""
    return TextCompletionRequest(
        system=SYSTEM,
        prompt=PROMPT.format(text=text),
        prompt_type="extract-edges",
        variables={"text": text},
        temperature=0.0,
        max_tokens=MAX_REPLY_TOKENS,
    )


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


def _provenance(
    chunk: ChunkText,
    quoted: list[Quoted],
    resp: TextCompletionResponse,
) -> list[Triple]:
    subgraph = subgraph_uri(chunk.chunk)
    activity = activity_uri(chunk.chunk, "extract")
    settings = {TG.model: resp.model} if resp.model else {}
    return [
        *activity_triples(activity, component_uri("extractor"), "extractor", now_iso(), settings),
        *metrics_triples(
            activity,
            GRAPH_SOURCE,
            in_token=resp.in_token,
            out_token=resp.out_token,
            latency_ms=resp.latency_ms,
        ),
        *subgraph_triples(subgraph, chunk.chunk, quoted, activity),
    ]


@proc.consumer(CHUNKS, concurrency=CONCURRENCY)
async def on_chunk(chunk: ChunkText, ctx: Context[Settings]) -> None:
    """Extract, index and store one chunk's knowledge, then report it."""
    edges, resp, error = await _extract(chunk, ctx)
    await _index(chunk, edges, ctx)
    facts, quoted = edge_triples(edges)
    if resp is not None and error is None:
        triples = facts + _provenance(chunk, quoted, resp)
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
