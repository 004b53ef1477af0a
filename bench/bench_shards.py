"""Sharded store benchmark: agent traces written into one ``oxigraph serve`` and into three
shards, the servers' CPU per triple and the store's own (issue 35's sizing).

    python -m bench.bench_shards [--quick] [--sessions N] [--threads T] [--rounds R]

Each run starts the servers on fresh directories (``--location``: RocksDB, as deployed),
then ``--threads`` writer threads (store replicas, in one process) write agent sessions —
the messages ``bench_trace_ingest`` publishes: a question, each iteration's analysis and
Observation, the conclusion — in batches of 10 sessions spread over 30 collections, with
the store's own writer (``write_batch``: data, trace index; no signing). No broker: this
is the store's side of the write path, processor and servers. Printed per run: traces/s
and triples/s, CPU per triple of each server (from ``/proc``: every thread, compactions
included) and of this process (the store's work: decode excluded, every request built and
parsed), how the collections fell on the shards, and that every quad written is there.
One and three shards alternate ``--rounds`` times, so both see the same machine.
"""

from __future__ import annotations

import argparse
import queue
import resource
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.bench_store import cpu_seconds
from bench.bench_trace_ingest import session
from bench.bench_trace_list import serve
from trustgraph_base.schema import Metadata
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.wire import decode
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.backends.sharded.stores import ShardedStores
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.sparql.client import SparqlServer

COLLECTIONS = 30
PER_BATCH = 10  # sessions per write_batch (the store's batches hold several sessions' messages)


def batches(sessions: int) -> list[list[StoreTriples]]:
    """The sessions' messages as the store decodes them, PER_BATCH sessions a batch."""
    out: list[list[StoreTriples]] = []
    for start in range(0, sessions, PER_BATCH):
        batch = []
        for n in range(start, min(start + PER_BATCH, sessions)):
            for group in session(f"s{n}", 3):
                for raw in group:
                    m = decode(StoreTriples, raw)
                    meta = Metadata(
                        id=m.metadata.id, user="bench", collection=f"c{n % COLLECTIONS}"
                    )
                    batch.append(m.model_copy(update={"metadata": meta}))
        out.append(batch)
    return out


@dataclass
class Run:
    shards: int
    seconds: float
    triples: int
    sessions: int
    server_cpu: list[float]
    own_cpu: float
    placed: dict[str, int]
    present: int

    def show(self) -> None:
        per = [c / self.triples * 1e6 for c in self.server_cpu]
        print(
            f"  {self.shards} shard(s): {self.sessions / self.seconds:,.0f} traces/s, "
            f"{self.triples / self.seconds:,.0f} triples/s; servers' CPU "
            f"{sum(per):.1f} µs/triple ({' + '.join(f'{p:.1f}' for p in per)}), "
            f"store's {self.own_cpu / self.triples * 1e6:.1f} µs/triple; collections per shard "
            f"{self.placed}; {self.present:,} of {self.triples:,} quads present"
        )


def own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(shards: int, work: list[list[StoreTriples]], threads: int, tmp: Path) -> Run:
    procs, urls = [], []
    for n in range(shards):
        proc, url = serve(tmp / f"shard{shards}-{n}-{time.monotonic_ns()}")
        procs.append(proc)
        urls.append(url)
    backend: Backend
    try:
        if shards == 1:
            backend = RemoteStores(SparqlServer(urls[0]))
        else:
            backend = open_sharded(" ".join(f"s{n}={u}" for n, u in enumerate(urls)), 60)
        todo: queue.Queue[list[StoreTriples]] = queue.Queue()
        for b in work:
            todo.put(b)

        def writer() -> None:
            while True:
                try:
                    batch = todo.get_nowait()
                except queue.Empty:
                    return
                report = write_batch(backend, batch)
                assert not report.unavailable and not report.retry and not report.rejected

        cpu0 = [cpu_seconds(p.pid) for p in procs]
        mine0, t0 = own_cpu(), time.perf_counter()
        pool = [threading.Thread(target=writer) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        seconds = time.perf_counter() - t0
        own = own_cpu() - mine0
        server = [cpu_seconds(p.pid) - c for p, c in zip(procs, cpu0, strict=True)]
        placed: dict[str, int] = {}
        if isinstance(backend, ShardedStores):
            for c in range(COLLECTIONS):
                row = backend.row("bench", f"c{c}")
                assert row is not None
                placed[row.on] = placed.get(row.on, 0) + 1
        present = 0
        for url in urls:
            server_client = SparqlServer(url)
            rows = server_client.rows(
                "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } "
                "FILTER(STRENDS(STR(?g), ':g:urn:graph:retrieval')) }"
            )
            present += int(rows[0]["n"].value)
            server_client.close()
        backend.close()
        triples = sum(len(m.quads) for b in work for m in b)
        return Run(shards, seconds, triples, len(work) * PER_BATCH, server, own, placed, present)
    finally:
        for p in procs:
            p.kill()
            p.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sessions (< 60 s)")
    parser.add_argument(
        "--sessions", type=int, help="agent sessions per run (default 2,000; --quick 500)"
    )
    parser.add_argument("--threads", type=int, default=3, help="writer threads (store replicas)")
    parser.add_argument(
        "--rounds", type=int, default=2, help="one- and three-shard runs, alternated"
    )
    args = parser.parse_args()
    sessions = args.sessions or (500 if args.quick else 2000)
    sessions -= sessions % PER_BATCH
    work = batches(sessions)
    print(
        f"{sessions} agent sessions (3 iterations), {sum(len(b) for b in work)} messages, "
        f"{sum(len(m.quads) for b in work for m in b):,} triples; {args.threads} writer threads"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            print(f"round {r + 1}")
            for shards in (1, 3):
                run(shards, work, args.threads, Path(tmp)).show()


if __name__ == "__main__":
    main()
