"""The passages nearest the question, as GraphRAG reaches them: by the edges read from them.

The walk from the question's entities finds edges by their labels, and the selection picks
edges by what their labels say; a chunk whose edges name nothing the question names is never
chosen, though its sentences answer ("Who paid for the dome?" against a chunk whose edges
are about the dome's architect, and whose sentence on the gift gave no edge). The chunks
nearest the question in the vector index (the index DocumentRAG reads) are looked up with
the same embedding as the entities, in DocumentRAG's order (``nearest_passages``: with
hybrid retrieval, the vector order fused with the question's words), and from each one that
gave edges and none of whose edges
was selected, one edge joins the focus beside the selection (it is not among the explored
edges offered to it), with the reason that it was read from a passage near
the question. The answer then reads that chunk's sentences as it reads every focus edge's
(``graph_rag.evidence``), and a sentence of it is cited as that edge. A passage that gave no
edge at all (``bare_passages``: a release note's date, a maintainer's line, a README whose
sentences the extractor reads no relation in) is given to the answer as text, numbered after
the edges, and cited as its chunk: the exploration names it (``tg:selectedChunk``, as
DocumentRAG names its chunks), so the trace says what was read beside the edges.
"""

from __future__ import annotations

from typing import Any

from trustgraph_base.messaging import Context
from trustgraph_base.provenance import GRAPH_SOURCE, TG, SelectedEdge
from trustgraph_base.provenance.document_uris import subgraph_uri
from trustgraph_base.rdf.assembled import assembled_edge
from trustgraph_base.rdf.terms import IriTerm, Triple, TripleTerm, term_key
from trustgraph_base.schema import TriplePattern, VectorMatch
from trustgraph_base.schema.rag import GraphRagRequest
from trustgraph_flow.document_rag.hybrid import fuse
from trustgraph_flow.graph_rag.select import names_nothing
from trustgraph_flow.graph_rag.subgraph import Subgraph
from trustgraph_flow.rag_common import RagSettings, chunk_texts

PASSAGES = 2  # chunks nearest the question looked at
EDGES_PER_CHUNK = 64  # edges read per chunk (the offline extractor keeps at most 40)
REASON = "read from passage {n} of the {count} nearest the question"

Key = tuple[str, str, str]


def _key(t: Triple) -> Key:
    return (term_key(t.s), term_key(t.p), term_key(t.o))


def passage_candidates(settings: RagSettings) -> int:
    """How many chunks the vector search returns for the passages: ``doc_candidates`` with
    hybrid retrieval (``doc_retrieval``), else ``PASSAGES``."""
    return (
        max(PASSAGES, settings.doc_candidates) if settings.doc_retrieval == "hybrid" else PASSAGES
    )


async def nearest_passages(
    ctx: Context[Any], req: GraphRagRequest, chunks: list[VectorMatch]
) -> list[str]:
    """The ``PASSAGES`` chunks nearest the question, as DocumentRAG orders them: the first of
    ``chunks`` (the vector order), or with more of them (hybrid), the first in the order
    fused with the question's words (``document_rag.hybrid``). The hashing embedder ranks a
    long chunk that shares common words with the question above the one that answers it; the
    question's rarer words find that one ("Which environment variables does bzip2 read
    arguments from?": 4th by vector, 2nd fused)."""
    if len(chunks) <= PASSAGES:
        return [m.id for m in chunks]
    texts = await chunk_texts(ctx, req, chunks)
    return [chunks[r.index].id for r in fuse(req.query, texts)[:PASSAGES]]


def passage_patterns(chunks: list[str]) -> list[TriplePattern]:
    """What reads the edges of each of ``chunks`` (``{chunk}/subgraph tg:contains``, in
    ``urn:graph:source``): asked in the walk's first request (``retrieve``'s ``also``)."""
    return [
        TriplePattern(
            s=IriTerm(i=subgraph_uri(c)), p=TG.contains, g=GRAPH_SOURCE, limit=EDGES_PER_CHUNK
        )
        for c in chunks
    ]


def passage_edges(chunks: list[str], found: list[Triple], graph: Subgraph) -> list[list[Triple]]:
    """For each of ``chunks`` (nearest first), the edges read from it (``found``: the
    matches of ``passage_patterns``): those the walk found first, in the order it found
    them, then the rest in term order (the same from every store backend). The edges are not
    added to ``graph`` (the walk's edges are what was explored, within
    ``max_subgraph_size``); the caller looks up their labels with its own."""
    read: dict[str, list[Triple]] = {}
    for t in found:
        if isinstance(t.s, IriTerm) and isinstance(t.o, TripleTerm):
            tr = t.o.tr
            read.setdefault(t.s.i, []).append(assembled_edge(tr.s, tr.p, tr.o))
    walked = {_key(t): n for n, t in enumerate(graph.edges)}
    out: list[list[Triple]] = []
    for chunk in chunks:
        mine = {_key(t): t for t in read.get(subgraph_uri(chunk), [])}
        order = sorted(mine, key=lambda k: (walked.get(k, len(walked)), k))
        out.append([mine[k] for k in order])
    return out


def with_passages(
    selected: list[SelectedEdge], passages: list[list[Triple]], graph: Subgraph
) -> list[SelectedEdge]:
    """``selected`` and, for each passage none of whose edges is among them, its first
    edge (``passage_edges``) that names something (``select.names_nothing``, by ``graph``'s
    labels), with the reason it is there."""
    chosen = {_key(Triple(s=e.s, p=e.p, o=e.o)) for e in selected}
    out = list(selected)
    for n, edges in enumerate(passages, 1):
        if chosen.intersection(_key(t) for t in edges):
            continue
        # the first that names something, looked for only here (a passage's ~40 edges)
        first = next((t for t in edges if not names_nothing(graph, t)), None)
        if first is None:
            continue
        chosen.add(_key(first))
        reason = REASON.format(n=n, count=len(passages))
        out.append(SelectedEdge(first.s, first.p, first.o, reason))
    return out


def bare_passages(chunks: list[str], passages: list[list[Triple]]) -> list[str]:
    """The chunks of ``chunks`` (nearest first) that gave no edge (``passage_edges``): no
    edge can bring them to the answer, so they are read as text."""
    return [c for c, edges in zip(chunks, passages, strict=True) if not edges]
