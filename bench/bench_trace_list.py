"""The trace list at 1,000,000 traces on both store backends: newest 50, goal <= 20 ms.

    python -m bench.bench_trace_list            # 1,000,000 top-level traces (+ 10 % sub-traces)
    python -m bench.bench_trace_list --quick    # 50,000 (< 60 s)
    python -m bench.bench_trace_list --traces 200000 --rate 1000

The index rows are made by the index code itself (``GraphIndex._row_triples`` for the
graph index, the sqlite upsert for the embedded one) from synthetic questions, ``--rate``
per second of trace time (default 100/s: 1M traces over 2.8 hours), every 10th an agent
with a GraphRAG sub-trace that must not be listed. They are bulk-loaded (the writer's
cost is bench_store's subject), then, in the same run:

- the embedded default: the sqlite index (``index.TraceIndex``) — the baseline;
- the graph index (``graph_index.GraphIndex``) on an embedded pyoxigraph store;
- the same graph index on ``oxigraph serve`` over that store directory (loopback HTTP),
  with the cost of one empty HTTP query beside it;
- the plain SPARQL ``ORDER BY DESC(?sort) LIMIT 50`` over the same triples, on both.

Each list is checked to be the same 50 traces as the sqlite index's.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyoxigraph as ox

from bench.summary import summary
from bench.timing import timed
from trustgraph_base.messaging import free_port
from trustgraph_flow.store import index as sqlite_index
from trustgraph_flow.store.graph_index import GraphIndex, LocalSparql
from trustgraph_flow.store.sparql_http import SparqlServer, term

GRAPH = ox.NamedNode("urn:tg:store:bench:default:index")
START = datetime(2026, 11, 1, tzinfo=UTC)


def rows(n: int, rate: float) -> Iterator[dict[str, object]]:
    """``n`` top-level questions and a sub-trace for every 10th (an agent)."""
    for i in range(n):
        when = (START + timedelta(seconds=i / rate)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        agent = i % 10 == 0
        root = f"urn:trustgraph:{'agent' if agent else 'question'}:b{i:07d}"
        row = sqlite_index._blank(root)
        row.update(
            kind="agent" if agent else "graph-rag",
            question=f"question {i}",
            time=when,
            sort_time=sqlite_index.sort_key(when),
            is_question=1,
            complete=1,
        )
        yield row
        if agent:
            sub = sqlite_index._blank(f"urn:trustgraph:question:s{i:07d}")
            sub.update(
                kind="graph-rag",
                question=f"sub {i}",
                time=when,
                sort_time=sqlite_index.sort_key(when),
                is_question=1,
                parent=f"{root}/i1",
                parent_root=root,
            )
            yield sub


def load_sqlite(path: Path, found: Iterable[dict[str, object]]) -> sqlite_index.TraceIndex:
    idx = sqlite_index.TraceIndex(path)
    idx.db.execute("BEGIN")
    idx.db.executemany(sqlite_index._UPSERT, found)
    idx.db.execute("COMMIT")
    return idx


def load_graph(directory: Path, found: Iterable[dict[str, object]]) -> int:
    """Bulk-load the graph index triples of every row into a pyoxigraph store; the quad count."""
    maker = GraphIndex(LocalSparql(ox.Store()), GRAPH)
    text = directory.parent / "index.nq"
    g = term(GRAPH)
    with text.open("w") as out:
        for row in found:
            for s, p, o in maker._row_triples(ox.NamedNode(str(row["id"])), row):
                out.write(f"{term(s)} {term(p)} {term(o)} {g} .\n")
    store = ox.Store(str(directory))
    store.bulk_load(path=str(text), format=ox.RdfFormat.N_QUADS)
    store.flush()
    count = len(store)
    del store
    gc.collect()
    text.unlink()
    return count


ORDER_BY = (
    f"SELECT ?r ?s WHERE {{ GRAPH {term(GRAPH)} {{ ?r <urn:tg:ix:sort> ?s ; <urn:tg:ix:q> ?q "
    "FILTER NOT EXISTS { ?r <urn:tg:ix:parent> ?p } } } ORDER BY DESC(?s) LIMIT 50"
)


def serve(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    binary = shutil.which("oxigraph") or str(Path(__import__("sys").executable).parent / "oxigraph")
    proc = subprocess.Popen(
        [binary, "serve", "--location", str(directory), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"{url}/query?query=ASK%7B%7D", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("oxigraph serve did not start")


def embedded_graph(
    directory: Path, expect: list[str], order_by: bool
) -> tuple[bool, float, float, float]:
    """The graph index on an embedded pyoxigraph store: (same list, p50, p95, ORDER BY ms)."""
    store = ox.Store(str(directory))
    local = GraphIndex(LocalSparql(store), GRAPH)
    same = [r.id for r in local.newest(50)] == expect
    e50, e95 = timed(lambda: local.newest(50), 100)
    print(
        f"  embedded pyoxigraph, graph index: newest 50 p50 {e50:.2f} ms, p95 {e95:.2f} ms"
        f" (same 50 as sqlite: {same})"
    )
    eo = float("nan")
    if order_by:
        eo, _ = timed(lambda: list(store.query(ORDER_BY)), 1)  # type: ignore[arg-type]
        print(f"  embedded pyoxigraph, SPARQL ORDER BY ... LIMIT 50: {eo:.0f} ms")
    return same, e50, e95, eo


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_trace_list")
    parser.add_argument("--quick", action="store_true", help="50,000 traces (< 60 s)")
    parser.add_argument("--traces", type=int, default=None, help="top-level traces (1,000,000)")
    parser.add_argument("--rate", type=float, default=100.0, help="traces per second of trace time")
    parser.add_argument(
        "--skip-order-by",
        action="store_true",
        help="leave out the plain SPARQL ORDER BY baseline (minutes at 1M)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        help="keep the loaded indexes in this folder, and reuse them when it holds them "
        "(the 1M load takes minutes; the same --traces/--rate are assumed)",
    )
    args = parser.parse_args()
    n = args.traces or (50_000 if args.quick else 1_000_000)
    tmp = args.data or Path(tempfile.mkdtemp(prefix="bench-trace-list-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        run(n, args.rate, tmp, order_by=not args.skip_order_by)
    finally:
        if args.data is None:
            shutil.rmtree(tmp, ignore_errors=True)


def run(n: int, rate: float, tmp: Path, *, order_by: bool = True) -> None:
    print(f"Trace list: {n:,} top-level traces (+{n // 10:,} sub-traces), {rate:g} per second")
    t = time.perf_counter()
    reuse = (tmp / "traces.sqlite").exists() and (tmp / "oxigraph").exists()
    if reuse:
        base = sqlite_index.TraceIndex(tmp / "traces.sqlite")
        print(f"  reusing the indexes loaded in {tmp}")
    else:
        base = load_sqlite(tmp / "traces.sqlite", rows(n, rate))
        print(f"  sqlite index loaded in {time.perf_counter() - t:.1f} s")
    expect = [r.id for r in base.newest(50)]
    s50, s95 = timed(lambda: base.newest(50), 200)
    print(f"  embedded, sqlite index (baseline): newest 50 p50 {s50:.2f} ms, p95 {s95:.2f} ms")
    base.close()

    if not reuse:
        t = time.perf_counter()
        quads = load_graph(tmp / "oxigraph", rows(n, rate))
        print(f"  graph index: {quads:,} quads bulk-loaded in {time.perf_counter() - t:.1f} s")

    same, e50, e95, eo = embedded_graph(tmp / "oxigraph", expect, order_by)
    gc.collect()  # the embedded store is closed: the server opens its directory

    proc, url = serve(tmp / "oxigraph")
    try:
        server = SparqlServer(url, timeout=600)
        remote = GraphIndex(server, GRAPH)
        rsame = [r.id for r in remote.newest(50)] == expect
        r50, r95 = timed(lambda: remote.newest(50), 100)
        h50, _ = timed(lambda: server.ask("ASK {}"), 200)
        print(
            f"  oxigraph serve, graph index: newest 50 p50 {r50:.2f} ms, p95 {r95:.2f} ms"
            f" (same 50 as sqlite: {rsame}); one empty HTTP query p50 {h50:.2f} ms"
        )
        ro = float("nan")
        if order_by:
            ro, _ = timed(lambda: server.rows(ORDER_BY), 1)
            print(f"  oxigraph serve, SPARQL ORDER BY ... LIMIT 50: {ro:.0f} ms")
        server.close()
    finally:
        proc.kill()
        proc.wait()
    ok = same and rsame
    summary(
        f"list newest 50 of {n:,} traces, graph index, embedded",
        f"p50 {e50:.2f} ms, p95 {e95:.2f} ms",
        "<= 20 ms",
        f"sqlite index p50 {s50:.2f} ms; SPARQL ORDER BY {eo:.0f} ms (same run); same 50: {ok}",
    )
    summary(
        f"list newest 50 of {n:,} traces, graph index, oxigraph serve",
        f"p50 {r50:.2f} ms, p95 {r95:.2f} ms",
        "<= 20 ms",
        f"empty HTTP query {h50:.2f} ms; SPARQL ORDER BY {ro:.0f} ms (same run)",
    )
    if not ok:
        raise SystemExit("a graph-index list differs from the sqlite index's")


if __name__ == "__main__":
    main()
