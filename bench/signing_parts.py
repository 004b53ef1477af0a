"""Where issue 30's two missed budgets spend their CPU, part by part, in one command, so a
change to either is measured against its parts (docs/performance.md, session 14):

- the 20,000-step verify (``bench_signing``'s trace, on the store settled): the trace
  index (sub-traces, rows, entities), the text read (``text_read.text_digests``) and
  within it pyoxigraph's query and TSV (``_rows``), the entry checks (reading the log,
  signing again, links); then what pyoxigraph's evaluator costs on that graph with no
  work of ours: a scan decoding nothing, the join with the entities' numbers (a seek an
  entity), the objects' texts;
- signing per agent iteration (``bench_signing``'s sessions, deferred, 10 a pass): the
  CPU of each function of the signing path, per iteration, beside the signed − unsigned
  difference of the same runs (plain and signed alternated). The functions are wrapped
  for the run and restored after; an indented line is part of the one above it.

Every figure is process CPU (``time.process_time``: RocksDB's own threads included): the
verify's the median of 3 runs (its wall beside it: the budget is what a user waits, and
the verify reads on two threads), each part's alone and on one thread; the signing parts'
over all rounds.

    python -m bench.signing_parts [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from bench.bench_signing import ITERATIONS, USER, bench_seals, cpu, sessions_run, wall
from bench.long_trace import long_agent_trace
from trustgraph_base.integrity import entries
from trustgraph_base.provenance import uris
from trustgraph_flow.store.backends.embedded import trace_index, unsigned
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.governance import backlog, log, seal, text_read, written
from trustgraph_flow.store.governance.entry_check import EntryReader, entry_check
from trustgraph_flow.store.governance.verify import verify_trace
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.export import roots_of
from trustgraph_flow.store.views.lookup import RETRIEVAL

Target = tuple[Any, str, str]  # (module or class, attribute, label: indented when a part)

SIGNING: list[Target] = [
    (seal.Seal, "after_write", "at each write"),
    (written.Written, "note", "  the batch's text (the writer's record)"),
    (backlog.Backlog, "defer", "  noting ended traces"),
    (unsigned.Unsigned, "hold", "    their sqlite rows"),
    (backlog.Backlog, "sign", "the signing pass"),
    (written.Written, "fingerprints", "  the writer's record"),
    (written, "_counts", "    its completeness count (a query)"),
    (written, "_sorted_lines", "    its lines, sorted"),
    (written, "entity_parts", "    each entity's lines"),
    (written, "fingerprint_parts", "    their hashes"),
    (seal.Seal, "append", "  the log"),
    (entries, "sign_entry", "    entries signed (Ed25519)"),
    (log, "append", "    its RocksDB write"),
    (log, "of_subject", "  reading the log (each root's entries)"),
    (unsigned.Unsigned, "release", "  the sqlite rows released"),
    (trace_index.TraceIndex, "rows", "the trace index's rows (part of both above)"),
]


@contextmanager
def clocked(targets: list[Target]) -> Iterator[dict[str, float]]:
    """Each target's function replaced by one adding its CPU to the label's total."""
    spent: dict[str, float] = {}
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]

    def clock(fn: Callable[..., Any], label: str) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - start

        return timed

    for (owner, name, fn), (_, _, label) in zip(saved, targets, strict=True):
        setattr(owner, name, clock(fn, label))
    try:
        yield spent
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def median_cpu(fn: Callable[[], object], runs: int) -> float:
    return statistics.median(cpu(fn) for _ in range(runs))


def tsv(store: ox.Store, query: str) -> bytes:
    result = store.query(query)
    assert isinstance(result, ox.QuerySolutions)
    return result.serialize(format=ox.QueryResultsFormat.TSV) or b""


def verify_parts(root: Path, sealed: seal.Seal, steps: int, runs: int) -> None:
    stores = Stores(root / "long")
    sealed.forget((USER, "default"))
    try:
        for message in long_agent_trace("long", steps, sub_every=10, user=USER):
            write_batch(stores, [message])
        with stores.lease(USER, "default") as h:
            assert h is not None and isinstance(h.store, ox.Store)
            store = h.store
            top = uris.agent_session_uri("long")
            roots = roots_of(h, top)
            for r in roots:
                sealed.sign(h, r)
            # Settled first (written out and compacted), so no part pays for RocksDB's
            # compaction of the trace just written (its threads count in process CPU).
            store.flush()
            store.optimize()
            walls: list[float] = []
            whole = median_cpu(
                lambda: walls.append(wall(lambda: verify_trace(h, sealed.keys, "long"))), runs
            )
            rows = h.index.rows(roots)
            ents = {r: h.index.entities(r) for r in roots}
            every = sorted({u for us in ents.values() for u in us})
            parts = {
                "the trace index: sub-traces": median_cpu(lambda: roots_of(h, top), runs),
                "the trace index: rows": median_cpu(lambda: h.index.rows(roots), runs),
                "the trace index: entities": median_cpu(
                    lambda: [h.index.entities(r) for r in roots], runs
                ),
            }
            with clocked([(text_read, "_rows", "query")]) as spent:
                read = median_cpu(lambda: text_read.text_digests(store, ents, RETRIEVAL), runs)
            query = spent["query"] / runs
            parts["the text read: pyoxigraph's query and TSV"] = query
            parts["the text read: rows to lines and hashes (Python)"] = read - query

            def entries_checked() -> list[object]:  # as ``verify_trace`` checks them
                reader = EntryReader(h.store)
                reader.prefetch(roots)
                return [entry_check(reader, sealed.keys, r, rows.get(r)) for r in roots]

            parts["the entry checks"] = median_cpu(entries_checked, runs)

            def joined() -> None:
                for k in range(0, len(every), text_read.VALUES_MAX):
                    block = " ".join(
                        f"({ox.NamedNode(u)} {k + n})"
                        for n, u in enumerate(every[k : k + text_read.VALUES_MAX])
                    )
                    where = f"VALUES (?s ?e) {{ {block} }} ?s ?p ?o"
                    tsv(store, f"SELECT ?e WHERE {{ GRAPH {RETRIEVAL} {{ {where} }} }}")

            scan = f"WHERE {{ GRAPH {RETRIEVAL} {{ ?s ?p ?o }} }}"
            quads = tsv(store, f"SELECT ?none {scan}").count(b"\n") - 1  # the header
            floor = {
                "a scan of the graph, nothing decoded": median_cpu(
                    lambda: tsv(store, f"SELECT ?none {scan}"), runs
                ),
                "the scan joined with the entities' numbers": median_cpu(joined, runs),
                "the objects' texts, scanned": median_cpu(
                    lambda: tsv(store, f"SELECT ?o {scan}"), runs
                ),
            }
        print(
            f"{steps}-step trace ({len(roots)} roots, {len(every)} entities, "
            f"{quads} quads): "
            f"verified in {whole:.3f} s CPU, {statistics.median(walls):.3f} s wall (medians of "
            f"{runs}; the text read on two threads beside the entry checks); its parts, each "
            "alone and on one thread:"
        )
        for label, took in parts.items():
            print(f"  {took:6.3f} s  {label}")
        print("pyoxigraph's evaluator on that graph, with no work of ours:")
        for label, took in floor.items():
            print(f"  {took:6.3f} s  {label}")
    finally:
        stores.close()


def signing_parts(root: Path, deferred: seal.Seal, sessions: int, rounds: int) -> None:
    plain, signed = [], []
    with clocked(SIGNING) as spent:
        for r in range(rounds):  # alternated: the shared machine's load drifts
            plain.append(sessions_run(root, None, f"plain{r}", sessions))
            signed.append(sessions_run(root, deferred, f"signed{r}", sessions, flush_every=10))
    per = 1000 / (sessions * ITERATIONS * rounds)  # s in all rounds -> ms an iteration
    diff = (statistics.median(signed) - statistics.median(plain)) * rounds * per
    print(
        f"signing per agent iteration ({sessions} sessions of {ITERATIONS} iterations, "
        f"10 a pass, {rounds} rounds alternated): +{diff:.3f} ms (signed - unsigned, medians; "
        f"unsigned {statistics.median(plain) * rounds * per:.3f} ms); its parts:"
    )
    for _, _, label in SIGNING:
        print(f"  {spent.get(label, 0.0) * per:6.3f} ms  {label}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="Smaller runs (under a minute).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-signing-parts-") as tmp:
        root = Path(tmp)
        sealed, deferred = bench_seals(root)
        signing_parts(root, deferred, 100 if args.quick else 300, 3 if args.quick else 5)
        verify_parts(root, sealed, 2_000 if args.quick else 20_000, 3)


if __name__ == "__main__":
    main()
