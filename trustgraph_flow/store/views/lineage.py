"""Reverse lineage: which top-level answers rest on a document, page, chunk or edge.

The writer records every trace's source links in the index's ``links`` table (a focus
edge's quoted triple, a DocumentRAG selected chunk), resolved to the chunk, page and
document behind them, each with the top-level trace it belongs to and that trace's time
(``backends/embedded/links.py``, ``server/graph_index.py``). The newest answers resting on a source are one time-ordered index scan
on its column, stopping at the limit.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.provenance.uris import source_uri
from trustgraph_base.schema.explain import (
    ChunkNode,
    DocumentView,
    PageNode,
    SourceUsage,
    TraceSummary,
    UsagePath,
    UsageTrace,
)
from trustgraph_flow.store.core.backend import Handle, Index, QuadStore
from trustgraph_flow.store.core.rows import LinkRow, edge_key
from trustgraph_flow.store.views.dependence import Dependence
from trustgraph_flow.store.views.lookup import SOURCE, edge_view, fetch_labels, has_type, n
from trustgraph_flow.store.views.prefetch import Prefetch
from trustgraph_flow.store.views.region import REACH, Region

Source = ox.NamedNode | ox.Triple


def parse_source(text: str) -> Source:
    """A source as the caller wrote it: an edge ``<s> <p> <o>`` (N-Triples), or a URI / document id.

    The edge is read by the N-Triples parser, never pasted into a query; exactly one
    triple must come out of it.
    """
    text = text.strip()
    if text.startswith("<<(") and text.endswith(")>>"):
        text = text[3:-3].strip()
    if text.startswith("<") and not (text.endswith(">") and " " not in text):
        try:
            quads = list(ox.parse(input=text + " .", format=ox.RdfFormat.N_TRIPLES))
        except SyntaxError as exc:
            raise ServiceError(
                ErrorType.BAD_REQUEST, f"malformed edge {text!r}: {exc} (write it as '<s> <p> <o>')"
            ) from None
        if len(quads) != 1:
            raise ServiceError(
                ErrorType.BAD_REQUEST, f"malformed edge {text!r}: expected one triple '<s> <p> <o>'"
            )
        q = quads[0]
        return ox.Triple(q.subject, q.predicate, q.object)
    uri = text[1:-1] if text.startswith("<") else source_uri(text)
    try:
        return ox.NamedNode(uri)
    except ValueError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"malformed URI {text!r}: {exc}") from None


def classify(store: QuadStore, node: ox.NamedNode) -> str | None:
    """``document``, ``page`` or ``chunk`` from the node's type in urn:graph:source; None if unknown."""
    for cls, kind in ((TG.Chunk, "chunk"), (TG.Page, "page"), (TG.Document, "document")):
        if has_type(store, node, cls, SOURCE):
            return kind
    return None


def known_edge(handle: Handle, edge: ox.Triple) -> bool:
    """Whether the collection holds the edge: extracted, in the knowledge graph, or used by a trace."""
    store = handle.store
    return (
        any(True for _ in store.quads_for_pattern(None, n(TG.contains), edge, SOURCE))
        or any(
            True for _ in store.quads_for_pattern(edge.subject, edge.predicate, edge.object, None)
        )
        or handle.index.has_link(edge_key(edge))
    )


def resolve_source(handle: Handle, source: Source) -> tuple[str, str]:
    """The kind of a source and its key in the links table; not-found when the store does not know it."""
    if isinstance(source, ox.Triple):
        if not known_edge(handle, source):
            raise ServiceError(ErrorType.NOT_FOUND, f"no edge {str(source)!r} in this collection")
        return "edge", edge_key(source)
    kind = classify(handle.store, source)
    if kind is None:
        raise ServiceError(
            ErrorType.NOT_FOUND, f"no document, page or chunk {source.value!r} in this collection"
        )
    return kind, source.value


def newest_tops(index: Index, kind: str, key: str, limit: int) -> list[str]:
    """The newest distinct top-level traces linked to the key."""
    return index.link_tops(kind, key, limit)


def edge_of(key: str) -> ox.Triple | None:
    """An edge key (N-Triples text) back as a triple."""
    try:
        q = next(iter(ox.parse(input=key + " .", format=ox.RdfFormat.N_TRIPLES)))
    except (SyntaxError, StopIteration):
        return None
    return ox.Triple(q.subject, q.predicate, q.object)


