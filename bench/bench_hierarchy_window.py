"""A large document's hierarchy, whole and a window of its chunks (embedded store).

    python -m bench.bench_hierarchy_window [--quick]

A plain-text document of 25,000 chunks (5,000 with --quick), every fourth with a subgraph of
one edge (the shape of session 20's 20 MB text: 25,255 chunks, 6,534 edges), written
through ``write_batch`` as the store processor writes. Then the store's side of
``document-hierarchy`` (the view, its "used by" counts and the encoded reply) is timed for
the whole document (refused at the count over 10,000 chunks) and for 200-chunk windows at its
start and its end, with each reply's size.
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

from bench.summary import summary
from bench.timing import timed
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance import chunk_triples, document_triples, subgraph_triples, uris
from trustgraph_base.rdf.terms import iri
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.schema.explain import ExplainResponse
from trustgraph_base.wire import encode
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import hierarchy, lineage

USER = "bench"
DOC = "urn:trustgraph:doc:bench-large"
WINDOW = 200


def document(chunks: int) -> list[Triples]:
    """The document in messages of 1,000 chunks."""
    out = [
        Triples(
            metadata=Metadata(id=DOC, user=USER),
            triples=document_triples(DOC, "large", "text/plain"),
        )
    ]
    for start in range(0, chunks, 1000):
        ts = []
        for c in range(start, min(chunks, start + 1000)):
            chunk = uris.chunk_uri(DOC, c)
            ts += chunk_triples(chunk, DOC, c, c * 800, 800, uris.activity_uri(chunk, "chunk"))
            if c % 4 == 0:
                edge = (
                    iri(uris.entity_uri(f"e{c}")),
                    iri(uris.relation_uri(f"r{c % 40}")),
                    iri(uris.entity_uri(f"f{c}")),
                )
                ts += subgraph_triples(
                    uris.subgraph_uri(chunk), chunk, [edge], uris.activity_uri(chunk, "extract")
                )
        out.append(Triples(metadata=Metadata(id=f"{DOC}-{start}", user=USER), triples=ts))
    return out


def reply(handle: Handle, offset: int, limit: int | None) -> int:
    """The store's work for one document-hierarchy request; the reply's size in bytes (0: the
    store refused it at the count, a whole document of more chunks than a window holds)."""
    try:
        window = hierarchy.document_window(handle.store, DOC, offset, limit)
    except ServiceError as exc:
        assert exc.type == ErrorType.RESULT_TOO_LARGE, exc
        return 0
    assert window is not None
    doc = lineage.with_usage(handle, window.view, window.page_chunks)
    return len(encode(ExplainResponse(document=doc, chunk_total=window.total)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 chunks, fewer runs")
    args = parser.parse_args()
    chunks, runs = (5_000, 3) if args.quick else (25_000, 5)
    stores = Stores(Path(tempfile.mkdtemp(prefix="bench-hierarchy-")))
    started = time.perf_counter()
    write_batch(stores, document(chunks))
    handle = stores.get(USER, "default")
    assert handle is not None and isinstance(handle.store, ox.Store)  # the embedded backend
    print(
        f"  {chunks:,} chunks, {len(handle.store):,} quads written in {time.perf_counter() - started:.1f}s"
    )
    cases = [("whole", 0, None), ("first 200", 0, WINDOW), ("last 200", chunks - WINDOW, WINDOW)]
    for name, offset, limit in cases:
        size = reply(handle, offset, limit)
        p50, p95 = timed(functools.partial(reply, handle, offset, limit), runs)
        said = f"reply {size / 1e6:.2f} MB" if size else "refused at the count"
        print(f"  {name}: {said}, p50 {p50:.0f} ms, p95 {p95:.0f} ms")
        summary(
            f"document-hierarchy of {chunks:,} chunks, {name} (embedded, store side)",
            f"p50 {p50:.0f} ms, {said}",
            "a window: well under the whole",
            f"{runs} runs",
        )


if __name__ == "__main__":
    main()
