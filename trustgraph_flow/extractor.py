"""The knowledge extractor: asks the LLM for a chunk's edges, stores them with provenance.

Facts go to the default graph; the chunk's subgraph (``tg:contains << s p o >>``) and
the extraction activity go to ``urn:graph:source``. The chunk text and entity labels
are embedded and indexed. Unusable LLM output is retried once, then reported and that
chunk's edges skipped; an unavailable LLM, embeddings or vector service fails the
message so it is redelivered.
"""

from __future__ import annotations

import json
import logging
import re

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, field_validator

from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import (
    CHUNKS,
    EMBEDDINGS,
    INGEST_EVENTS,
    TEXT_COMPLETION,
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

log = logging.getLogger(__name__)

SYSTEM = (
    "You extract knowledge graph edges from text. Answer with JSON only: a list of "
    'objects {"s": subject, "p": predicate, "o": object, "o_literal": bool}.'
)
PROMPT = """Extract the factual relationships stated in the text below.
Use short entity names as they appear in the text and a short lowercase predicate
(for example "capital of", "born in", "wrote"). Set "o_literal" to true when the object
is a value (a number, date or quantity) rather than a named entity.
Answer with a JSON list only, no prose, for example:
[{{"s": "Paris", "p": "capital of", "o": "France", "o_literal": false}}]

Text:
{text}
"""


class Settings(ProcessorSettings):
    max_edges: int = 200  # per chunk; more is a runaway answer


class ExtractedEdge(BaseModel):
    """One edge as the LLM states it (labels, not URIs)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    s: str
    p: str
    o: str
    o_literal: bool = False

    @field_validator("s", "p", "o")
    @classmethod
    def _label(cls, value: str) -> str:
        label = " ".join(value.split())
        if not label:
            raise ValueError("empty label")
        return label


_EDGES = TypeAdapter(list[ExtractedEdge])
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


class BadOutput(ValueError):
    """The LLM's answer is not a valid edge list."""


def parse_edges(answer: str, max_edges: int = 200) -> list[ExtractedEdge]:
    """Validate an ``extract-edges`` answer: a JSON list of {s, p, o, o_literal}."""
    body = _FENCE.sub("", answer.strip())
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise BadOutput(f"not JSON ({exc.msg} at char {exc.pos}): {answer[:120]!r}") from None
    try:
        edges = _EDGES.validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise BadOutput(f"not an edge list ({where}: {first['msg']})") from None
    if len(edges) > max_edges:
        raise BadOutput(f"{len(edges)} edges in one chunk (limit {max_edges})")
    return list(dict.fromkeys(edges))


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


async def _complete(chunk: ChunkText, ctx: Context[Settings]) -> TextCompletionResponse:
    req = TextCompletionRequest(
        system=SYSTEM, prompt=PROMPT.format(text=chunk.text), prompt_type="extract-edges",
        variables={"text": chunk.text}, temperature=0.0,
    )
    return await ctx.client(TEXT_COMPLETION).request(req, timeout=ctx.settings.request_timeout)


async def _extract(
    chunk: ChunkText, ctx: Context[Settings]
) -> tuple[list[ExtractedEdge], TextCompletionResponse | None, str | None]:
    """Edges of a chunk, trying twice; an unusable answer gives no edges and an error."""
    error = ""
    resp: TextCompletionResponse | None = None
    for attempt in (1, 2):
        try:
            resp = await _complete(chunk, ctx)
            return parse_edges(resp.response, ctx.settings.max_edges), resp, None
        except (BadOutput, ServiceError) as exc:
            error = str(exc)
            log.warning("extraction from %s failed (attempt %d): %s", chunk.chunk, attempt, error)
    return [], resp, error


async def _index(chunk: ChunkText, edges: list[ExtractedEdge], ctx: Context[Settings]) -> None:
    """Embed the chunk text and entity labels and upsert them into the vector index."""
    labels = list(dict.fromkeys(
        [e.s for e in edges] + [e.o for e in edges if not e.o_literal]))
    timeout = ctx.settings.request_timeout
    emb = await ctx.client(EMBEDDINGS).request(
        EmbeddingsRequest(texts=[chunk.text, *labels]), timeout=timeout)
    if len(emb.vectors) != 1 + len(labels):
        got, want = len(emb.vectors), 1 + len(labels)
        raise RuntimeError(f"embeddings returned {got} vectors for {want} texts")
    scope = {"user": chunk.metadata.user, "collection": chunk.metadata.collection}
    vectors = ctx.client(VECTORS)
    await vectors.request(VectorRequest(operation="upsert", kind="chunk", items=[VectorItem(
        id=chunk.chunk, vector=emb.vectors[0], text=chunk.text, document=chunk.document)],
        **scope), timeout=timeout)
    if labels:
        items = [VectorItem(id=entity_uri(lbl), vector=vec, text=lbl, document=chunk.document)
                 for lbl, vec in zip(labels, emb.vectors[1:], strict=True)]
        await vectors.request(VectorRequest(operation="upsert", kind="entity", items=items,
                                            **scope), timeout=timeout)


def _provenance(
    chunk: ChunkText, quoted: list[Quoted],
    resp: TextCompletionResponse,
) -> list[Triple]:
    subgraph = subgraph_uri(chunk.chunk)
    activity = activity_uri(chunk.chunk, "extract")
    settings = {TG.model: resp.model} if resp.model else {}
    return [
        *activity_triples(activity, component_uri("extractor"), "extractor", now_iso(), settings),
        *metrics_triples(activity, GRAPH_SOURCE, in_token=resp.in_token,
                         out_token=resp.out_token, latency_ms=resp.latency_ms),
        *subgraph_triples(subgraph, chunk.chunk, quoted, activity),
    ]


@proc.consumer(CHUNKS, ChunkText, concurrency=CONCURRENCY)
async def on_chunk(chunk: ChunkText, ctx: Context[Settings]) -> None:
    """Extract, index and store one chunk's knowledge, then report it."""
    edges, resp, error = await _extract(chunk, ctx)
    await _index(chunk, edges, ctx)
    facts, quoted = edge_triples(edges)
    if resp is not None and error is None:
        triples = facts + _provenance(chunk, quoted, resp)
        await ctx.publish(TRIPLES_STORE, Triples(metadata=chunk.metadata, triples=triples))
    await ctx.publish(INGEST_EVENTS, IngestEvent(
        metadata=chunk.metadata, document=chunk.document, stage="extracted", edges=len(edges),
        error=f"{chunk.chunk}: {error}" if error else None, source=chunk.chunk))


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
