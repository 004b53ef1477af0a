"""The triples of a chunk's extraction: the facts with their labels (default graph), and the
chunk's subgraph with the extraction activity and its figures (``urn:graph:source``)."""

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
from trustgraph_base.provenance.uris import (
    activity_uri,
    component_uri,
    entity_uri,
    relation_uri,
    subgraph_uri,
)
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple
from trustgraph_base.schema import ChunkText, TextCompletionResponse
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


def extraction_triples(
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
