"""Reverse lineage by region: the evidence that lies on characters ``start``…``end`` of a
page's text (or a page-less document's). An edge lies there when a sentence stating it
(its ``tg:Span`` in that chunk) overlaps the range; a chunk or an edge when a sentence of
the answer that cites it lies there (its claim's ``tg:ClaimSpan`` in that chunk: GraphRAG
may answer with a sentence of an edge's chunk no edge was read from); an edge
extracted before spans were recorded, and a chunk no claim of the answer was found in
(an answer before claim spans, or one that reworded the chunk), when its chunk overlaps it."""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.uris import synthesis_uri
from trustgraph_base.schema.explain import UsagePath
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import to_ox
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, as_int, edge_spans, first, n

REACH = 10  # a range looks this many times further back than its limit for traces to keep


def claim_spans(store: QuadStore, trace: str, chunk: str) -> list[tuple[int, int]]:
    """Where the sentences of ``trace``'s answer that cite ``chunk`` lie in it: (offset,
    length) in the chunk of each of its ``tg:ClaimSpan``."""
    prefix = synthesis_uri(trace) + "/claim"
    found: list[tuple[int, int]] = []
    for q in store.quads_for_pattern(None, n(TG.inChunk), ox.NamedNode(chunk), RETRIEVAL):
        span = q.subject
        if not isinstance(span, ox.NamedNode) or not span.value.startswith(prefix):
            continue
        offset = as_int(first(store, span, TG.charOffset, RETRIEVAL))
        length = as_int(first(store, span, TG.charLength, RETRIEVAL))
        if offset is not None and length is not None:
            found.append((offset, length))
    return found


def _edge(path: UsagePath) -> ox.Triple | None:
    if path.edge is None:
        return None
    return ox.Triple(to_ox(path.edge.s), to_ox(path.edge.p), to_ox(path.edge.o))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Region:
    """Characters ``start``…``end`` of one page (or page-less document) and its chunks' spans."""

    start: int
    end: int
    chunks: dict[str, tuple[int, int]]  # chunk URI → (offset, length) in the page

    @classmethod
    def of(cls, store: QuadStore, kind: str, key: str, chars: tuple[int, int | None]) -> Region:
        """The region asked for; bad-request for a source that is not a page (or a page-less
        document), an empty or reversed range, or one past the end of the page's text."""
        start, end = chars
        if kind not in ("page", "document"):
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"a character range needs a page (or a document without pages), not a {kind}",
            )
        if end is None or end <= start:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"bad character range {start}-{end}: write START-END, START < END",
            )
        chunks: dict[str, tuple[int, int]] = {}
        for q in store.quads_for_pattern(None, n(PROV.wasDerivedFrom), ox.NamedNode(key), SOURCE):
            chunk = q.subject
            if not isinstance(chunk, ox.NamedNode):
                continue
            offset = as_int(first(store, chunk, TG.charOffset, SOURCE))
            length = as_int(first(store, chunk, TG.charLength, SOURCE))
            if offset is not None and length is not None:
                chunks[chunk.value] = (offset, length)
        if kind == "document" and not chunks:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"{key!r} has pages: give a page (…/pN) with a character range",
            )
        extent = max((o + length for o, length in chunks.values()), default=0)
        if first(store, ox.NamedNode(key), TG.textLayer, SOURCE) == "false":
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"{key!r} has no text layer (a scanned page): it has no characters to look in",
            )
        if start >= extent:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"characters {start}-{end} are past the end of {key!r} "
                f"(its text ends at character {extent})",
            )
        return cls(start, end, chunks)

    def overlaps(self, offset: int, length: int) -> bool:
        return offset < self.end and self.start < offset + length

    def holds(self, store: QuadStore, path: UsagePath) -> bool:
        """Whether a usage path's evidence lies on the region."""
        span = self.chunks.get(path.chunk or "")
        if span is None:
            return False
        edge = _edge(path) if path.kind == "edge" else None
        cited = path.kind == "chunk" or (path.kind == "edge" and path.cited)
        placed = claim_spans(store, path.trace, path.chunk or "") if cited else []
        if any(self.overlaps(span[0] + o, length) for o, length in placed):
            return True  # a sentence of the answer citing it lies there
        if edge is None:
            return not placed and self.overlaps(*span)
        said = edge_spans(store, edge, ox.NamedNode(path.chunk or ""))
        located = [s for s in said if s.page_offset is not None and s.length is not None]
        if not said:
            return self.overlaps(*span)  # extracted before spans were recorded
        return any(self.overlaps(s.page_offset, s.length) for s in located)  # type: ignore[arg-type]
