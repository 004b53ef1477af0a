"""Reverse lineage: which top-level answers rest on a document, page, chunk or edge.

The writer records every trace's source links in the index's ``links`` table (a focus
edge's quoted triple, a DocumentRAG selected chunk), resolved to the chunk, page and
document behind them, each with the top-level trace it belongs to and that trace's time
(``links.py``). The newest answers resting on a source are one time-ordered index scan
on its column, stopping at the limit.
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.errors import ServiceError
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.schema.explain import (
    ChunkNode,
    DocumentView,
    SourceUsage,
    TraceSummary,
    UsagePath,
    UsageTrace,
)
from trustgraph_flow.store.index import TraceIndex
from trustgraph_flow.store.links import edge_key
from trustgraph_flow.store.lookup import SOURCE, edge_view, has_type, n
from trustgraph_flow.store.stores import Handle

Source = ox.NamedNode | ox.Triple
COLUMN = {"edge": "target", "chunk": "chunk", "page": "page", "document": "doc"}  # never user text


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
                "bad-request", f"malformed edge {text!r}: {exc} (write it as '<s> <p> <o>')"
            ) from None
        if len(quads) != 1:
            raise ServiceError(
                "bad-request", f"malformed edge {text!r}: expected one triple '<s> <p> <o>'"
            )
        q = quads[0]
        return ox.Triple(q.subject, q.predicate, q.object)
    uri = text[1:-1] if text.startswith("<") else document_uri(text)
    try:
        return ox.NamedNode(uri)
    except ValueError as exc:
        raise ServiceError("bad-request", f"malformed URI {text!r}: {exc}") from None


def classify(store: ox.Store, node: ox.NamedNode) -> str | None:
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
        or handle.index.db.execute(
            "SELECT 1 FROM links WHERE target = ? LIMIT 1", (edge_key(edge),)
        ).fetchone()
        is not None
    )


def resolve_source(handle: Handle, source: Source) -> tuple[str, str]:
    """The kind of a source and its key in the links table; not-found when the store does not know it."""
    if isinstance(source, ox.Triple):
        if not known_edge(handle, source):
            raise ServiceError("not-found", f"no edge {str(source)!r} in this collection")
        return "edge", edge_key(source)
    kind = classify(handle.store, source)
    if kind is None:
        raise ServiceError(
            "not-found", f"no document, page or chunk {source.value!r} in this collection"
        )
    return kind, source.value


def newest_tops(index: TraceIndex, kind: str, key: str, limit: int) -> list[str]:
    """The newest distinct top-level traces linked to the key: one index scan in time order."""
    tops: list[str] = []
    seen: set[str] = set()
    cur = index.db.execute(
        f"SELECT top FROM links WHERE {COLUMN[kind]} = ? ORDER BY top_time DESC", (key,)
    )
    for (top,) in cur:
        if top not in seen:
            seen.add(top)
            tops.append(str(top))
            if len(tops) >= limit:
                break
    cur.close()
    return tops


def edge_of(key: str) -> ox.Triple | None:
    """An edge key (N-Triples text) back as a triple."""
    try:
        q = next(iter(ox.parse(input=key + " .", format=ox.RdfFormat.N_TRIPLES)))
    except (SyntaxError, StopIteration):
        return None
    return ox.Triple(q.subject, q.predicate, q.object)


def paths_of(handle: Handle, top: str, kind: str, key: str) -> list[UsagePath]:
    """Every link from a top-level trace (and its sub-traces) into the asked source."""
    paths: list[UsagePath] = []
    rows = handle.index.db.execute(
        f"SELECT root, entity, target, kind, chunk, cited FROM links WHERE top = ? AND {COLUMN[kind]} = ? "
        "ORDER BY root, entity, chunk",
        (top, key),
    )
    for root, entity, target, link, chunk, cited in rows:
        edge = edge_of(target) if link == "edge" else None
        view = edge_view(handle.store, edge) if edge is not None else None
        paths.append(
            UsagePath(
                kind=link,
                trace=root,
                entity=entity,
                chunk=chunk or None,
                edge=view,
                cited=bool(cited),
            )
        )
    return paths


def source_usage(handle: Handle | None, text: str, limit: int) -> SourceUsage:
    """The newest top-level traces whose answers rest on the source, each with its linking paths."""
    source = parse_source(text)
    label = str(source) if isinstance(source, ox.Triple) else source.value
    if handle is None:
        raise ServiceError("not-found", f"no source {label!r} in this collection")
    kind, key = resolve_source(handle, source)
    traces = []
    for top in newest_tops(handle.index, kind, key, limit):
        row = handle.index.get(top)
        if row is None:
            continue  # the question of this trace has not been written (yet)
        summary = TraceSummary(
            id=row.id, type=row.kind, question=row.question, time=row.time, status=row.status
        )
        traces.append(UsageTrace(trace=summary, paths=paths_of(handle, top, kind, key)))
    return SourceUsage(source=label, kind=kind, traces=traces)


def count_users(index: TraceIndex, kind: str, key: str) -> int:
    """How many distinct top-level traces are linked to the key."""
    found = index.db.execute(
        f"SELECT COUNT(DISTINCT top) FROM links WHERE {COLUMN[kind]} = ?", (key,)
    ).fetchone()
    return int(found[0]) if found else 0


def with_usage(index: TraceIndex, doc: DocumentView) -> DocumentView:
    """The hierarchy with "used by N answers" on every page and chunk."""

    def counted(chunks: list[ChunkNode]) -> list[ChunkNode]:
        return [
            c.model_copy(update={"used_by": count_users(index, "chunk", c.uri)}) for c in chunks
        ]

    pages = [
        p.model_copy(
            update={"chunks": counted(p.chunks), "used_by": count_users(index, "page", p.uri)}
        )
        for p in doc.pages
    ]
    return doc.model_copy(update={"pages": pages, "chunks": counted(doc.chunks)})
