"""The document hierarchy: document → pages (by number) → chunks (by index) → extracted edges."""

from __future__ import annotations

from typing import NamedTuple

import pyoxigraph as ox

from trustgraph_base.bounds import CHUNK_WINDOW
from trustgraph_base.errors import ErrorType, ServiceError
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
    return [s for s in derived(store, [parent]) if has_type(store, s, cls, SOURCE)]


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


def in_order(store: QuadStore, chunks: list[ox.NamedNode]) -> list[ox.NamedNode]:
    """Chunks by index (then URI)."""
    return sorted(
        chunks, key=lambda c: (as_int(first(store, c, TG.chunkIndex, SOURCE)) or 0, c.value)
    )


def derived(store: QuadStore, parents: list[ox.NamedNode]) -> list[ox.NamedNode]:
    """Whatever derives from ``parents`` in urn:graph:source."""
    return [
        q.subject
        for parent in parents
        for q in store.quads_for_pattern(None, n(PROV.wasDerivedFrom), parent, SOURCE)
        if isinstance(q.subject, ox.NamedNode)
    ]


def fetch_outline(store: Prefetch, doc: ox.NamedNode) -> None:
    """Ahead of ``outline``, a request per level on a server: the document, its pages and
    page-less chunks, the pages' chunks; not yet what was extracted from the chunks."""
    if not store.batched:  # embedded: every lookup is a call on the store
        return
    store.subjects([doc], SOURCE)
    store.objects([doc], n(PROV.wasDerivedFrom), SOURCE)
    below = derived(store, [doc])
    store.subjects(below, SOURCE)
    pages = [p for p in below if has_type(store, p, TG.Page, SOURCE)]
    store.objects(pages, n(PROV.wasDerivedFrom), SOURCE)
    store.subjects(derived(store, pages), SOURCE)


def fetch_extracted(store: Prefetch, chunks: list[ox.NamedNode]) -> None:
    """Ahead of ``chunk_node``, for these chunks only: their subgraphs, the edges in those and
    the edges' labels."""
    store.subjects(chunks, SOURCE)
    store.objects(chunks, n(PROV.wasDerivedFrom), SOURCE)
    subgraphs = derived(store, chunks)
    store.subjects(subgraphs, SOURCE)
    edges = [e for sg in subgraphs for e in objects(store, sg, TG.contains, SOURCE)]
    fetch_labels(store, [e for e in edges if isinstance(e, ox.Triple)])


Placed = tuple[ox.NamedNode | None, ox.NamedNode]  # a chunk's page (None: page-less), the chunk


def outline(store: QuadStore, doc: ox.NamedNode) -> tuple[list[ox.NamedNode], list[Placed]]:
    """The document's pages by number, and all its chunks in order: each page's by index,
    then the page-less ones. The document's children are read once (a text's are its
    thousands of chunks), each of them typed once."""
    below = derived(store, [doc])
    chunks = [c for c in below if has_type(store, c, TG.Chunk, SOURCE)]
    known = set(chunks)
    pages = sorted(
        (p for p in below if p not in known and has_type(store, p, TG.Page, SOURCE)),
        key=lambda p: (as_int(first(store, p, TG.pageNumber, SOURCE)) or 0, p.value),
    )
    placed: list[Placed] = [
        (p, c) for p in pages for c in in_order(store, children(store, p, TG.Chunk))
    ]
    placed += [(None, c) for c in in_order(store, chunks)]
    return pages, placed


class Window(NamedTuple):
    view: DocumentView  # the window's chunks, under the pages they are on
    total: int  # the document's chunks, all of them
    page_chunks: dict[str, list[str]]  # each page shown: all its chunks (its usage counts them)


def document_window(
    store: QuadStore | None, doc_uri: str, offset: int = 0, limit: int | None = None
) -> Window | None:
    """The hierarchy of one document, or None when the store does not know it. Only chunks
    ``offset`` to ``offset + limit`` of its chunks in order (``outline``), and only the pages
    they are on, when the window leaves chunks out; every page otherwise (those without
    chunks too), so a window holding every chunk is the whole view.
    What was extracted is read for the window's chunks alone. With no ``limit``, a document of
    more chunks than a window may hold is refused at the count, before its view is built."""
    if store is None:
        return None
    doc = ox.NamedNode(doc_uri)
    store = Prefetch(store)
    fetch_outline(store, doc)
    pages, placed = outline(store, doc)
    if not has_type(store, doc, TG.Document, SOURCE) and not placed and not pages:
        return None
    if limit is None and len(placed) > CHUNK_WINDOW.high:
        raise ServiceError(
            ErrorType.RESULT_TOO_LARGE,
            f"the document has {len(placed):,} chunks, more than one reply holds "
            f"({CHUNK_WINDOW.high:,} at most): ask for its chunks a window at a time "
            "(chunk_limit, chunk_offset)",
        )
    window = placed[offset : None if limit is None else offset + limit]
    fetch_extracted(store, [c for _, c in window])
    nodes = {c.value: chunk_node(store, c) for _, c in window}
    by_page: dict[str, list[ChunkNode]] = {}
    for page, chunk in window:
        by_page.setdefault(page.value if page else "", []).append(nodes[chunk.value])
    windowed = len(window) < len(placed)
    shown = [p for p in pages if p.value in by_page or not windowed]
    page_chunks: dict[str, list[str]] = {p.value: [] for p in shown}
    for page, chunk in placed:
        if page is not None and page.value in page_chunks:
            page_chunks[page.value].append(chunk.value)
    view = DocumentView(
        id=doc_uri,
        title=first(store, doc, DC.title, SOURCE),
        mime_type=first(store, doc, TG.mimeType, SOURCE),
        pages=[
            PageNode(
                uri=p.value,
                number=as_int(first(store, p, TG.pageNumber, SOURCE)) or 0,
                chunks=by_page.get(p.value, []),
            )
            for p in shown
        ],
        chunks=by_page.get("", []),
    )
    return Window(view, len(placed), page_chunks)


def document_view(store: QuadStore | None, doc_uri: str) -> DocumentView | None:
    """The whole hierarchy of one document, or None when the store does not know it."""
    found = document_window(store, doc_uri)
    return found.view if found else None
