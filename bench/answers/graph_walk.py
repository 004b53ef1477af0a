"""GraphRAG's knowledge graph in process, for bench_graph_stages: each chunk's edges read by
the offline extractor, the subgraph walked from some entities as ``subgraph.retrieve`` walks
it, and the edges the passages nearest the question add to the focus
(``graph_rag.passages``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.bench_retrieval import Chunk
from trustgraph_base import bounds
from trustgraph_base.provenance.document_uris import entity_uri
from trustgraph_flow.llm.extract import Edge, extract_edges


def _default(bound: bounds.Bound) -> int:
    assert bound.default is not None
    return bound.default


TRIPLE_LIMIT = _default(bounds.TRIPLE_LIMIT)
MAX_SUBGRAPH_SIZE = _default(bounds.MAX_SUBGRAPH_SIZE)
MAX_PATH_LENGTH = _default(bounds.MAX_PATH_LENGTH)
Key = tuple[str, str, str]


@dataclass
class Graph:
    edges: list[Key] = field(default_factory=list)  # (s, p, o) labels, in extraction order
    literal: dict[Key, bool] = field(default_factory=dict)
    sources: dict[Key, list[int]] = field(default_factory=dict)  # chunk indexes
    quotes: dict[Key, list[str]] = field(default_factory=dict)  # the sentences it was read from
    entities: list[str] = field(default_factory=list)  # labels, one per entity URI

    def add(self, chunk: int, e: Edge) -> None:
        key = (e.s, e.p, e.o)
        if key not in self.sources:
            self.edges.append(key)
            self.literal[key] = e.o_literal
        self.sources.setdefault(key, []).append(chunk)
        self.quotes.setdefault(key, []).append(" ".join(e.quote.split()))


def build(chunks: list[Chunk]) -> Graph:
    graph = Graph()
    uris: dict[str, str] = {}
    for n, chunk in enumerate(chunks):
        for e in extract_edges(chunk[4]):
            graph.add(n, e)
            for label in [e.s] if e.o_literal else [e.s, e.o]:
                uris.setdefault(entity_uri(label), label)
    graph.entities = list(uris.values())
    return graph


def walk(graph: Graph, start: list[str]) -> list[Key]:
    """The subgraph around the entities ``start`` (labels), as subgraph.retrieve walks it."""
    uri = entity_uri
    frontier = list(dict.fromkeys(uri(label) for label in start))
    visited = set(frontier)
    found: list[Key] = []
    seen: set[Key] = set()
    for _ in range(MAX_PATH_LENGTH):
        new: list[Key] = []
        for node in frontier:
            for side in ("s", "o"):
                hits = [
                    k
                    for k in graph.edges
                    if (
                        uri(k[0]) == node
                        if side == "s"
                        else not graph.literal[k] and uri(k[2]) == node
                    )
                ][:TRIPLE_LIMIT]
                for k in hits:
                    if len(found) < MAX_SUBGRAPH_SIZE and k not in seen:
                        seen.add(k)
                        found.append(k)
                        new.append(k)
        frontier = []
        for s, _, o in new:
            for term in [s] if graph.literal[(s, _, o)] else [s, o]:
                if uri(term) not in visited:
                    visited.add(uri(term))
                    frontier.append(uri(term))
        if not frontier or len(found) >= MAX_SUBGRAPH_SIZE:
            break
    return found


def with_passages(graph: Graph, sub: list[Key], chosen: list[Key], near: list[int]) -> list[Key]:
    """``chosen`` and, for each chunk of ``near`` (nearest the question first) none of whose
    edges is chosen, its first edge: one the walk found (first found first), else the least."""
    out = list(chosen)
    walked = {k: n for n, k in enumerate(sub)}
    for c in near:
        mine = [k for k in graph.edges if c in graph.sources[k]]
        if mine and not set(mine) & set(out):
            out.append(min(mine, key=lambda k: (walked.get(k, len(walked)), k)))
    return out
