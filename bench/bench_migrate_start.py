"""Migration at start: what a store already migrated costs each time it starts.

    python -m bench.bench_migrate_start [--quick] [--traces N] [--documents N] [--server]

One collection holding N GraphRAG traces and M documents of four pages (three chunks each),
written by today's builders (the adopted forms), embedded or (``--server``) on an ``oxigraph
serve`` of its own. Timed (median of 5): ``migrate`` with no step marked done (what every
start cost before the done marks: each step reads what it looks at again) and with every
step marked done (after the first start); embedded in CPU seconds, on a server in wall time
(the work is the server's). Figures go into docs/store.md ("Migration at start").
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from bench.summary import summary
from tests.support.sparql_server import oxigraph_server
from tests.support.store import Layout, graph_rag, msg, paged_document
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.core.backend import Backend, remove_quads
from trustgraph_flow.store.governance.migrate import DONE, GRAPH, migrate, steps_done
from trustgraph_flow.store.governance.migrate_steps import STEPS
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.sparql.client import SparqlServer


def fill(stores: Backend, traces: int, documents: int) -> None:
    batch = [msg(graph_rag(f"b{i}", i % 60), f"t{i}") for i in range(traces)]
    layout: Layout = {page: [(chunk, []) for chunk in range(3)] for page in range(1, 5)}
    batch += [
        msg(paged_document(f"urn:trustgraph:doc:b{i}", f"doc {i}", layout, "2026-01-01T00:00:00Z"))
        for i in range(documents)
    ]
    for start in range(0, len(batch), 500):
        write_batch(stores, batch[start : start + 500], None)


def cost_of(stores: Backend, marked: bool, clock: Callable[[], float]) -> float:
    handle = stores.get("alice", "default")
    assert handle is not None
    if not marked:
        remove_quads(handle.store, list(handle.store.quads_for_pattern(DONE, None, None, GRAPH)))
    began = clock()
    migrate(stores, None)
    spent = clock() - began
    assert steps_done(handle) == {step.name for step in STEPS}
    return spent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--traces", type=int, default=0)
    parser.add_argument("--documents", type=int, default=0)
    parser.add_argument("--server", action="store_true", help="on an oxigraph serve")
    args = parser.parse_args()
    traces = args.traces or (500 if args.quick else 5000)
    documents = args.documents or (20 if args.quick else 200)
    with ExitStack() as stack:
        stores: Backend
        if args.server:
            stores = RemoteStores(SparqlServer(stack.enter_context(oxigraph_server())))
            clock = time.perf_counter
        else:
            stores = Stores(Path(stack.enter_context(tempfile.TemporaryDirectory())) / "store")
            clock = time.process_time
        fill(stores, traces, documents)
        migrate(stores, None)  # the first start: marks every step done
        before = statistics.median(cost_of(stores, False, clock) for _ in range(5))
        after = statistics.median(cost_of(stores, True, clock) for _ in range(5))
        stores.close()
    where = "server, wall" if args.server else "embedded, CPU"
    print(f"{traces} traces, {documents} documents ({where}): without marks "
          f"{before * 1000:.1f} ms, marked done {after * 1000:.2f} ms")  # fmt: skip
    summary(
        f"migration at start, migrated store ({where})",
        f"{after * 1000:.2f} ms",
        "~0",
        f"{before * 1000:.0f} ms without the done marks ({traces} traces, {documents} docs)",
    )


if __name__ == "__main__":
    main()
