"""The store's CPU per imported span against what the store already holds (issue 34 item 5):
the same import into a store that holds 0, 50,000 and 200,000 spans of earlier imports.

In process, as the store takes an import behind the gateway (``otel_import_rate``'s app
traces mapped and packed as the gateway packs them, write batches of 150 messages, an
embedded store with its deferring seal, the store process's collector settings): for each
size a fresh store is filled through the same intake (untimed), left until RocksDB's
compaction has gone quiet, then ``--spans`` more are written and signed. Printed per size:
the writer thread's CPU per span (parsing, the write, the trace index, signing), the
process's (RocksDB's and pyoxigraph's bulk loader's threads too) when the last batch is
signed, and once quiet again (the compaction the import set off), each against the empty
store's in the same run. Each size is run ``--rounds`` times, sizes alternated.

    python -m bench.otel_store_growth [--sizes 0,50000,200000] [--spans 20000] [--rounds 1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path

from bench.bench_agent import load
from bench.bench_signing import bench_seals
from bench.otel_store_parts import SPANS_PER_TRACE, store_collector, texts
from bench.summary import summary
from trustgraph_base.schema import Metadata
from trustgraph_base.schema.core import StoreTriples
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.service.writer import write_batch

BATCH = 150  # messages a write batch, as the store's grow to behind the gateway (session 18)
CHUNK = 1_000  # traces made into messages at a time (the texts of 20,000 take ~600 MB)


def messages(first: int, traces: int) -> list[StoreTriples]:
    """The store topic's messages of app traces ``first`` … ``first + traces - 1``."""
    return [
        StoreTriples(
            metadata=Metadata(id=str(uuid.uuid4()), user="bench", collection="otel"), nquads=text
        )
        for text in texts(traces, lambda t: True, first)
    ]


def intake(stores: Stores, seal: Seal, msgs: list[StoreTriples]) -> None:
    for i in range(0, len(msgs), BATCH):
        write_batch(stores, msgs[i : i + BATCH], seal)
    seal.flush(stores)


def quiet(longest: float = 60.0) -> float:
    """This process's CPU seconds once it has gone quiet (under 20 ms in half a second: RocksDB's
    compaction done), at most ``longest`` seconds from now."""
    last, since = time.process_time(), time.perf_counter()
    while time.perf_counter() - since < longest:
        time.sleep(0.5)
        now = time.process_time()
        if now - last < 0.02:
            return now
        last = now
    return last


def run(held: int, spans: int) -> dict[str, float]:
    """µs of CPU per span of ``spans`` imported into a store holding ``held`` spans."""
    before, traces = held // SPANS_PER_TRACE, spans // SPANS_PER_TRACE
    with tempfile.TemporaryDirectory(prefix="bench-otel-growth-") as tmp, store_collector():
        root = Path(tmp)
        _, seal = bench_seals(root)
        stores = Stores(root / "store")
        try:
            for first in range(0, before, CHUNK):
                intake(stores, seal, messages(first, min(CHUNK, before - first)))
            quiet()
            thread, process = time.thread_time(), time.process_time()
            for first in range(before, before + traces, CHUNK):
                intake(stores, seal, messages(first, min(CHUNK, before + traces - first)))
            written = time.thread_time(), time.process_time()
            settled = quiet()
        finally:
            stores.close()
    return {
        "thread": 1e6 * (written[0] - thread) / spans,
        "process": 1e6 * (written[1] - process) / spans,
        "quiet": 1e6 * (settled - process) / spans,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,50000,200000", help="spans held before, listed")
    parser.add_argument("--spans", type=int, default=20_000, help="spans imported and timed")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each size, alternated")
    parser.add_argument("--quick", action="store_true", help="sizes 0 and 50,000, 10,000 timed")
    args = parser.parse_args()
    sizes = [0, 50_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    spans = 10_000 if args.quick else args.spans
    rows: dict[int, list[dict[str, float]]] = {size: [] for size in sizes}
    for n in range(1, args.rounds + 1):
        for size in sizes if n % 2 else reversed(sizes):
            at = load()
            rows[size].append(row := run(size, spans))
            print(
                f"round {n}, {size:,} spans held (load {at}): {spans:,} spans imported, CPU per "
                f"span: writer thread {row['thread']:.0f} µs, process {row['process']:.0f}, "
                f"once quiet {row['quiet']:.0f}",
                flush=True,
            )

    def best(size: int, k: str) -> float:
        return min(r[k] for r in rows[size])

    base = sizes[0]
    for size in sizes:
        ratio = "" if size == base else (
            f"; ×{best(size, 'thread') / best(base, 'thread'):.2f} thread, "
            f"×{best(size, 'quiet') / best(base, 'quiet'):.2f} process of {base:,} held"
        )  # fmt: skip
        summary(
            f"OTLP import, store CPU/span, {size:,} spans held",
            f"{best(size, 'thread'):.0f} µs thread, {best(size, 'quiet'):.0f} µs process",
            "~200 µs (5,000 spans/s on 2 cores)",
            f"{spans:,} spans imported in process, best of {len(rows[size])}{ratio}; load {load()}",
        )


if __name__ == "__main__":
    main()
