"""The document hierarchy: document → pages (by number) → chunks (by index) → extracted edges."""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import DC, PROV, TG
from trustgraph_base.schema.explain import ChunkNode, DocumentView, EdgeView, PageNode
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.views.lookup import (
    SOURCE,
    as_int,
    edge_view,
    fetch_labels,
    first,
    has_type,
    n,
    objects,
)
from trustgraph_flow.store.views.prefetch import Prefetch


def children(store: QuadStore, parent: ox.NamedNode, cls: object) -> list[ox.NamedNode]:
    """Entities of class ``cls`` derived from ``parent`` in urn:graph:source."""
    found = store.quads_for_pattern(None, n(PROV.wasDerivedFrom), parent, SOURCE)
    return [
        q.subject
        for q in found
        if isinstance(q.subject, ox.NamedNode) and has_type(store, q.subject, cls, SOURCE)
    ]


def chunk_edges(store: QuadStore, chunk: ox.NamedNode) -> list[EdgeView]:
    """The edges of a chunk's subgraph(s), by their labels as shown (then their terms): the
    store's own order is arbitrary and differs between backends."""
    edges: list[tuple[tuple[str, ...], EdgeView]] = []
    for subgraph in children(store, chunk, TG.Subgraph):
        for edge in objects(store, subgraph, TG.contains, SOURCE):
            if isinstance(edge, ox.Triple):
                view = edge_view(store, edge)
                shown = (
                    view.s_label or str(edge.subject),
                    view.p_label or str(edge.predicate),
                    view.o_label or str(edge.object),
                    str(edge),
                )
                edges.append((shown, view))
    return [view for _, view in sorted(edges, key=lambda e: e[0])]


def chunk_node(store: QuadStore, chunk: ox.NamedNode) -> ChunkNode:
    return ChunkNode(
        uri=chunk.value,
        index=as_int(first(store, chunk, TG.chunkIndex, SOURCE)) or 0,
        char_offset=as_int(first(store, chunk, TG.charOffset, SOURCE)) or 0,
        char_length=as_int(first(store, chunk, TG.charLength, SOURCE)) or 0,
        edges=chunk_edges(store, chunk),
    )


def chunk_nodes(store: QuadStore, parent: ox.NamedNode) -> list[ChunkNode]:
    return sorted(
        (chunk_node(store, c) for c in children(store, parent, TG.Chunk)),
        key=lambda c: (c.index, c.uri),
    )


def fetch_levels(store: Prefetch, doc: ox.NamedNode) -> None:
    """Ahead of the walk below, a level per request on a server: each level's entities and
    whatever derives from them (document → pages → chunks → subgraphs), then the edges' labels."""
    frontier: list[ox.NamedNode] = [doc]
    subgraphs: list[ox.NamedNode] = []
    for _ in range(4):  # document, page, chunk, subgraph
        store.subjects(frontier, SOURCE)
        store.objects(frontier, n(PROV.wasDerivedFrom), SOURCE)
        subgraphs += [s for s in frontier if has_type(store, s, TG.Subgraph, SOURCE)]
        frontier = [
            q.subject
            for parent in frontier
            for q in store.quads_for_pattern(None, n(PROV.wasDerivedFrom), parent, SOURCE)
            if isinstance(q.subject, ox.NamedNode)
        ]
        if not frontier:
            break
    edges = [e for sg in subgraphs for e in objects(store, sg, TG.contains, SOURCE)]
    fetch_labels(store, [e for e in edges if isinstance(e, ox.Triple)])


def document_view(store: QuadStore | None, doc_uri: str) -> DocumentView | None:
    """The hierarchy of one document, or None when the store does not know it."""
    if store is None:
        return None
    doc = ox.NamedNode(doc_uri)
    store = Prefetch(store)
    fetch_levels(store, doc)
    if (
        not has_type(store, doc, TG.Document, SOURCE)
        and not children(store, doc, TG.Chunk)
        and not children(store, doc, TG.Page)
    ):
        return None
    pages = [
        PageNode(
            uri=p.value,
            number=as_int(first(store, p, TG.pageNumber, SOURCE)) or 0,
            chunks=chunk_nodes(store, p),
        )
        for p in children(store, doc, TG.Page)
    ]
    return DocumentView(
        id=doc_uri,
        title=first(store, doc, DC.title, SOURCE),
        mime_type=first(store, doc, TG.mimeType, SOURCE),
        pages=sorted(pages, key=lambda p: (p.number, p.uri)),
        chunks=chunk_nodes(store, doc),
    )
