"""Showing one trace looks it up by its IRI: every index query is a seek, never a table scan,
so a trace costs the same in a collection of ten traces or of a million."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.long_trace import long_agent_trace
from tests.integration.test_cli_long_trace import TRACE
from tests.support.handlers import streamed
from tests.support.sparql_server import embedded_only
from tests.support.store import agent, graph_rag, handle_of, msg, sqlite_index, written
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_base.wire import encode
from trustgraph_flow.store import processor
from trustgraph_flow.store.service import state as service_state
from trustgraph_flow.store.service.state import write
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import explain


@embedded_only("the sqlite trace index's query plans")
def test_showing_a_trace_never_scans_the_index(tmp_path: Path) -> None:
    stores = written(
        tmp_path / "store",
        [msg(graph_rag(f"g{n}", n)) for n in range(20)],
        [msg(agent("a1", 30, "sub"))],
    )
    handle = handle_of(stores)
    index = sqlite_index(handle)
    statements: list[str] = []
    index.db.set_trace_callback(statements.append)
    try:
        for trace in ("a1", "urn:trustgraph:question:g7"):  # a session id, a trace IRI
            reader = explain.open_trace(handle, trace, include_provenance=True)
            view = reader.window(0, 500)
            assert view.question
    finally:
        index.db.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert selects, "the lookups go through the sqlite index"
    for sql in selects:
        plan = [str(r[-1]) for r in index.db.execute("EXPLAIN QUERY PLAN " + sql)]
        # A seek on a key; sorting what it found (one trace's sub-traces) is fine.
        assert plan[0].startswith("SEARCH"), (sql, plan)
        assert not [step for step in plan if step.startswith("SCAN")], (sql, plan)
    stores.close()


async def test_a_streamed_trace_comes_in_pieces_each_small_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = processor.StoreSettings(data_dir=str(tmp_path), read_threads=1)
    async with processor.proc.context(settings, bus=None) as ctx:  # type: ignore[arg-type]
        await write(
            ctx, lambda s: write_batch(s, long_agent_trace("long-run", 1_200, sub_every=100))
        )
        req = ExplainRequest(operation="get-trace", id=TRACE, streaming=True, step_limit=500)
        pieces = [r async for r in streamed(processor.explain_service(req, ctx))]
        assert [len(p.trace.steps) for p in pieces if p.trace] == [500, 500, 200]
        assert [p.end_of_stream for p in pieces] == [False, False, True]
        assert {p.step_total for p in pieces} == {1_200}
        steps = [s.index for p in pieces if p.trace for s in p.trace.steps]
        assert steps == list(range(1, 1_201))
        # A piece over what a reply may carry is sent as smaller ones, in order.
        monkeypatch.setattr(service_state, "MAX_REPLY_BYTES", 20_000)
        small = [r async for r in streamed(processor.explain_service(req, ctx))]
        assert len(small) > 3 and all(len(encode(p)) <= 20_000 for p in small)
        assert [s.index for p in small if p.trace for s in p.trace.steps] == steps
        assert [p.end_of_stream for p in small].count(True) == 1 and small[-1].end_of_stream


async def test_a_streamed_trace_without_a_step_limit_comes_in_growing_pieces(
    tmp_path: Path,
) -> None:
    settings = processor.StoreSettings(data_dir=str(tmp_path), read_threads=2)
    async with processor.proc.context(settings, bus=None) as ctx:  # type: ignore[arg-type]
        await write(
            ctx, lambda s: write_batch(s, long_agent_trace("long-run", 4_000, sub_every=250))
        )
        req = ExplainRequest(operation="get-trace", id=TRACE, streaming=True)
        pieces = [r async for r in streamed(processor.explain_service(req, ctx))]
        # The first piece shows at once; later ones are larger, so a long trace takes few.
        assert [len(p.trace.steps) for p in pieces if p.trace] == [500, 1_000, 2_000, 500]
        assert [p.end_of_stream for p in pieces] == [False, False, False, True]
        steps = [s for p in pieces if p.trace for s in p.trace.steps]
        assert [s.index for s in steps] == list(range(1, 4_001))
        assert [s.index for s in steps if s.subtraces] == list(range(250, 4_001, 250))
