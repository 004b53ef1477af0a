"""What the OTLP import's quads cost the store, by whose they are (issue 34 item 5, direction
A of docs/performance.md's session 16): the quads an imported span makes, by predicate and
by class — SPEC.md's, ours that the OTLP → PROV → OTLP round trip reads (``tg:otelSpan``,
the trace id, a model's tokens, a document's rank and score), and the reference's that
docs/conformance.md keeps beside them (labels, ``tg:ToolUse``, ``tg:Answer``, an answer's
``tg:document``, ``tg:ChunkSelection``, ``tg:llmDurationMs``) — then the store's CPU per span
for three mappings, alternated in one run: as mapped, without the reference's, and SPEC's
alone (a bound: the round trip would lose its ids and tokens).

In process, as the store takes them (``otel_import_rate``'s app traces mapped and packed as
the gateway packs them; batches of 40 messages into an embedded store with its deferring
seal): parsing the messages, then writing, indexing and signing them, under the store
process's collector settings (``tune_gc``, ``serving_collector``: without them the cyclic
collector took ~30 µs a span more). Process CPU, so RocksDB's and pyoxigraph's bulk
loader's threads are counted. And the floor under it: the same quads, as mapped, written
by ``bulk_extend`` alone into a bare pyoxigraph store in the same batches (no index, no
signing, no Python pass).

    python -m bench.otel_store_parts [--traces N] [--rounds N]
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pyoxigraph as ox

from bench.bench_agent import load
from bench.bench_signing import bench_seals
from bench.otel_import_rate import app_trace
from bench.summary import summary
from trustgraph_base.gcpause import serving_collector
from trustgraph_base.provenance.namespaces import PROV_NS, RDF, RDF_NS, RDFS, RDFS_NS, TG, TG_NS
from trustgraph_base.rdf.nquads import parse_checked
from trustgraph_base.rdf.terms import IriTerm, Triple
from trustgraph_base.schema import Metadata
from trustgraph_base.schema.core import StoreTriples
from trustgraph_flow.gateway.otlp import packed
from trustgraph_flow.otel.steps import Steps
from trustgraph_flow.otel.to_prov import to_prov
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.service.timers import tune_gc, untune_gc
from trustgraph_flow.store.service.writer import write_batch

SPANS_PER_TRACE = 10
BATCH = 40  # messages a write batch (the store's batches, behind, take more)
ROUND_TRIP = {TG.otelSpan.i, TG.otelTraceId.i, TG.llmModel.i, TG.inToken.i, TG.outToken.i}
ROUND_TRIP |= {RDF.reifies.i, TG.rank.i, TG.score.i}  # a retrieved document's rank and score
REFERENCE = {RDFS.label.i, TG.document.i, TG.llmDurationMs.i}
REFERENCE_TYPES = {TG.ToolUse.i, TG.Answer.i, TG.ChunkSelection.i}


def owner(t: Triple) -> str:
    """Whose a triple of an imported trace is: ``spec``, ``round trip`` or ``reference``."""
    p = t.p.i
    if p == RDF.type.i and isinstance(t.o, IriTerm) and t.o.i in REFERENCE_TYPES:
        return "reference"
    if p in REFERENCE:
        return "reference"
    if p in ROUND_TRIP:
        return "round trip"
    return "spec"


KEEP: dict[str, Callable[[Triple], bool]] = {
    "as mapped": lambda t: True,
    "without the reference's": lambda t: owner(t) != "reference",
    "SPEC's alone (a bound)": lambda t: owner(t) == "spec",
}


def name(iri: str) -> str:
    for ns, prefix in ((TG_NS, "tg:"), (PROV_NS, "prov:"), (RDF_NS, "rdf:"), (RDFS_NS, "rdfs:")):
        if iri.startswith(ns):
            return prefix + iri[len(ns) :]
    return iri


def texts(traces: int, keep: Callable[[Triple], bool], first: int = 0) -> list[str]:
    """The store topic's N-Quads texts of ``traces`` app traces (numbered from ``first``), as
    the gateway packs them (requests of 50 traces), each triple kept if ``keep`` says so."""
    now, steps, out, end = time.time_ns(), Steps(), [], first + traces
    for r in range(first, end, 50):
        spans = [s for n in range(r, min(r + 50, end)) for s in app_trace(n, now)]
        mapped = ((uri, [t for t in ts if keep(t)]) for uri, ts in to_prov(spans, steps))
        out += [text for _, text in packed(mapped)]
    return out


def accounting() -> None:
    """The quads one app trace makes, by class and by predicate."""
    spans = app_trace(0, time.time_ns())
    triples = [t for _, ts in to_prov(spans, Steps()) for t in ts]
    by_class = Counter(owner(t) for t in triples)
    by_pred = Counter((owner(t), name(t.p.i)) for t in triples)
    n = len(spans)
    print(f"quads of one app trace ({n} spans): {len(triples)}, {len(triples) / n:.1f} a span")
    for cls, count in by_class.most_common():
        preds = ", ".join(f"{p} {c}" for (o, p), c in by_pred.most_common() if o == cls)
        print(f"  {cls}: {count} ({count / n:.1f} a span): {preds}")


@contextlib.contextmanager
def store_collector() -> Iterator[None]:
    """The cyclic collector as the store process runs it (``lifespan`` and ``serve``)."""
    before = tune_gc()
    try:
        with serving_collector():
            yield
    finally:
        untune_gc(before)


def rocksdb_floor(traces: int) -> float:
    """Process CPU per span (µs) of ``bulk_extend`` alone: the mapped quads, parsed first, in
    the bench's write batches, into a bare store (RocksDB's and the loader's threads)."""
    given = texts(traces, lambda t: True)
    batches = [
        [q for text in given[i : i + BATCH] for q in parse_checked(text)]
        for i in range(0, len(given), BATCH)
    ]
    with tempfile.TemporaryDirectory(prefix="bench-otel-floor-") as tmp:
        store = ox.Store(str(Path(tmp) / "store"))
        started = time.process_time()
        for quads in batches:
            store.bulk_extend(quads)
        store.flush()
        done = time.process_time()
        del store
    return 1e6 * (done - started) / (traces * SPANS_PER_TRACE)


