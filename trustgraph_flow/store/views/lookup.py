"""Small pattern lookups over one store, shared by the trace and hierarchy assemblers."""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import (
    DC,
    GRAPH_RETRIEVAL,
    GRAPH_SOURCE,
    PROV,
    RDF,
    RDFS,
    TG,
)
from trustgraph_base.schema.explain import EdgeView, SourceRef, SpanRef
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import DEFAULT_GRAPH, OxObject, from_ox, named, value_of
from trustgraph_flow.store.views.prefetch import Prefetch

SOURCE = named(GRAPH_SOURCE)
RETRIEVAL = named(GRAPH_RETRIEVAL)


def n(term: object) -> ox.NamedNode:
    """The NamedNode of a vocabulary IriTerm."""
    return named(term.i)  # type: ignore[attr-defined]


def objects(
    store: QuadStore, s: ox.NamedNode | ox.BlankNode, p: object, g: ox.NamedNode
) -> list[OxObject]:
    return [q.object for q in store.quads_for_pattern(s, n(p), None, g)]


def first(
    store: QuadStore, s: ox.NamedNode | ox.BlankNode, p: object, g: ox.NamedNode
) -> str | None:
    for q in store.quads_for_pattern(s, n(p), None, g):
        return value_of(q.object)
    return None


def as_int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def has_type(store: QuadStore, s: ox.NamedNode, cls: object, g: ox.NamedNode) -> bool:
    return any(True for _ in store.quads_for_pattern(s, n(RDF.type), n(cls), g))


def label(store: QuadStore, term: OxObject) -> str | None:
    """The rdfs:label of an IRI in the default graph (the extracted knowledge)."""
    if not isinstance(term, ox.NamedNode):
        return None
    for q in store.quads_for_pattern(term, n(RDFS.label), None, DEFAULT_GRAPH):
        return value_of(q.object)
    return None


def edge_view(store: QuadStore, edge: ox.Triple, **extra: object) -> EdgeView:
    """A quoted triple as an edge, with labels of s/p/o where the default graph has them."""
    return EdgeView(
        s=from_ox(edge.subject),
        p=from_ox(edge.predicate),
        o=from_ox(edge.object),
        s_label=label(store, edge.subject),
        p_label=label(store, edge.predicate),
        o_label=label(store, edge.object),
        **extra,
    )


def chunk_source(store: QuadStore, chunk: ox.NamedNode) -> SourceRef | None:
    """chunk → page (if any) → document, from urn:graph:source; None when the chunk is unknown."""
    parent = next(iter(objects(store, chunk, PROV.wasDerivedFrom, SOURCE)), None)
    if not isinstance(parent, ox.NamedNode):
        return None
    page: ox.NamedNode | None = None
    doc = parent
    if has_type(store, parent, TG.Page, SOURCE):
        page = parent
        up = next(iter(objects(store, parent, PROV.wasDerivedFrom, SOURCE)), None)
        if not isinstance(up, ox.NamedNode):
            return None
        doc = up
    return SourceRef(
        chunk=chunk.value,
        chunk_index=as_int(first(store, chunk, TG.chunkIndex, SOURCE)),
        page=page.value if page else None,
        page_number=as_int(first(store, page, TG.pageNumber, SOURCE)) if page else None,
        document=doc.value,
        title=first(store, doc, DC.title, SOURCE),
        mime_type=first(store, doc, TG.mimeType, SOURCE),
        char_offset=as_int(first(store, chunk, TG.charOffset, SOURCE)),
        char_length=as_int(first(store, chunk, TG.charLength, SOURCE)),
    )


def edge_spans(store: QuadStore, edge: ox.Triple, chunk: ox.NamedNode) -> list[SpanRef]:
    """The sentences of ``chunk`` that state ``edge`` (its ``tg:Span`` entities), in order."""
    spans: list[SpanRef] = []
    for q in store.quads_for_pattern(None, n(TG.edge), edge, SOURCE):
        span = q.subject
        if not isinstance(span, ox.NamedNode) or chunk not in objects(
            store, span, PROV.wasDerivedFrom, SOURCE
        ):
            continue
        spans.append(
            SpanRef(
                quote=first(store, span, TG.quote, SOURCE) or "",
                page_offset=as_int(first(store, span, TG.pageCharOffset, SOURCE)),
                length=as_int(first(store, span, TG.charLength, SOURCE)),
                located=first(store, span, TG.located, SOURCE) != "false",
            )
        )
    return sorted(spans, key=lambda s: (s.page_offset is None, s.page_offset or 0, s.quote))


