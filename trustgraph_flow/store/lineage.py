"""Reverse lineage: which top-level answers rest on a document, page, chunk or edge.

The writer records every trace's source links in the index's ``uses`` table (a focus
edge's quoted triple, a DocumentRAG selected chunk), each with the top-level trace it
belongs to and that trace's time. A source is resolved here to the set of link targets
it covers (a chunk: its URI and the edges of its subgraph; a page or document: those of
every chunk under it), and the newest top-level traces are read by merging one
time-ordered index scan per target, stopping at the limit.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator
from dataclasses import dataclass

import pyoxigraph as ox

from trustgraph_base.errors import ServiceError
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.schema.explain import (
    ChunkNode,
    DocumentView,
    EdgeView,
    SourceUsage,
    TraceSummary,
    UsagePath,
    UsageTrace,
)
from trustgraph_flow.store.convert import ConversionError, to_ox
from trustgraph_flow.store.hierarchy import children
from trustgraph_flow.store.index import TraceIndex, edge_key
from trustgraph_flow.store.lookup import SOURCE, edge_view, has_type, n, objects
from trustgraph_flow.store.stores import Handle

Source = ox.NamedNode | ox.Triple


@dataclass(frozen=True)
class Target:
    """One index key a source covers: a chunk URI or an edge key, and the chunk it comes from."""

    kind: str  # "chunk" | "edge"
    chunk: str | None
    edge: ox.Triple | None = None


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
            raise ServiceError("bad-request", f"malformed edge {text!r}: {exc} (write it as '<s> <p> <o>')") from None
        if len(quads) != 1:
            raise ServiceError("bad-request", f"malformed edge {text!r}: expected one triple '<s> <p> <o>'")
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


def chunk_targets(store: ox.Store, chunk: ox.NamedNode, out: dict[str, Target]) -> None:
    """The chunk's own key, and the key of every edge its subgraph(s) contain."""
    out[chunk.value] = Target("chunk", chunk.value)
    for subgraph in children(store, chunk, TG.Subgraph):
        for edge in objects(store, subgraph, TG.contains, SOURCE):
            if isinstance(edge, ox.Triple):
                out.setdefault(edge_key(edge), Target("edge", chunk.value, edge))


def chunks_under(store: ox.Store, node: ox.NamedNode, kind: str) -> list[ox.NamedNode]:
    """The chunks of a document (through its pages, and page-less ones), page or chunk."""
    if kind == "chunk":
        return [node]
    found = children(store, node, TG.Chunk)
    if kind == "document":
        for page in children(store, node, TG.Page):
            found.extend(children(store, page, TG.Chunk))
    return found


def known_edge(handle: Handle, edge: ox.Triple) -> bool:
    """Whether the collection holds the edge: extracted, in the knowledge graph, or used by a trace."""
    store = handle.store
    return (
        any(True for _ in store.quads_for_pattern(None, n(TG.contains), edge, SOURCE))
        or any(True for _ in store.quads_for_pattern(edge.subject, edge.predicate, edge.object, None))  # type: ignore[arg-type]
        or handle.index.db.execute("SELECT 1 FROM uses WHERE target = ? LIMIT 1", (edge_key(edge),)).fetchone() is not None
    )


def targets_of(handle: Handle, source: Source) -> tuple[str, dict[str, Target]]:
    """The kind of a source and the index keys it covers; not-found when the store does not know it."""
    store = handle.store
    if isinstance(source, ox.Triple):
        if not known_edge(handle, source):
            raise ServiceError("not-found", f"no edge {str(source)!r} in this collection")
        return "edge", {edge_key(source): Target("edge", None, source)}
    kind = classify(store, source)
    if kind is None:
        raise ServiceError("not-found", f"no document, page or chunk {source.value!r} in this collection")
    out: dict[str, Target] = {}
    for chunk in chunks_under(store, source, kind):
        chunk_targets(store, chunk, out)
    return kind, out