def store_cpu(traces: int, keep: Callable[[Triple], bool]) -> dict[str, float]:
    """Quads a span, and the store's CPU per span (µs) to parse, and to write, index and sign."""
    given = texts(traces, keep)
    spans = traces * SPANS_PER_TRACE
    with tempfile.TemporaryDirectory(prefix="bench-otel-parts-") as tmp, store_collector():
        root = Path(tmp)
        _, seal = bench_seals(root)
        stores = Stores(root / "store")
        try:
            started = time.process_time()
            msgs = [
                StoreTriples(
                    metadata=Metadata(id=str(uuid.uuid4()), user="bench", collection="otel"),
                    nquads=text,
                )
                for text in given
            ]
            parsed = time.process_time()
            for i in range(0, len(msgs), BATCH):
                write_batch(stores, msgs[i : i + BATCH], seal)
            seal.flush(stores)
            done = time.process_time()
        finally:
            stores.close()
    return {
        "quads": sum(len(m.quads) for m in msgs) / spans,
        "parse": 1e6 * (parsed - started) / spans,
        "write": 1e6 * (done - parsed) / spans,
        "total": 1e6 * (done - started) / spans,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--traces", type=int, default=2_000, help="app traces a run (10 spans each)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="runs of each mapping, alternated")
    args = parser.parse_args()
    accounting()
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in KEEP}
    floors: list[float] = []
    for n in range(1, args.rounds + 1):
        for label, keep in KEEP.items():
            before = load()
            row = store_cpu(args.traces, keep)
            runs[label].append(row)
            print(
                f"round {n}, {label} (load {before}): {row['quads']:.1f} quads a span; store CPU "
                f"per span: parse {row['parse']:.0f} µs, write + index + sign {row['write']:.0f}, "
                f"total {row['total']:.0f}",
                flush=True,
            )
        before = load()
        floor = rocksdb_floor(args.traces)
        floors.append(floor)
        print(f"round {n}, bulk_extend alone (load {before}): {floor:.0f} µs a span", flush=True)
    base = min(r["total"] for r in runs["as mapped"])
    summary(
        "OTLP import, store CPU/span, bulk_extend alone",
        f"{min(floors):.0f} µs",
        "~200 µs (5,000 spans/s on 2 cores)",
        f"as mapped, no index or signing; {min(floors) / base:.2f} of as mapped (best of "
        f"{len(floors)}); load {load()}",
    )
    for label, rows in runs.items():
        best = min(r["total"] for r in rows)
        summary(
            f"OTLP import, store CPU/span, {label}",
            f"{best:.0f} µs",
            "~200 µs (5,000 spans/s on 2 cores)",
            f"{rows[0]['quads']:.1f} quads/span; {best / base:.2f} of as mapped (best of "
            f"{len(rows)}); load {load()}",
        )


if __name__ == "__main__":
    main()
