"""Showing one trace looks it up by its IRI: every index query is a seek, never a table scan,
so a trace costs the same in a collection of ten traces or of a million."""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_store_support import agent, graph_rag, msg
from trustgraph_flow.store import explain
from trustgraph_flow.store.stores import Stores
from trustgraph_flow.store.writer import write_batch


def test_showing_a_trace_never_scans_the_index(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "store")
    write_batch(stores, [msg(graph_rag(f"g{n}", n)) for n in range(20)])
    write_batch(stores, [msg(agent("a1", 30, "sub"))])
    handle = stores.get("alice", "default")
    assert handle is not None
    statements: list[str] = []
    handle.index.db.set_trace_callback(statements.append)
    try:
        for trace in ("a1", "urn:trustgraph:question:g7"):  # a session id, a trace IRI
            reader = explain.open_trace(handle, trace, include_provenance=True)
            view = reader.window(0, 500)
            assert view.question
    finally:
        handle.index.db.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert selects, "the lookups go through the sqlite index"
    for sql in selects:
        plan = [str(r[-1]) for r in handle.index.db.execute("EXPLAIN QUERY PLAN " + sql)]
        # A seek on a key; sorting what it found (one trace's sub-traces) is fine.
        assert plan[0].startswith("SEARCH"), (sql, plan)
        assert not [step for step in plan if step.startswith("SCAN")], (sql, plan)
    stores.close()
