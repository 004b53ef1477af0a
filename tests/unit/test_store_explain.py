"""Writer, trace index, trace assembly and document hierarchy on a real store (no broker):
on disk, or with ``TG_TEST_STORE=server`` on the test's ``oxigraph serve``."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import embedded_only
from tests.support.store import (
    DOC,
    EDGE_FOX,
    agent,
    doc_rag,
    document,
    failed_agent,
    graph_rag,
    handle_of,
    labels,
    msg,
    plain_document,
    quad_count,
    sqlite_index,
    written,
)
from trustgraph_base.errors import ServiceError
from trustgraph_base.provenance import uris
from trustgraph_base.rdf.terms import LiteralTerm, Triple, iri
from trustgraph_flow.store.backends.embedded.stores import safe_name
from trustgraph_flow.store.backends.embedded.trace_sql import NEWEST
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.core.rows import sort_key
from trustgraph_flow.store.governance import deletion
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import explain, hierarchy, traces


@pytest.fixture
def stores(tmp_path: Path) -> Backend:
    return written(tmp_path / "store", [msg(document() + labels(), "doc")], capacity=2)


def handle(stores: Backend) -> Handle:
    found = handle_of(stores)
    return found


def test_safe_names_never_escape_the_root() -> None:
    assert safe_name("u", "..") == "u-.."
    assert "/" not in safe_name("u", "a/../../b") and safe_name("u", "a/b") != safe_name("u", "a_b")
    assert len(safe_name("c", "é" * 200)) < 80


def test_list_traces_newest_first_without_subtraces(stores: Backend) -> None:
    write_batch(
        stores, [msg(graph_rag("g1", 1)), msg(agent("a1", 3, "g-sub")), msg(doc_rag("d1", 2))]
    )
    write_batch(stores, [msg(failed_agent("bad", 4)), msg(graph_rag("g2", 5, finished=False))])
    rows = traces.list_traces(handle(stores), 50)
    assert [(r.id.rsplit(":", 1)[1], r.type, r.status) for r in rows] == [
        ("g2", "graph-rag", "in-progress"),
        ("bad", "agent", "failed"),
        ("a1", "agent", "complete"),
        ("d1", "document-rag", "complete"),
        ("g1", "graph-rag", "complete"),
    ]
    assert [r.id for r in traces.list_traces(handle(stores), 2)][1].endswith(":bad")


def test_agent_trace_nests_its_graph_rag_subtrace(stores: Backend) -> None:
    write_batch(stores, [msg(agent("a1", 3, "g-sub"))])
    view = explain.get_trace(handle(stores), "a1", include_provenance=True)
    assert view.id == uris.agent_session_uri("a1") and view.status == "complete"
    assert [s.index for s in view.steps] == [1, 2]
    step = view.steps[0]
    assert (step.action, step.arguments, step.observation) == (
        "knowledge-query",
        '{"question": "fox"}',
        "It jumps over the dog.",
    )
    assert view.answer == "The fox jumps over the dog."
    assert view.metrics["i1"].model == "m1" and view.metrics["i1"].in_token == 3
    [sub] = step.subtraces
    assert sub.type == "graph-rag" and sub.parent == step.uri
    assert sub.edges[0].sources[0].page_number == 1
    assert view.steps[1].subtraces == []


def test_graph_rag_trace_with_provenance(stores: Backend) -> None:
    write_batch(stores, [msg(graph_rag("g1", 1))])
    view = explain.get_trace(
        handle(stores), uris.graph_rag_question_uri("g1"), include_provenance=True
    )
    assert (view.edge_count, view.answer, view.status) == (7, "It jumps over the dog.", "complete")
    [edge] = view.edges
    assert (edge.s, edge.p, edge.o) == EDGE_FOX
    assert (edge.s_label, edge.p_label, edge.o_label, edge.reasoning) == (
        "fox",
        "jumps over",
        "dog",
        "the fox acts",
    )
    [src] = edge.sources
    assert (
        src.chunk,
        src.chunk_index,
        src.page_number,
        src.document,
        src.title,
        src.mime_type,
    ) == (f"{DOC}/p1/c0", 0, 1, DOC, "Sample PDF", "application/pdf")
    assert view.metrics["synthesis"].latency_ms == 13 and view.metrics["synthesis"].out_token == 5
    bare = explain.get_trace(handle(stores), "g1", include_provenance=False)
    assert bare.edges[0].sources == []


def test_doc_rag_trace_with_provenance(stores: Backend) -> None:
    write_batch(stores, [msg(doc_rag("d1", 2))])
    view = explain.get_trace(handle(stores), "d1", include_provenance=True)
    assert view.type == "document-rag" and view.chunk_count == 1 and view.answer == "Page one text."
    [chunk] = view.chunks
    assert (
        chunk.uri == f"{DOC}/p1/c1"
        and chunk.sources[0].chunk_index == 1
        and chunk.sources[0].page == f"{DOC}/p1"
    )


def test_failed_trace_reports_its_error(stores: Backend) -> None:
    write_batch(stores, [msg(failed_agent("bad", 4))])
    view = explain.get_trace(handle(stores), "bad", include_provenance=False)
    assert (view.status, view.error, view.answer) == ("failed", "LLM down", None)


def test_unknown_and_malformed_ids(stores: Backend) -> None:
    with pytest.raises(ServiceError) as err:
        explain.get_trace(handle(stores), "nope", include_provenance=False)
    assert err.value.type == "not-found"
    for bad in ("has space", "urn:trustgraph:agent:a b", ""):
        with pytest.raises(ServiceError) as err:
            explain.get_trace(handle(stores), bad, include_provenance=False)
        assert err.value.type == "bad-request"


def test_delete_trace_removes_entities_and_subtraces(stores: Backend) -> None:
    write_batch(stores, [msg(agent("a1", 3, "g-sub")), msg(graph_rag("g1", 1))])
    h = handle(stores)
    before = quad_count(h)
    removed = deletion.delete_trace(h, "a1")
    assert set(removed) == {uris.agent_session_uri("a1"), uris.graph_rag_question_uri("g-sub")}
    assert [r.id for r in traces.list_traces(h, 10)] == [uris.graph_rag_question_uri("g1")]
    remaining = {
        q.subject.value
        for q in h.store.quads_for_pattern(None, None, None, None)
        if isinstance(q.subject, ox.NamedNode)
    }
    assert not any(
        s.startswith((uris.agent_session_uri("a1"), uris.graph_rag_question_uri("g-sub")))
        for s in remaining
    )
    assert quad_count(h) == before - len(agent("a1", 3, "g-sub"))
    with pytest.raises(ServiceError):
        explain.get_trace(h, "g-sub", include_provenance=False)


def test_redelivery_changes_nothing(stores: Backend) -> None:
    batch = [msg(agent("a1", 3, "g-sub"))]
    write_batch(stores, batch)
    h = handle(stores)
    size, rows = quad_count(h), traces.list_traces(h, 10)
    write_batch(stores, batch)
    assert quad_count(h) == size and traces.list_traces(h, 10) == rows


def test_bad_message_rejected_alone(stores: Backend) -> None:
    good = msg([Triple(s=iri("urn:x:1"), p=iri("urn:p"), o=LiteralTerm(v="ok"))], "good")
    # The schema accepts these; pyoxigraph refuses them (bad percent-encoding, empty BCP 47 extension).
    bad_iri = msg(
        [Triple(s=iri("http://ex.com/%zz"), p=iri("urn:p"), o=LiteralTerm(v="x"))], "bad-iri"
    )
    bad_lang = msg(
        [Triple(s=iri("urn:x:2"), p=iri("urn:p"), o=LiteralTerm(v="x", ln="en-a"))], "bad-lang"
    )
    report = write_batch(stores, [bad_iri, good, bad_lang])
    assert report.rejected is not None and [r[0] for r in report.rejected] == [
        "bad-iri",
        "bad-lang",
    ]
    assert "percent" in report.rejected[0][1] and report.written == 1
    assert (
        len(list(handle(stores).store.quads_for_pattern(iri_node("urn:x:1"), None, None, None)))
        == 1
    )


def test_bad_message_rejected_alone_in_a_bulk_sized_group(stores: Backend) -> None:
    """A group large enough for the bulk writer: the refused message leaves nothing behind."""
    from trustgraph_flow.store.service.writer import BULK_MIN

    many = [
        msg(
            [
                Triple(s=iri(f"urn:x:m{i}"), p=iri(f"urn:p{k}"), o=LiteralTerm(v="v"))
                for k in range(10)
            ],
            f"m{i}",
        )
        for i in range(BULK_MIN // 10 + 1)
    ]
    bad = msg(
        [Triple(s=iri("urn:x:bad"), p=iri("urn:p"), o=LiteralTerm(v="x")),
         Triple(s=iri("http://ex.com/%zz"), p=iri("urn:p"), o=LiteralTerm(v="x"))],
        "bad-iri",
    )  # fmt: skip
    before = quad_count(handle(stores))
    report = write_batch(stores, [*many[:100], bad, *many[100:]])
    assert [r[0] for r in report.rejected] == ["bad-iri"]
    assert report.written == quad_count(handle(stores)) - before == 10 * len(many)
    assert not list(handle(stores).store.quads_for_pattern(iri_node("urn:x:bad"), None, None, None))


def iri_node(value: str):  # type: ignore[no-untyped-def]
    import pyoxigraph as ox

    return ox.NamedNode(value)


def test_document_hierarchy(stores: Backend) -> None:
    write_batch(stores, [msg(plain_document(), "plain")])
    doc = hierarchy.document_view(handle(stores).store, DOC)
    assert doc is not None and (doc.title, doc.mime_type) == ("Sample PDF", "application/pdf")
    assert [p.number for p in doc.pages] == [1, 2]
    assert [c.index for c in doc.pages[0].chunks] == [0, 1]
    edge = doc.pages[0].chunks[0].edges[0]
    assert (edge.s, edge.o, edge.s_label, edge.p_label) == (
        EDGE_FOX[0],
        EDGE_FOX[2],
        "fox",
        "jumps over",
    )
    assert doc.pages[1].chunks[0].edges[0].o_label == "fox" and doc.chunks == []
    plain = hierarchy.document_view(handle(stores).store, "urn:trustgraph:doc:notes")
    assert plain is not None and plain.pages == [] and [c.index for c in plain.chunks] == [0, 1]
    assert plain.chunks[1].char_offset == 50
    assert hierarchy.document_view(handle(stores).store, "urn:trustgraph:doc:missing") is None
    # A window of chunks in order (page 1's two, then page 2's), under only their pages.
    window = hierarchy.document_window(handle(stores).store, DOC, offset=1, limit=2)
    assert window is not None and window.total == 3
    assert [(p.number, [c.index for c in p.chunks]) for p in window.view.pages] == [
        (1, [1]),
        (2, [0]),
    ]
    assert window.view.pages[1].chunks[0].edges == doc.pages[1].chunks[0].edges
    assert len(window.page_chunks[window.view.pages[0].uri]) == 2  # its usage counts both
    last = hierarchy.document_window(handle(stores).store, DOC, offset=2, limit=5)
    assert last is not None and [p.number for p in last.view.pages] == [2]
    every = hierarchy.document_window(handle(stores).store, DOC, limit=200)
    assert every is not None and every.view == doc  # a window of every chunk: the whole view
    beyond = hierarchy.document_window(handle(stores).store, DOC, offset=3)
    assert beyond is not None and (beyond.view.pages, beyond.total) == ([], 3)


def test_lru_evicts_and_reopens(stores: Backend) -> None:
    for user in ("bob", "carol", "dave"):
        write_batch(stores, [msg(graph_rag(user, 1), user=user)])
    assert quad_count(handle(stores)) > 0  # reopened after eviction
    assert stores.drop("bob", "default") and stores.get("bob", "default") is None


@embedded_only("the sqlite trace index's query plan")
def test_newest_list_is_one_partial_index_scan(stores: Backend) -> None:
    plan = sqlite_index(handle(stores)).db.execute("EXPLAIN QUERY PLAN " + NEWEST, (50,)).fetchall()
    detail = " ".join(str(row[-1]) for row in plan)
    assert "traces_top" in detail and "TEMP B-TREE" not in detail


def test_times_in_other_zones_sort_by_instant() -> None:
    assert (
        sort_key("2026-01-01T10:00:00+02:00")
        < sort_key("2026-01-01T09:00:00Z")
        < sort_key("2026-01-01T09:30:00.5Z")
    )
    assert sort_key("not a time") == "not a time"