def paths_of(
    store: QuadStore, rows: list[LinkRow], used: Callable[[LinkRow], bool] = lambda _: True
) -> list[UsagePath]:
    """The usage paths of a top-level trace's links (``Index.link_paths``) into the asked source;
    ``used``: whether the answer depends on the step that found the link."""
    paths: list[UsagePath] = []
    for row in rows:
        edge = edge_of(row.target) if row.kind == "edge" else None
        view = edge_view(store, edge) if edge is not None else None
        paths.append(
            UsagePath(
                kind=row.kind,
                trace=row.root,
                entity=row.entity,
                chunk=row.chunk or None,
                edge=view,
                cited=row.cited,
                used=used(row),
            )
        )
    return paths


def answer_used(handle: Handle, found: dict[str, list[LinkRow]]) -> Callable[[str, LinkRow], bool]:
    """Whether a top-level trace's answer depends on the (sub-)trace a link was found in: not
    when an agent step it does not rely on ran that sub-trace (``Dependence``)."""
    subs = handle.index.rows({r.root for rows in found.values() for r in rows})
    depends = Dependence(handle)

    def used(top: str, row: LinkRow) -> bool:
        sub = subs.get(row.root)
        return row.root == top or sub is None or depends.used(top, sub.parent)

    return used


def source_usage(
    handle: Handle | None, text: str, limit: int, chars: tuple[int, int | None] | None = None
) -> SourceUsage:
    """The newest top-level traces whose answers rest on the source, each with its linking
    paths; with ``chars``, only paths whose evidence lies on those characters of the page."""
    source = parse_source(text)
    label = str(source) if isinstance(source, ox.Triple) else source.value
    if handle is None:
        raise ServiceError(ErrorType.NOT_FOUND, f"no source {label!r} in this collection")
    kind, key = resolve_source(handle, source)
    region = None if chars is None else Region.of(handle.store, kind, key, chars)
    # a range keeps only some of the traces: look further back for the ones it keeps
    tops = newest_tops(handle.index, kind, key, limit if region is None else limit * REACH)
    found = handle.index.link_paths_of(tops, kind, key)
    used = answer_used(handle, found)
    rows = handle.index.rows(tops)
    store = Prefetch(handle.store)  # every path's edge labels in one request on a server
    edges = [edge_of(r.target) for rows in found.values() for r in rows if r.kind == "edge"]
    fetch_labels(store, [e for e in edges if e is not None])
    traces = []
    for top in tops:
        row = rows.get(top)
        if row is None:
            continue  # the question of this trace has not been written (yet)
        summary = TraceSummary(
            id=row.id, type=row.kind, question=row.question, time=row.time, status=row.status
        )
        paths = paths_of(store, found.get(top, []), partial(used, top))
        if region is not None:
            paths = [p for p in paths if region.holds(store, p)]
            if not paths:
                continue
        traces.append(UsageTrace(trace=summary, paths=paths))
    if region is not None:
        label = f"{label}#chars={region.start}-{region.end}"
    return SourceUsage(source=label, kind=kind, traces=traces[:limit])


def with_usage(
    handle: Handle, doc: DocumentView, page_chunks: dict[str, list[str]] | None = None
) -> DocumentView:
    """The hierarchy with "used by N answers, M of them citing it" on every page and chunk:
    from one read of the document's links (a chunk's users are the distinct top-level traces
    of its links, a page's those of its chunks' links: all of them, ``page_chunks``, when the
    view holds a window of them) and one of whether each is cited, not a count per page and
    chunk. Evidence only a dead-end agent step found (``answer_used``) does not count: the
    answer did not use it."""
    index = handle.index
    everyone = sorted({top for _entity, _chunk, _kind, top in index.document_links(doc.id)})
    found = index.link_paths_of(everyone, "document", doc.id) if everyone else {}
    used = answer_used(handle, found)
    tops: dict[str, set[str]] = {}
    cited: dict[str, set[str]] = {}
    for top, rows in found.items():
        for row in rows:
            if not used(top, row):
                continue
            tops.setdefault(row.chunk, set()).add(top)
            if row.cited:
                cited.setdefault(row.chunk, set()).add(top)

    def counted(chunks: list[ChunkNode]) -> list[ChunkNode]:
        return [
            c.model_copy(
                update={"used_by": len(tops.get(c.uri, ())), "cited_by": len(cited.get(c.uri, ()))}
            )
            for c in chunks
        ]

    def union(table: dict[str, set[str]], page: PageNode) -> int:
        uris = (page_chunks or {}).get(page.uri) or [c.uri for c in page.chunks]
        return len(set().union(*(table.get(uri, set()) for uri in uris)))

    pages = [
        p.model_copy(
            update={
                "chunks": counted(p.chunks),
                "used_by": union(tops, p),
                "cited_by": union(cited, p),
            }
        )
        for p in doc.pages
    ]
    return doc.model_copy(update={"pages": pages, "chunks": counted(doc.chunks)})
