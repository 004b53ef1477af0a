"""Vector index: ingest and search at 100,000 chunks × 384 dimensions, Milvus Lite against the old index.

    python -m bench.bench_vectors            # 100,000 chunks (old index capped in time)
    python -m bench.bench_vectors --quick    # 20,000 chunks

Both sides get the same items in upserts of ``--batch`` items and the same queries; only
the store calls are timed (building the items is not). Milvus Lite runs through the
product's ``MilvusVectors`` (count + search per query, as the service answers). The
baseline is the hand-written index this replaced, taken from git history into a temporary
folder (it is not part of the product any more): it rewrites its whole file on every
change, so its ingest grows quadratically; past ``--old-budget`` seconds it is stopped and
its total projected from a fit of its cumulative time (a·n + b·n²).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from bench.summary import summary
from trustgraph_base.schema import VectorItem
from trustgraph_flow.vectors.milvus import MilvusVectors

DIM = 384
ROOT = Path(__file__).resolve().parent.parent
OLD_PATH = "trustgraph_flow/vectors/index.py"


def old_index_module(folder: Path) -> ModuleType:
    """The hand-written index as it was in the last commit that had it."""
    gone = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%H", "--", OLD_PATH],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{gone}^:{OLD_PATH}"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    path = folder / "old_index.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_index", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def batches(n: int, size: int, seed: int = 7) -> Iterator[list[VectorItem]]:
    rng = np.random.default_rng(seed)
    text = "A chunk of a document about rivers, capitals and chemistry. " * 4
    for start in range(0, n, size):
        count = min(size, n - start)
        vecs = rng.standard_normal((count, DIM), dtype=np.float32).tolist()
        yield [VectorItem(id=f"urn:chunk:{start + i}", vector=v, text=text,
                          document=f"urn:doc:{(start + i) // 10}") for i, v in enumerate(vecs)]  # fmt: skip


def queries(count: int) -> list[list[float]]:
    rng = np.random.default_rng(11)
    out: list[list[float]] = rng.standard_normal((count, DIM), dtype=np.float32).tolist()
    return out


def ms(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values) * 1000, values[int(0.95 * (len(values) - 1))] * 1000


def ingest(
    upsert: Any, n: int, size: int, budget: float
) -> tuple[int, float, list[tuple[int, float]]]:
    """Upsert n items in batches; returns (items done, seconds, [(items, cumulative s)])."""
    done, spent, marks = 0, 0.0, []
    step = max(n // 10, size)
    for batch in batches(n, size):
        t = time.perf_counter()
        upsert(batch)
        spent += time.perf_counter() - t
        done += len(batch)
        if done % step == 0 or done == n:
            marks.append((done, spent))
            print(f"    {done:>7,} items  {spent:8.1f} s", flush=True)
        if spent > budget:
            break
    return done, spent, marks


def project(marks: list[tuple[int, float]], n: int) -> float:
    """Total seconds for n items from a fit t = a·k + b·k² of the cumulative times."""
    k = np.array([m[0] for m in marks], dtype=float)
    t = np.array([m[1] for m in marks], dtype=float)
    (a, b), *_ = np.linalg.lstsq(np.stack([k, k * k], axis=1), t, rcond=None)
    return float(a * n + b * n * n)


def search_times(search: Any, qs: list[list[float]]) -> tuple[float, float]:
    search(qs[0])  # warm
    times = []
    for q in qs:
        t = time.perf_counter()
        search(q)
        times.append(time.perf_counter() - t)
    return ms(times)


def single_upserts(upsert: Any, count: int) -> list[float]:
    """Seconds for each of ``count`` upserts of one new item (document ``urn:doc:extra``)."""
    times = []
    for i, batch in enumerate(batches(count, 1, seed=99)):
        one = [
            VectorItem(
                id=f"urn:extra:{i}",
                vector=batch[0].vector,
                text=batch[0].text,
                document="urn:doc:extra",
            )
        ]
        t = time.perf_counter()
        upsert(one)
        times.append(time.perf_counter() - t)
    return times


def bench_milvus(tmp: Path, n: int, size: int, qs: list[list[float]]) -> dict[str, Any]:
    store = MilvusVectors.open("", tmp / "milvus")
    try:
        done, spent, _ = ingest(lambda b: store.upsert("u", "c", "chunk", b), n, size, float("inf"))
        p50, p95 = search_times(lambda q: store.query("u", "c", "chunk", q, 10), qs)
        single = single_upserts(lambda one: store.upsert("u", "c", "chunk", one), 200)
        t = time.perf_counter()
        removed = store.delete_document("u", "c", "chunk", "urn:doc:5")
        delete = time.perf_counter() - t
        assert removed == 10
    finally:
        store.close()
    t = time.perf_counter()
    store = MilvusVectors.open("", tmp / "milvus")
    store.query("u", "c", "chunk", qs[0], 10)
    reopen = time.perf_counter() - t
    store.close()
    return {"items": done, "ingest": spent, "p50": p50, "p95": p95, "single": ms(single),
            "delete": delete, "reopen": reopen}  # fmt: skip


def bench_old(tmp: Path, n: int, size: int, qs: list[list[float]], budget: float) -> dict[str, Any]:
    old = old_index_module(tmp)
    index = old.VectorIndex(tmp / "old" / "chunk.vec")

    def upsert(batch: list[VectorItem]) -> None:
        index.upsert(batch)
        index.save()

    done, spent, marks = ingest(upsert, n, size, budget)
    projected = spent if done == n else project(marks, n)
    if done < n:  # the rest in one upsert and one save, to search the full index
        for batch in batches(n, 10_000):
            if int(batch[-1].id.rsplit(":", 1)[1]) >= done:
                index.upsert([it for it in batch if int(it.id.rsplit(":", 1)[1]) >= done])
        index.save()
    assert len(index) == n
    p50, p95 = search_times(lambda q: index.query(q, 10), qs)
    single = single_upserts(upsert, 20)
    t = time.perf_counter()
    index.delete_document("urn:doc:5")
    index.save()
    delete = time.perf_counter() - t
    t = time.perf_counter()
    again = old.VectorIndex(index.path)
    again.query(qs[0], 10)
    reopen = time.perf_counter() - t
    return {"items": done, "ingest": spent, "projected": projected, "p50": p50, "p95": p95,
            "single": ms(single), "delete": delete, "reopen": reopen}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 chunks")
    parser.add_argument(
        "--chunks", type=int, help="how many chunks (default 100,000; quick 20,000)"
    )
    parser.add_argument("--batch", type=int, default=100, help="items per upsert (default 100)")
    parser.add_argument(
        "--old-budget", type=float, help="seconds of old-index ingest before projecting"
    )
    args = parser.parse_args()
    n = args.chunks or (20_000 if args.quick else 100_000)
    budget = args.old_budget or (60.0 if args.quick else 300.0)
    qs = queries(200)
    with tempfile.TemporaryDirectory(prefix="bench-vectors-") as name:
        tmp = Path(name)
        print(f"Milvus Lite: {n:,} chunks × {DIM}, upserts of {args.batch}", flush=True)
        new = bench_milvus(tmp, n, args.batch, qs)
        print(
            f"old index (baseline, from git history): same items, budget {budget:.0f} s", flush=True
        )
        old = bench_old(tmp, n, args.batch, qs, budget)
    print()
    print(f"{'':34} {'Milvus Lite':>14} {'old index':>14}")
    old_ingest = f"{old['ingest']:.1f}" if old["items"] == n else f"~{old['projected']:.0f} (proj.)"
    rows = [
        (f"ingest {n:,} chunks, s", f"{new['ingest']:.1f}", old_ingest),
        ("  chunks/s", f"{n / new['ingest']:,.0f}", f"{n / old['projected']:,.0f}"),
        (f"  old index measured: {old['items']:,} chunks in s", "", f"{old['ingest']:.1f}"),
        (
            f"one 1-item upsert at {n:,}, p50 ms",
            f"{new['single'][0]:.1f}",
            f"{old['single'][0]:.0f}",
        ),
        (f"search top-10 at {n:,}, p50 ms", f"{new['p50']:.2f}", f"{old['p50']:.2f}"),
        ("  p95 ms", f"{new['p95']:.2f}", f"{old['p95']:.2f}"),
        (
            "delete-document (10 chunks), ms",
            f"{new['delete'] * 1000:.1f}",
            f"{old['delete'] * 1000:.0f}",
        ),
        ("reopen + first search, s", f"{new['reopen']:.2f}", f"{old['reopen']:.2f}"),
    ]
    for label, a, b in rows:
        print(f"{label:34} {a:>14} {b:>14}")
    summary(f"vector ingest, {n:,} chunks × 384 (upserts of {args.batch})",
            f"{new['ingest']:.0f} s (Milvus Lite)", "linear in the index size",
            f"old index {old_ingest} s")  # fmt: skip
    summary(f"vector search top-10 at {n:,} chunks (count + search)",
            f"p50 {new['p50']:.1f} ms, p95 {new['p95']:.1f} ms", "small beside an LLM call",
            f"old index (numpy scan) p50 {old['p50']:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