def edge_sources(store: QuadStore, edge: ox.Triple) -> list[SourceRef]:
    """Every chunk an edge was extracted from: ``?sg tg:contains <<( s p o )>>`` → chunk → page → document."""
    refs: list[SourceRef] = []
    for q in store.quads_for_pattern(None, n(TG.contains), edge, SOURCE):
        if not isinstance(q.subject, ox.NamedNode):
            continue
        for chunk in objects(store, q.subject, PROV.wasDerivedFrom, SOURCE):
            if isinstance(chunk, ox.NamedNode):
                ref = chunk_source(store, chunk)
                if ref is not None:
                    ref = ref.model_copy(update={"spans": edge_spans(store, edge, chunk)})
                if ref is not None and ref not in refs:
                    refs.append(ref)
    # In document order, not the store's (which differs between backends).
    return sorted(refs, key=lambda r: (r.document, r.page_number or 0, r.chunk_index or 0, r.chunk))


def stated_facts(
    store: QuadStore, edges: list[ox.Triple]
) -> tuple[list[ox.Quad], list[ox.NamedNode]]:
    """The edges the default graph states (as quads), and every IRI the edges name, once each."""
    facts = []
    iris: dict[str, ox.NamedNode] = {}
    for edge in edges:
        quad = ox.Quad(edge.subject, edge.predicate, edge.object, DEFAULT_GRAPH)
        if quad in store:
            facts.append(quad)
        for term in (edge.subject, edge.predicate, edge.object):
            if isinstance(term, ox.NamedNode):
                iris[term.value] = term
    return facts, list(iris.values())


def fetch_labels(store: Prefetch, edges: list[ox.Triple]) -> None:
    """One level ahead of ``edge_view``: the labels of every edge's s, p and o."""
    store.subjects(
        (t for e in edges for t in (e.subject, e.predicate, e.object)), DEFAULT_GRAPH, n(RDFS.label)
    )


def fetch_chunk_sources(store: Prefetch, chunks: list[ox.NamedNode]) -> None:
    """The levels ``chunk_source`` follows, a level per request: chunk, its parent, a page's document."""
    store.subjects(chunks, SOURCE)
    parents = [
        q.object
        for c in chunks
        for q in store.quads_for_pattern(c, n(PROV.wasDerivedFrom), None, SOURCE)
    ]
    store.subjects(parents, SOURCE)
    ups = [
        q.object
        for p in parents
        if isinstance(p, ox.NamedNode) and has_type(store, p, TG.Page, SOURCE)
        for q in store.quads_for_pattern(p, n(PROV.wasDerivedFrom), None, SOURCE)
    ]
    store.subjects(ups, SOURCE)


def fetch_edge_sources(store: Prefetch, edges: list[ox.Triple]) -> None:
    """The levels ``edge_sources`` follows: the subgraphs containing each edge, their chunks, up."""
    store.objects(edges, n(TG.contains), SOURCE)
    subgraphs = [
        q.subject for e in edges for q in store.quads_for_pattern(None, n(TG.contains), e, SOURCE)
    ]
    store.subjects(subgraphs, SOURCE, n(PROV.wasDerivedFrom))
    chunks = [
        q.object
        for sg in subgraphs
        if isinstance(sg, ox.NamedNode)
        for q in store.quads_for_pattern(sg, n(PROV.wasDerivedFrom), None, SOURCE)
    ]
    fetch_chunk_sources(store, [c for c in chunks if isinstance(c, ox.NamedNode)])
    store.objects(edges, n(TG.edge), SOURCE)  # the edges' spans, then what each says
    spans = [q.subject for e in edges for q in store.quads_for_pattern(None, n(TG.edge), e, SOURCE)]
    store.subjects(spans, SOURCE)
