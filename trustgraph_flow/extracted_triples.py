"""The triples of a chunk's extraction: the facts with their labels (default graph), and the
chunk's subgraph with the extraction activity and its figures, and each edge's span: the
sentence that states it (``urn:graph:source``)."""

from __future__ import annotations

from trustgraph_base.provenance import (
    GRAPH_SOURCE,
    RDFS,
    TG,
    activity_triples,
    metrics_triples,
    now_iso,
    subgraph_triples,
)
from trustgraph_base.provenance.evidence import EdgeSpan, edge_span_triples
from trustgraph_base.provenance.uris import (
    activity_uri,
    component_uri,
    entity_uri,
    relation_uri,
    subgraph_uri,
)
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple
from trustgraph_base.schema import ChunkText, TextCompletionResponse
from trustgraph_base.spans import locate
from trustgraph_flow.extraction import ExtractedEdge

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


def edge_spans(
    chunk: ChunkText, edges: list[ExtractedEdge], quoted: list[Quoted]
) -> list[EdgeSpan]:
    """Where each edge's quote lies in the chunk: found verbatim (layout read loosely,
    ``spans.locate``) and kept as the chunk's own text, or kept as quoted and unlocated.
    An edge without a quote gets no span."""
    spans: list[EdgeSpan] = []
    for edge, terms in zip(edges, quoted, strict=True):
        if not edge.quote.strip():
            continue
        found = locate(edge.quote, chunk.text)
        if found is None:
            spans.append(EdgeSpan(terms, edge.quote.strip(), None, None, chunk.char_offset))
        else:
            start, length = found
            quote = chunk.text[start : start + length]
            spans.append(EdgeSpan(terms, quote, start, length, chunk.char_offset))
    return spans


def extraction_triples(
    chunk: ChunkText,
    quoted: list[Quoted],
    resp: TextCompletionResponse,
    spans: list[EdgeSpan] | None = None,
) -> list[Triple]:
    subgraph = subgraph_uri(chunk.chunk)
    activity = activity_uri(chunk.chunk, "extract")
    settings = {TG.llmModel: resp.model} if resp.model else {}
    return [
        *activity_triples(
            activity,
            component_uri("extractor"),
            "extractor",
            now_iso(),
            settings,
            used=chunk.chunk,
        ),
        *metrics_triples(
            activity,
            GRAPH_SOURCE,
            in_token=resp.in_token,
            out_token=resp.out_token,
            latency_ms=resp.latency_ms,
        ),
        *subgraph_triples(subgraph, chunk.chunk, quoted, activity),
        *edge_span_triples(subgraph, chunk.chunk, spans or []),
    ]
