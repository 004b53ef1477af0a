"""The text a focus edge's claims are verified against: the sentences of the documents that
state it (its ``tg:Span`` quotes, located in their chunk), else — an edge extracted without a
quote — its labels "subject predicate object". Two store round trips for all the edges."""

from __future__ import annotations

from typing import Any

from trustgraph_base.messaging import Context
from trustgraph_base.provenance import GRAPH_SOURCE, TG, SelectedEdge
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, TripleTerm, quoted, term_key
from trustgraph_base.schema import TriplePattern
from trustgraph_base.schema.rag import GraphRagRequest
from trustgraph_flow.graph_rag.select import labelled
from trustgraph_flow.graph_rag.subgraph import Subgraph, query_patterns

SPANS_PER_EDGE = 5  # sentences read per edge (the same fact stated in several chunks)


async def _source(
    ctx: Context[Any], req: GraphRagRequest, patterns: list[TriplePattern]
) -> list[Triple]:
    return await query_patterns(ctx, req, SPANS_PER_EDGE, patterns, GRAPH_SOURCE)


def _quoted(edge: SelectedEdge) -> TripleTerm:
    return quoted(edge.s, edge.p, edge.o)


async def edge_texts(
    ctx: Context[Any], req: GraphRagRequest, graph: Subgraph, edges: list[SelectedEdge]
) -> list[str]:
    """Each edge's evidence text, in the order of ``edges``."""
    terms = [_quoted(e) for e in edges]
    found = await _source(ctx, req, [TriplePattern(p=TG.edge, o=t) for t in terms])
    spans: dict[str, list[str]] = {}
    for t in found:
        if isinstance(t.s, IriTerm) and isinstance(t.o, TripleTerm):
            spans.setdefault(term_key(t.o), []).append(t.s.i)
    uris = list(dict.fromkeys(u for us in spans.values() for u in us))
    facts = await _source(
        ctx,
        req,
        [TriplePattern(s=IriTerm(i=u), p=p) for u in uris for p in (TG.quote, TG.located)],
    )
    quote: dict[str, str] = {}
    unlocated: set[str] = set()
    for t in facts:
        if not isinstance(t.s, IriTerm) or not isinstance(t.o, LiteralTerm):
            continue
        if t.p == TG.quote:
            quote[t.s.i] = t.o.v
        elif t.p == TG.located and t.o.v == "false":
            unlocated.add(t.s.i)
    out: list[str] = []
    for edge, term in zip(edges, terms, strict=True):
        said = [
            quote[u] for u in spans.get(term_key(term), []) if u in quote and u not in unlocated
        ]
        names = labelled(graph, Triple(s=edge.s, p=edge.p, o=edge.o))
        out.append(" ".join(dict.fromkeys(said)) or f"{names['s']} {names['p']} {names['o']}")
    return out
