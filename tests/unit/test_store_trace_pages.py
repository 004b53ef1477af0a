"""The trace list's keyset pages and filters, and agent traces read a window of steps at a time."""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from tests.golden import agent_graph
from tests.support.sparql_server import embedded_only, store_backend
from tests.support.store import (
    DOC,
    agent,
    doc_rag,
    document,
    failed_agent,
    graph_rag,
    handle_of,
    labels,
    msg,
    sqlite_index,
)
from trustgraph_base.errors import ServiceError
from trustgraph_base.provenance import (
    agent_iteration_triples,
    agent_session_triples,
    citation_triples,
    docrag_exploration_triples,
    docrag_question_triples,
    failure_triples,
    metrics_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, PROV, TG
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.explain import ExplainRequest, TraceView
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.embedded.trace_sql import page_query
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.core.rows import TraceFilter
from trustgraph_flow.store.service.operations import on_collection
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import traces


@pytest.fixture
def handle(make_backend: Callable[[], Backend]) -> Handle:
    stores = make_backend()
    write_batch(stores, [msg(graph_rag(f"g{n}", n)) for n in range(10)])
    write_batch(
        stores, [msg(agent("a1", 3, "sub")), msg(doc_rag("d1", 4)), msg(failed_agent("bad", 5))]
    )
    write_batch(stores, [msg(graph_rag("run", 15, finished=False))])
    return handle_of(stores)


def listing(handle: Handle, **fields: object) -> list[str]:
    """Every page of the list, walked by cursor three at a time: the ids in order."""
    ids: list[str] = []
    cursor: str | None = None
    while True:
        req = ExplainRequest(operation="list-traces", limit=3, cursor=cursor, **fields)
        resp = on_collection(handle, req)
        ids += [t.id.rsplit(":", 1)[1] for t in resp.traces]
        cursor = resp.cursor
        if cursor is None:
            return ids


def test_pages_walk_every_top_level_trace_once_newest_first(handle: Handle) -> None:
    everything = listing(handle)
    assert len(everything) == len(set(everything)) == 14  # the agent's sub-trace is not listed
    assert everything[:3] == ["run", "g9", "g8"]
    assert [t.id.rsplit(":", 1)[1] for t in traces.list_traces(handle, 14)] == everything


def test_filters_narrow_the_pages(handle: Handle) -> None:
    assert listing(handle, type="agent") == ["bad", "a1"]
    assert listing(handle, status="failed") == ["bad"]
    assert listing(handle, status="in-progress") == ["run"]
    assert listing(handle, search="DO? (G1)") == ["g1"]  # question text, any case
    assert listing(handle, since="2026-01-01T00:00:08Z", status="complete") == ["g9", "g8"]
    assert listing(handle, until="2026-01-01T00:00:02Z", type="graph-rag") == ["g1", "g0"]
    assert listing(handle, search="no such question") == []


def test_bad_filter_values_are_refused(handle: Handle) -> None:
    for fields in ({"since": "yesterday"}, {"cursor": "not-a-cursor"}):
        with pytest.raises(ServiceError) as err:
            on_collection(handle, ExplainRequest(operation="list-traces", **fields))
        assert err.value.type == "bad-request"


@embedded_only("the sqlite trace index's query plan")
def test_a_deep_page_is_one_index_range_scan(tmp_path: Path) -> None:
    handle = Stores(tmp_path / "store").get("alice", "default", create=True)
    assert handle is not None
    sql, args = page_query(
        51, TraceFilter(kind="agent", search="x"), ("2026-01-01T00:00:05.000000Z", "urn:x")
    )
    plan = " ".join(
        str(r[-1]) for r in sqlite_index(handle).db.execute("EXPLAIN QUERY PLAN " + sql, args)
    )
    assert (
        "SEARCH traces USING INDEX traces_page" in plan and "TEMP B-TREE" not in plan
    )  # a seek, not a scan


def long_agent(steps: int = 30, thought: str = "thought") -> list[Triple]:
    """Agent trace ``long`` of ``steps`` steps; step 12 ran a GraphRAG sub-trace, step 3 has metrics."""
    a = uris.agent_session_uri("long")
    triples = agent_session_triples(a, "a long run", "2026-01-01T00:00:00Z")
    previous = a
    for n in range(1, steps + 1):
        step = uris.agent_iteration_uri(a, n)
        triples += agent_iteration_triples(
            step, previous, f"{thought} {n}", "search", {"n": n}, f"seen {n}"
        )
        previous = step
    triples += graph_rag("inner", 1, parent=uris.agent_iteration_uri(a, 12))
    triples += metrics_triples(
        uris.agent_iteration_uri(a, 3), GRAPH_RETRIEVAL, model="m", in_token=7
    )
    return triples


def window(h: Handle, offset: int, limit: int, trace: str = "long") -> TraceView:
    req = ExplainRequest(operation="get-trace", id=trace, step_offset=offset, step_limit=limit)
    resp = on_collection(h, req)
    assert resp.trace is not None
    return resp.trace


def test_a_long_agent_trace_is_read_a_window_at_a_time(handle: Handle, tmp_path: Path) -> None:
    stores = store_backend(tmp_path / "long", capacity=1)
    write_batch(stores, [msg(long_agent())])
    h = handle_of(stores)
    resp = on_collection(
        h, ExplainRequest(operation="get-trace", id="long", step_offset=10, step_limit=5)
    )
    assert resp.trace is not None and resp.step_total == 30
    assert [s.index for s in resp.trace.steps] == [11, 12, 13, 14, 15]
    assert [len(s.subtraces) for s in resp.trace.steps] == [0, 1, 0, 0, 0]
    assert resp.trace.question == "a long run"
    whole = on_collection(h, ExplainRequest(operation="get-trace", id="long"))
    assert whole.trace is not None and len(whole.trace.steps) == 30 and whole.step_total is None


def test_a_windowed_read_of_a_rag_trace_returns_all_of_it(handle: Handle) -> None:
    resp = on_collection(
        handle,
        ExplainRequest(operation="get-trace", id="g1", step_limit=5, include_provenance=True),
    )
    assert resp.trace is not None and resp.step_total == 0
    assert (resp.trace.answer, resp.trace.edges[0].reasoning) == (
        "It jumps over the dog.",
        "the fox acts",
    )


def test_windows_show_the_steps_the_whole_trace_shows(make_backend: Callable[[], Backend]) -> None:
    stores = make_backend()
    write_batch(stores, [msg(long_agent())])
    h = handle_of(stores)
    whole = on_collection(h, ExplainRequest(operation="get-trace", id="long")).trace
    assert whole is not None
    pieces = [window(h, start, 7) for start in range(0, 30, 7)]
    assert [s for p in pieces for s in p.steps] == whole.steps
    assert pieces[0].metrics["i3"].model == "m" and pieces[0].metrics["i3"].in_token == 7
    assert pieces[0].steps[2].thought == "thought 3" and pieces[0].steps[2].observation == "seen 3"


def without_read_model(
    root: Path, table: Literal["step_facts", "rag_facts"], backfilled: str
) -> Handle:
    """The closed store at ``root`` reopened as the code before a read model left it: no
    ``table``, its backfill (``lineage_meta`` key ``backfilled``) never run."""
    gc.collect()  # pyoxigraph releases its lock when the store object goes
    db = sqlite3.connect(next(root.rglob("traces.sqlite")))
    db.execute(f"DROP TABLE {table}")  # one of two table names (the type says which)
    db.execute("DELETE FROM lineage_meta WHERE key = ?", (backfilled,))
    db.commit()
    db.close()
    return handle_of(Stores(root, capacity=1))


@embedded_only("the upgrade of an old sqlite trace index")
def test_a_store_written_before_the_step_read_model_shows_its_steps(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "old", capacity=1)
    write_batch(stores, [msg(long_agent())])
    h = handle_of(stores)
    before = window(h, 0, 30)
    stores.close()
    del h, stores
    reopened = without_read_model(tmp_path / "old", "step_facts", "steps")
    after = window(reopened, 0, 30)
    assert after == before and after.steps[29].thought == "thought 30"
    assert after.metrics["i3"].in_token == 7


@embedded_only("the upgrade of an old sqlite trace index")
def test_a_store_indexed_before_the_agent_graph_shows_what_steps_used(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "old", capacity=1)
    write_batch(stores, [agent_graph.graph_batch("alice")])
    h = handle_of(stores)
    before = window(h, 0, 3, agent_graph.GRAPH)
    assert [s.used for s in before.steps] == [True, False, True]
    stores.close()
    del h, stores
    gc.collect()
    db = sqlite3.connect(next((tmp_path / "old").rglob("traces.sqlite")))
    db.execute("DELETE FROM step_facts WHERE pred = ?", (PROV.wasDerivedFrom.i,))
    db.execute("DELETE FROM lineage_meta WHERE key = 'steps-graph'")  # as indexed before
    db.commit()
    db.close()
    after = window(handle_of(Stores(tmp_path / "old", capacity=1)), 0, 3, agent_graph.GRAPH)
    assert after == before and after.steps[2].uses == [f"{agent_graph.GRAPH}/i1/observation"]


def test_a_trace_deleted_and_written_again_shows_only_its_new_steps(tmp_path: Path) -> None:
    stores = store_backend(tmp_path / "again", capacity=1)
    write_batch(stores, [msg(long_agent())])
    h = handle_of(stores)
    on_collection(h, ExplainRequest(operation="delete-trace", id="long"))
    write_batch(stores, [msg(long_agent(5, thought="updated run"))])
    shown = window(h, 0, 30)
    assert [s.thought for s in shown.steps] == [f"updated run {n}" for n in range(1, 6)]


def scored_doc_rag() -> list[Triple]:
    """DocumentRAG trace ``d2``: two chunks of the document with scores (their reifiers'
    ``rdf:reifies`` are triple terms), the second cited."""
    q = uris.docrag_question_uri("d2")
    first, second = (
        uris.chunk_uri(uris.page_uri(DOC, 1), 0),
        uris.chunk_uri(uris.page_uri(DOC, 2), 0),
    )
    out = docrag_question_triples(q, "what is on both pages?", "2026-01-01T00:00:20Z")
    out += docrag_exploration_triples(uris.exploration_uri(q), q, [first, second], [0.9, 0.25])
    out += synthesis_triples(uris.synthesis_uri(q), uris.exploration_uri(q), "Both.")
    out += citation_triples(uris.synthesis_uri(q), [second])
    return out


def rag_world() -> list[Triple]:
    """Every kind of RAG view: a GraphRAG trace with labels and metrics, one that failed, a
    scored DocumentRAG trace and an agent that ran a GraphRAG sub-trace."""
    failed = graph_rag("gfail", 21, finished=False)
    failed += failure_triples(uris.graph_rag_question_uri("gfail"), GRAPH_RETRIEVAL, "LLM down")
    return [*labels(), *document(), *graph_rag("g1", 1), *failed, *scored_doc_rag(), *long_agent()]


def shown(h: Handle, trace_id: str) -> TraceView:
    resp = on_collection(
        h, ExplainRequest(operation="get-trace", id=trace_id, include_provenance=True)
    )
    assert resp.trace is not None
    return resp.trace


RAG_VIEWS = ("g1", "gfail", "d2", "long")


@embedded_only("the upgrade of an old sqlite trace index")
def test_a_store_written_before_the_rag_read_model_shows_its_rag_traces(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "old", capacity=1)
    write_batch(stores, [msg(rag_world())])
    h = handle_of(stores)
    before = {t: shown(h, t) for t in RAG_VIEWS}
    stores.close()
    del h, stores
    reopened = without_read_model(tmp_path / "old", "rag_facts", "rag")
    after = {t: shown(reopened, t) for t in RAG_VIEWS}
    assert after == before
    g1, d2 = after["g1"], after["d2"]
    assert (g1.answer, g1.edge_count, g1.metrics["synthesis"].latency_ms) == (
        "It jumps over the dog.",
        7,
        13,  # 12.5 ms, whole
    )
    assert (g1.edges[0].s_label, g1.edges[0].reasoning, g1.edges[0].sources[0].document) == (
        "fox",
        "the fox acts",
        DOC,
    )
    assert [(c.score, c.cited) for c in d2.chunks] == [(0.9, False), (0.25, True)]
    assert after["gfail"].error == "LLM down" and after["gfail"].status == "failed"
    assert after["long"].steps[11].subtraces[0].edges[0].reasoning == "the fox acts"


def test_rag_views_read_every_fact_their_quads_hold(make_backend: Callable[[], Backend]) -> None:
    """The read model (embedded) and the quads (server) show the same: what each view says."""
    stores = make_backend()
    write_batch(stores, [msg(rag_world())])
    h = handle_of(stores)
    d2, fail = shown(h, "d2"), shown(h, "gfail")
    assert d2.chunk_count == 2 and d2.answer == "Both." and d2.exploration is not None
    assert [c.uri.rsplit("/", 2)[1] for c in d2.chunks] == ["p1", "p2"]  # in rank order
    assert d2.chunks[1].sources[0].page_number == 2
    assert (fail.edges[0].o_label, fail.synthesis, fail.answer) == ("dog", None, None)
    sub = shown(h, "long").steps[11].subtraces[0]
    assert sub.parent == uris.agent_iteration_uri(uris.agent_session_uri("long"), 12)
    assert sub.metrics["synthesis"].model == "m1" and sub.answer == "It jumps over the dog."


def test_a_rag_trace_deleted_and_written_again_shows_only_its_new_facts(tmp_path: Path) -> None:
    stores = store_backend(tmp_path / "again", capacity=1)
    write_batch(stores, [msg(graph_rag("redo", 1))])
    h = handle_of(stores)
    on_collection(h, ExplainRequest(operation="delete-trace", id="redo"))
    again = [  # a later answer than the deleted one (it would sort after it)
        t.model_copy(update={"o": t.o.model_copy(update={"v": "Written again."})})
        if t.p.i == TG.content.i
        else t
        for t in graph_rag("redo", 2)
    ]
    write_batch(stores, [msg(again)])
    view = shown(h, "redo")
    assert view.answer == "Written again." and len(view.edges) == 1


def test_a_redelivered_rag_trace_shows_each_fact_once(tmp_path: Path) -> None:
    stores = store_backend(tmp_path / "twice", capacity=1)
    batch = [msg(rag_world())]
    write_batch(stores, batch)
    h = handle_of(stores)
    first = {t: shown(h, t) for t in RAG_VIEWS}
    write_batch(stores, batch)  # redelivered after a crash before its ack
    assert {t: shown(h, t) for t in RAG_VIEWS} == first
    assert len(first["d2"].chunks) == 2 and len(first["g1"].edges) == 1