def _scan(index: TraceIndex, key: str) -> Iterator[tuple[str, str]]:
    for time, top in index.db.execute(
        "SELECT coalesce(top_time, ''), top FROM uses WHERE target = ? ORDER BY top_time DESC", (key,)
    ):
        yield str(time), str(top)


def newest_tops(index: TraceIndex, keys: list[str], limit: int) -> list[str]:
    """The newest distinct top-level traces using any key: a lazy merge of per-key index scans."""
    tops: list[str] = []
    seen: set[str] = set()
    for _, top in heapq.merge(*(_scan(index, k) for k in keys), reverse=True):
        if top not in seen:
            seen.add(top)
            tops.append(top)
            if len(tops) >= limit:
                break
    return tops


def paths_of(handle: Handle, top: str, targets: dict[str, Target]) -> list[UsagePath]:
    """Every link from a top-level trace (and its sub-traces) into the asked source."""
    paths: list[UsagePath] = []
    rows = handle.index.db.execute(
        "SELECT root, entity, target, kind FROM uses WHERE top = ? ORDER BY root, entity", (top,)
    )
    for root, entity, key, kind in rows:
        target = targets.get(key)
        if target is None:
            continue
        edge = edge_view(handle.store, target.edge) if target.edge is not None else None
        paths.append(UsagePath(kind=kind, trace=root, entity=entity, chunk=target.chunk, edge=edge))
    return paths


def source_usage(handle: Handle | None, text: str, limit: int) -> SourceUsage:
    """The newest top-level traces whose answers rest on the source, each with its linking paths."""
    source = parse_source(text)
    label = str(source) if isinstance(source, ox.Triple) else source.value
    if handle is None:
        raise ServiceError("not-found", f"no source {label!r} in this collection")
    kind, targets = targets_of(handle, source)
    traces = []
    for top in newest_tops(handle.index, list(targets), limit):
        row = handle.index.get(top)
        if row is None:
            continue  # the question of this trace has not been written (yet)
        summary = TraceSummary(id=row.id, type=row.kind, question=row.question, time=row.time, status=row.status)
        traces.append(UsageTrace(trace=summary, paths=paths_of(handle, top, targets)))
    return SourceUsage(source=label, kind=kind, traces=traces)  # type: ignore[arg-type]


def count_users(index: TraceIndex, keys: list[str]) -> int:
    """How many distinct top-level traces use any of the keys."""
    if not keys:
        return 0
    found = index.db.execute(
        "SELECT COUNT(DISTINCT top) FROM uses WHERE target IN (SELECT value FROM json_each(?))",
        (json.dumps(keys),),
    ).fetchone()
    return int(found[0]) if found else 0


def _edge_key(edge: EdgeView) -> str | None:
    try:
        s, o = to_ox(edge.s), to_ox(edge.o)
        return edge_key(ox.Triple(s, ox.NamedNode(edge.p.i), o))  # type: ignore[arg-type, union-attr]
    except (ValueError, TypeError, AttributeError, ConversionError):
        return None


def chunk_keys(chunk: ChunkNode) -> list[str]:
    return [chunk.uri, *(k for k in map(_edge_key, chunk.edges) if k is not None)]


def with_usage(index: TraceIndex, doc: DocumentView) -> DocumentView:
    """The hierarchy with "used by N answers" on every page and chunk."""

    def counted(chunks: list[ChunkNode]) -> list[ChunkNode]:
        return [c.model_copy(update={"used_by": count_users(index, chunk_keys(c))}) for c in chunks]

    pages = []
    for page in doc.pages:
        keys = [k for c in page.chunks for k in chunk_keys(c)]
        pages.append(page.model_copy(update={"chunks": counted(page.chunks), "used_by": count_users(index, keys)}))
    return doc.model_copy(update={"pages": pages, "chunks": counted(doc.chunks)})
