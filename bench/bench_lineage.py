"""Reverse-lineage benchmark: source-usage server time at 100,000 traces.

    python -m bench.bench_lineage [--quick]

A corpus of 20 documents x 10 pages x 5 chunks, each chunk's subgraph holding 5 edges
(1,000 chunks, 5,000 edges), then N top-level traces loaded through the writer code path
(wire decode + ``write_batch``, as the store processor runs it; no Pulsar): 70 % GraphRAG
selecting 3 edges, 20 % DocumentRAG selecting 5 chunks, 10 % agents whose GraphRAG
sub-trace selects 2 edges. Choices are seeded-random, so a document is used by about
N x 0.7 of its share of traces. Then the source-usage operation (the function the
service calls, server side) is timed for an edge, a chunk, a page and a document, and
the document hierarchy with its "used by" counts.
"""

from __future__ import annotations

import argparse
import functools
import random
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

from bench.loading import stamp, write_decoded
from bench.summary import summary
from bench.timing import timed
from trustgraph_base.provenance import (
    SelectedEdge,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
    chunk_triples,
    docrag_exploration_triples,
    docrag_question_triples,
    document_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    page_triples,
    subgraph_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.rdf.terms import IriTerm, Triple, iri
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.wire import encode
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import hierarchy, lineage

USER = "bench"
DOCS, PAGES, CHUNKS, EDGES = 20, 10, 5, 5


def doc_uri(d: int) -> str:
    return f"urn:trustgraph:doc:bench{d}"


def chunk_of(n: int) -> str:
    d, rest = divmod(n, PAGES * CHUNKS)
    p, c = divmod(rest, CHUNKS)
    return uris.chunk_uri(uris.page_uri(doc_uri(d), p + 1), c)


def edge_of(n: int) -> tuple[str, str, str]:
    return (uris.entity_uri(f"e{n}"), uris.relation_uri(f"r{n % 50}"), uris.entity_uri(f"f{n}"))


def iri_edge(n: int) -> tuple[IriTerm, IriTerm, IriTerm]:
    s, p, o = edge_of(n)
    return iri(s), iri(p), iri(o)


def corpus() -> list[Triples]:
    out = []
    for d in range(DOCS):
        doc = doc_uri(d)
        ts = document_triples(doc, f"bench {d}", "application/pdf")
        for p in range(PAGES):
            page = uris.page_uri(doc, p + 1)
            ts += page_triples(page, doc, p + 1, uris.activity_uri(page, "decode"))
            for c in range(CHUNKS):
                n = (d * PAGES + p) * CHUNKS + c
                chunk = uris.chunk_uri(page, c)
                ts += chunk_triples(chunk, page, c, c * 100, 100, uris.activity_uri(chunk, "chunk"))
                edges = [iri_edge(n * EDGES + k) for k in range(EDGES)]
                ts += subgraph_triples(
                    uris.subgraph_uri(chunk), chunk, edges, uris.activity_uri(chunk, "extract")
                )
        out.append(Triples(metadata=Metadata(id=doc, user=USER), triples=ts))
    return out


def graph_rag(sid: str, i: int, edges: list[int], parent: str | None = None) -> list[Triple]:
    q = uris.graph_rag_question_uri(sid)
    ts = graph_rag_question_triples(q, f"question {sid}", stamp(i), parent)
    chosen = [SelectedEdge(*iri_edge(e), "bench") for e in edges]
    ts += graph_rag_focus_triples(uris.focus_uri(q), uris.exploration_uri(q), q, chosen)
    return ts + synthesis_triples(uris.synthesis_uri(q), uris.focus_uri(q), "answer")


def trace(i: int, rng: random.Random) -> list[Triple]:
    n_edges, n_chunks = DOCS * PAGES * CHUNKS * EDGES, DOCS * PAGES * CHUNKS
    kind = i % 10
    if kind < 7:
        return graph_rag(f"g{i}", i, rng.sample(range(n_edges), 3))
    if kind < 9:
        q = uris.docrag_question_uri(f"d{i}")
        ts = docrag_question_triples(q, f"question {i}", stamp(i))
        ts += docrag_exploration_triples(
            uris.exploration_uri(q), q, [chunk_of(c) for c in rng.sample(range(n_chunks), 5)]
        )
        return ts + synthesis_triples(uris.synthesis_uri(q), uris.exploration_uri(q), "answer")
    a = uris.agent_session_uri(f"a{i}")
    i1 = uris.agent_iteration_uri(a, 1)
    ts = agent_session_triples(a, f"agent question {i}", stamp(i))
    ts += agent_iteration_triples(i1, a, "think", "knowledge-query", {"q": str(i)}, "seen")
    ts += graph_rag(f"s{i}", i, rng.sample(range(n_edges), 2), parent=i1)
    return ts + agent_final_triples(uris.agent_final_uri(a), i1, "answer")


def load(stores: Stores, n_traces: int) -> float:
    """Write the corpus and the traces through wire decode + write_batch; seconds taken."""
    rng = random.Random(15)
    started = time.perf_counter()
    write_batch(stores, corpus())
    write_decoded(
        stores,
        (
            encode(Triples(metadata=Metadata(id=str(i), user=USER), triples=trace(i, rng)))
            for i in range(n_traces)
        ),
    )
    return time.perf_counter() - started


def run(n_traces: int) -> None:
    stores = Stores(Path(tempfile.mkdtemp(prefix="bench-lineage-")))
    seconds = load(stores, n_traces)
    handle = stores.get(USER, "default")
    assert handle is not None
    assert isinstance(
        handle.store, ox.Store
    )  # Stores (the embedded backend) opens pyoxigraph stores
    print(f"  loaded {n_traces:,} traces ({len(handle.store):,} quads) in {seconds:.1f}s")
    s, p, o = edge_of(1234)
    page = uris.page_uri(doc_uri(3), 4)
    cases = [
        ("edge", f"<{s}> <{p}> <{o}>"),
        ("chunk", chunk_of(617)),
        ("page", page),
        ("document", doc_uri(7)),
    ]
    for kind, source in cases:
        users = len(lineage.source_usage(handle, source, 10_000).traces)
        p50, p95 = timed(functools.partial(lineage.source_usage, handle, source, 50), 50)
        print(
            f"  source-usage of a {kind} (newest 50 of {users:,} answers): p50 {p50:.2f} ms, p95 {p95:.2f} ms"
        )
        summary(
            f"source-usage of a {kind} at {n_traces:,} traces (server)",
            f"p50 {p50:.2f} ms, p95 {p95:.2f} ms",
            "<= 50 ms",
            f"newest 50 of {users:,} answers using it",
        )
    view = hierarchy.document_view(handle.store, doc_uri(7))
    assert view is not None
    h50, h95 = timed(lambda: lineage.with_usage(handle, view), 10)
    print(
        f"  'used by' counts for a document's 10 pages and 50 chunks: p50 {h50:.1f} ms, p95 {h95:.1f} ms"
    )
    summary(
        f"document hierarchy 'used by' counts at {n_traces:,} traces",
        f"p50 {h50:.1f} ms",
        "-",
        "10 pages, 50 chunks, 250 edges",
    )
    stores.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_lineage")
    parser.add_argument("--quick", action="store_true", help="10,000 traces instead of 100,000")
    args = parser.parse_args()
    n = 10_000 if args.quick else 100_000
    print(
        f"Reverse lineage: {n:,} traces over {DOCS} documents, {DOCS * PAGES * CHUNKS} chunks, "
        f"{DOCS * PAGES * CHUNKS * EDGES} edges"
    )
    run(n)


if __name__ == "__main__":
    main()
