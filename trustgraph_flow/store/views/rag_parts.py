"""What a GraphRAG or DocumentRAG trace's view shows: its stages, focus edges with their sources,
selected chunks with their ranks, and the erasures that touched them."""

from __future__ import annotations

from typing import NamedTuple

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import RDF, TG
from trustgraph_base.provenance.uris import (
    is_exploration_chunk_uri,
)
from trustgraph_base.schema.explain import (
    ChunkView,
)
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.views.claims import claim_views, verification_view
from trustgraph_flow.store.views.lookup import (
    as_int,
    chunk_source,
    edge_sources,
    edge_view,
    fetch_chunk_sources,
    fetch_edge_sources,
    fetch_labels,
)
from trustgraph_flow.store.views.prefetch import Prefetch
from trustgraph_flow.store.views.props import Props, text
from trustgraph_flow.store.views.removals import fetch_removals, removals


def rag_parts(store: QuadStore, props: Props, root: str, provenance: bool) -> dict[str, object]:
    exploration, focus, synthesis = f"{root}/exploration", f"{root}/focus", f"{root}/synthesis"
    store = store if isinstance(store, Prefetch) else Prefetch(store)
    fetch_links(store, props, focus, exploration, provenance)
    ranked = chunk_ranks(props, exploration)
    cites = {
        c.value for c in props.get(synthesis, {}).get(TG.cites.i, []) if isinstance(c, ox.NamedNode)
    }
    selected = [
        c
        for c in props.get(exploration, {}).get(TG.selectedChunk.i, [])
        if isinstance(c, ox.NamedNode)
    ]
    unranked = Ranked(len(selected) + 1, None, None, None)
    chunks = [
        ChunkView(
            uri=c.value,
            score=ranked.get(c.value, unranked).score,
            vector_rank=ranked.get(c.value, unranked).vector_rank,
            lexical_score=ranked.get(c.value, unranked).lexical_score,
            cited=c.value in cites,
            sources=[r for r in [chunk_source(store, c)] if r] if provenance else [],
            removed=removals(store, c),
        )
        for c in sorted(selected, key=lambda c: (ranked.get(c.value, unranked).rank, c.value))
    ]
    edge_uris = [
        e.value
        for e in props.get(focus, {}).get(TG.selectedEdge.i, [])
        if isinstance(e, ox.NamedNode)
    ]
    edges = []
    for uri in sorted(edge_uris, key=lambda u: (as_int(u.rsplit("/e", 1)[-1]) or 0, u)):
        quoted = props.get(uri, {}).get(TG.edge.i, [])
        if quoted and isinstance(quoted[0], ox.Triple):
            sources = edge_sources(store, quoted[0]) if provenance else []
            edges.append(
                edge_view(
                    store,
                    quoted[0],
                    uri=uri,
                    reasoning=text(props, uri, TG.reasoning),
                    cited=uri in cites,
                    sources=sources,
                    removed=removals(store, named(uri)),  # erasures: in the store only
                )
            )
    return {
        "exploration": exploration if exploration in props else None,
        "edge_count": as_int(text(props, exploration, TG.edgeCount)),
        "chunk_count": as_int(text(props, exploration, TG.chunkCount)),
        "chunks": chunks,
        "focus": focus if focus in props else None,
        "edges": edges,
        "synthesis": synthesis if synthesis in props else None,
        "answer": text(props, synthesis, TG.content),
        "claims": claim_views(props, synthesis),
        "verification": verification_view(props, synthesis),
    }


def fetch_links(
    store: Prefetch, props: Props, focus: str, exploration: str, provenance: bool
) -> None:
    """Everything the trace's chunks and edges link to, a level per request on a server
    (labels, erasures and, with provenance, the source chains), before the views follow them."""
    selected = [
        c
        for c in props.get(exploration, {}).get(TG.selectedChunk.i, [])
        if isinstance(c, ox.NamedNode)
    ]
    edge_uris = [
        e.value
        for e in props.get(focus, {}).get(TG.selectedEdge.i, [])
        if isinstance(e, ox.NamedNode)
    ]
    edges = [
        quoted[0]
        for uri in edge_uris
        if (quoted := props.get(uri, {}).get(TG.edge.i, [])) and isinstance(quoted[0], ox.Triple)
    ]
    invalidated = [named(u) for u in edge_uris]
    fetch_labels(store, edges)
    fetch_removals(store, selected + invalidated)
    if provenance:
        fetch_chunk_sources(store, selected)
        fetch_edge_sources(store, edges)


class Ranked(NamedTuple):
    """A selected chunk's reifier: its rank, vector similarity, and from a hybrid retrieval
    its vector rank and lexical score (docs/provenance.md)."""

    rank: int
    score: float | None
    vector_rank: int | None
    lexical_score: float | None


def chunk_ranks(props: Props, exploration: str) -> dict[str, Ranked]:
    """Chunk URI → its ranking, from the reifiers of its ``tg:selectedChunk`` triple."""
    ranks: dict[str, Ranked] = {}
    for uri, by_pred in props.items():
        if not is_exploration_chunk_uri(exploration, uri):
            continue
        about = by_pred.get(RDF.reifies.i, [])
        rank = as_int(text(props, uri, TG.rank))
        target = about[0].object if about and isinstance(about[0], ox.Triple) else None
        if target is not None and not isinstance(target, ox.Triple) and rank is not None:
            score, lexical = text(props, uri, TG.score), text(props, uri, TG.lexicalScore)
            ranks[target.value] = Ranked(
                rank,
                float(score) if score is not None else None,
                as_int(text(props, uri, TG.vectorRank)),
                float(lexical) if lexical is not None else None,
            )
    return ranks
