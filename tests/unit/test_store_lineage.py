"""Reverse lineage (source-usage) and "used by" counts on a real on-disk store (no broker)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.sparql_server import embedded_only
from tests.support.store import (
    DOC,
    DOG,
    FOX,
    JUMPS,
    agent,
    doc_rag,
    document,
    graph_rag,
    labels,
    msg,
)
from trustgraph_base.errors import ServiceError
from trustgraph_base.provenance import (
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    citation_triples,
    uris,
)
from trustgraph_base.rdf.terms import IriTerm, Triple
from trustgraph_base.schema.explain import ExplainRequest, SourceUsage
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch

FOX_EDGE = f"<{FOX}> <{JUMPS}> <{DOG}>"
P1 = uris.page_uri(DOC, 1)


@pytest.fixture
def stores(make_backend: Callable[[], Backend]) -> Backend:
    s = make_backend()
    write_batch(s, [msg(document() + labels(), "doc")])
    write_batch(s, [msg(graph_rag("g1", 1)), msg(doc_rag("d1", 2)), msg(agent("a1", 3, "g-sub"))])
    return s


def usage(stores: Backend, source: str, limit: int = 50, user: str = "alice") -> SourceUsage:
    resp = explain_op(
        stores, ExplainRequest(operation="source-usage", id=source, limit=limit, user=user)
    )
    assert resp.usage is not None
    return resp.usage


def ids(u: SourceUsage) -> list[str]:
    return [t.trace.id.rsplit(":", 1)[1] for t in u.traces]


def test_an_edge_is_used_by_graph_rag_and_by_the_agent_whose_subtrace_selected_it(
    stores: Backend,
) -> None:
    u = usage(stores, FOX_EDGE)
    assert u.kind == "edge" and ids(u) == ["a1", "g1"]  # newest first; the sub-trace is not a top
    [path] = u.traces[0].paths
    assert path.kind == "edge" and path.trace == uris.graph_rag_question_uri("g-sub")
    assert path.entity == uris.focus_edge_uri(uris.graph_rag_question_uri("g-sub"), 1)
    assert path.edge is not None and path.edge.s_label == "fox"


def test_chunk_page_and_document_cover_what_lies_under_them(stores: Backend) -> None:
    assert ids(usage(stores, uris.chunk_uri(P1, 0))) == [
        "a1",
        "g1",
    ]  # through the fox edge it holds
    docrag = usage(stores, uris.chunk_uri(P1, 1))
    assert ids(docrag) == ["d1"] and docrag.traces[0].paths[0].kind == "chunk"
    assert ids(usage(stores, P1)) == ["a1", "d1", "g1"]
    assert usage(stores, uris.page_uri(DOC, 2)).traces == []
    # A bare document id, as tg-load-document takes it, and its pages and chunks after it.
    assert ids(usage(stores, "d1/p1")) == ids(usage(stores, P1)) == ["a1", "d1", "g1"]
    assert usage(stores, "d1/p1").source == P1 and usage(stores, "d1/p1").kind == "page"
    assert ids(usage(stores, "d1/p1/c1")) == ["d1"]
    whole = usage(stores, "d1")
    assert whole.kind == "document" and ids(whole) == ["a1", "d1", "g1"]
    assert {p.chunk for t in whole.traces for p in t.paths} == {
        uris.chunk_uri(P1, 0),
        uris.chunk_uri(P1, 1),
    }
    assert ids(usage(stores, P1, limit=2)) == ["a1", "d1"]


def test_a_parent_written_after_its_subtrace_still_becomes_the_top(
    make_backend: Callable[[], Backend],
) -> None:
    s = make_backend()
    write_batch(s, [msg(document(), "doc")])
    whole = agent("late", 9, "early-sub")
    sub_q = uris.graph_rag_question_uri("early-sub")
    sub = [t for t in whole if uris.trace_root(t.s.i) == sub_q]  # type: ignore[union-attr]
    write_batch(s, [msg(graph_rag("old", 1))])
    write_batch(s, [msg(sub)])  # the sub-trace first: its parent is not indexed yet
    write_batch(s, [msg([t for t in whole if t not in sub])])
    assert ids(usage(s, FOX_EDGE)) == ["late", "old"]


@pytest.mark.parametrize("order", ["in order", "citations first"])
def test_what_an_answer_cites_is_marked_whatever_order_its_entities_are_written_in(
    make_backend: Callable[[], Backend], order: str
) -> None:
    # Each entity of a trace is its own message: store replicas sharing the topic (or its
    # partitions) may write the synthesis that cites an edge or a chunk before the focus or
    # exploration that selected it, and a redelivered message comes after later ones.
    s = make_backend()
    write_batch(s, [msg(document(), "doc")])
    g, d = uris.graph_rag_question_uri("g1"), uris.docrag_question_uri("d1")
    trace = graph_rag("g1", 1) + doc_rag("d1", 2)
    cites = citation_triples(uris.synthesis_uri(g), [uris.focus_edge_uri(g, 1)])
    cites += citation_triples(uris.synthesis_uri(d), [uris.chunk_uri(P1, 1)])
    if order == "in order":
        write_batch(s, [msg(trace)])
        write_batch(s, [msg(cites, "cites")])
    else:
        write_batch(s, [msg(cites, "cites")])
        write_batch(s, [msg(trace)])
    [edge] = usage(s, FOX_EDGE).traces
    assert [(p.entity, p.cited) for p in edge.paths] == [(uris.focus_edge_uri(g, 1), True)]
    [chunk] = usage(s, uris.chunk_uri(P1, 1)).traces
    assert [(p.kind, p.cited) for p in chunk.paths] == [("chunk", True)]
    # an edge or chunk selected but not cited stays unmarked
    write_batch(s, [msg(graph_rag("g2", 3))])
    assert [p.cited for t in usage(s, FOX_EDGE).traces for p in t.paths] == [False, True]


def test_other_users_and_deleted_traces_are_not_counted(stores: Backend) -> None:
    with pytest.raises(ServiceError) as err:
        usage(stores, FOX_EDGE, user="bob")
    assert err.value.type == "not-found"
    explain_op(stores, ExplainRequest(operation="delete-trace", id="a1", user="alice"))
    assert ids(usage(stores, FOX_EDGE)) == ["g1"]


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("urn:trustgraph:doc:nope", "not-found"),
        (f"<{FOX}> <{JUMPS}> <{FOX}>", "not-found"),
        (f"<{FOX}> <{JUMPS}>", "bad-request"),
        (
            f"{FOX_EDGE} . <urn:x> <urn:y> <urn:z>",
            "bad-request",
        ),  # two triples smuggled in one edge
        ('<urn:a> <urn:b> "x" } ; DROP GRAPH <urn:graph:source> #', "bad-request"),
        ("urn:a b", "bad-request"),
    ],
)
def test_bad_sources_are_refused(stores: Backend, source: str, kind: str) -> None:
    with pytest.raises(ServiceError) as err:
        usage(stores, source)
    assert err.value.type == kind


def test_hierarchy_counts_the_answers_using_each_page_and_chunk(stores: Backend) -> None:
    doc = explain_op(
        stores, ExplainRequest(operation="document-hierarchy", id=DOC, user="alice")
    ).document
    assert doc is not None
    counts = {p.number: (p.used_by, [c.used_by for c in p.chunks]) for p in doc.pages}
    assert counts == {1: (3, [2, 1]), 2: (0, [0])}
    cited = {p.number: (p.cited_by, [c.cited_by for c in p.chunks]) for p in doc.pages}
    assert cited == {1: (0, [0, 0]), 2: (0, [0])}  # these answers cite nothing they used


def test_hierarchy_says_how_many_of_the_answers_cited_each_page_and_chunk(
    stores: Backend,
) -> None:
    q = uris.docrag_question_uri("d2")
    chunk = uris.chunk_uri(P1, 1)
    write_batch(stores, [msg(doc_rag("d2", 4) + citation_triples(uris.synthesis_uri(q), [chunk]))])
    doc = explain_op(
        stores, ExplainRequest(operation="document-hierarchy", id=DOC, user="alice")
    ).document
    assert doc is not None
    counts = {
        p.number: (p.used_by, p.cited_by, [(c.used_by, c.cited_by) for c in p.chunks])
        for p in doc.pages
    }
    # d2 cites chunk 1 of page 1; d1 only retrieved it; chunk 0 is used through edges, uncited
    assert counts == {1: (4, 1, [(2, 0), (2, 1)]), 2: (0, 0, [(0, 0)])}


@embedded_only("the upgrade of an old sqlite trace index")
def test_traces_written_before_the_lineage_index_are_indexed_when_the_store_opens(
    tmp_path: Path,
) -> None:
    import sqlite3

    stores = Stores(tmp_path / "store")  # the embedded sqlite index's own upgrade
    write_batch(stores, [msg(document() + labels(), "doc")])
    write_batch(
        stores, [msg(graph_rag("g1", 1)), msg(doc_rag("d1", 2)), msg(agent("a1", 3, "g-sub"))]
    )
    path = stores.path("alice", "default") / "traces.sqlite"
    stores.close()
    with sqlite3.connect(path) as db:  # as a store written by the version before lineage
        db.execute("DELETE FROM links")
        db.execute("DELETE FROM lineage_meta")
    reopened = Stores(tmp_path / "store")
    assert ids(usage(reopened, FOX_EDGE)) == ["a1", "g1"]
    assert ids(usage(reopened, P1)) == ["a1", "d1", "g1"]


def test_diff_compares_evidence_across_trace_types(stores: Backend) -> None:
    d = explain_op(
        stores, ExplainRequest(operation="diff-traces", id="a1", other="d1", user="alice")
    ).diff
    assert d is not None and d.a.type == "agent" and d.b.type == "document-rag"
    assert (d.answer_a, d.answer_b) == ("The fox jumps over the dog.", "Page one text.")
    assert [i.id for i in d.edges.only_a] == [FOX_EDGE] and d.edges.only_a[
        0
    ].label == "fox → jumps over → dog"
    assert d.edges.both == [] and d.edges.only_b == []
    assert [i.id for i in d.chunks.only_a] == [uris.chunk_uri(P1, 0)]
    assert [i.id for i in d.chunks.only_b] == [uris.chunk_uri(P1, 1)]
    assert [i.id for i in d.pages.both] == [P1] and [i.id for i in d.documents.both] == [DOC]
    same = explain_op(
        stores, ExplainRequest(operation="diff-traces", id="a1", other="g1", user="alice")
    ).diff
    assert (
        same is not None
        and [i.id for i in same.edges.both] == [FOX_EDGE]
        and same.edges.only_a == []
    )


def test_diff_of_an_unknown_trace_is_not_found(stores: Backend) -> None:
    with pytest.raises(ServiceError) as err:
        explain_op(
            stores, ExplainRequest(operation="diff-traces", id="a1", other="nope", user="alice")
        )
    assert err.value.type == "not-found" and "'nope'" in err.value.message


@pytest.mark.parametrize("order", ["as sent", "reversed"])
def test_a_trace_written_an_entity_per_batch_is_indexed_as_one_written_at_once(
    make_backend: Callable[[], Backend], order: str
) -> None:
    """As the agent sends its trace: a message per entity, often each its own batch, and on
    a redelivery in any order; the list, the trace and its lineage are the same."""
    s = make_backend()
    write_batch(s, [msg(document() + labels(), "doc", user=u) for u in ("whole", "parts")])
    trace = agent("a1", 3, "g-sub") + graph_rag("g1", 1)
    write_batch(s, [msg(trace, "all", user="whole")])
    entities: dict[str, list[Triple]] = {}
    for t in trace:
        entities.setdefault(t.s.i if isinstance(t.s, IriTerm) else "", []).append(t)
    parts = list(entities.items())
    for uri, triples in parts if order == "as sent" else reversed(parts):
        write_batch(s, [msg(triples, uri, user="parts")])

    def seen(user: str) -> tuple[object, ...]:
        listed = explain_op(s, ExplainRequest(operation="list-traces", user=user)).traces
        view = explain_op(s, ExplainRequest(operation="get-trace", id="a1", user=user)).trace
        return (
            [(t.id, t.status, t.time) for t in listed],
            view.model_dump() if view else None,
            usage(s, FOX_EDGE, user=user).model_dump(),
            usage(s, P1, user=user).model_dump(),
        )

    assert seen("parts") == seen("whole")
    assert ids(usage(s, FOX_EDGE, user="parts")) == ["a1", "g1"]


def dead_end_agent(sid: str, second: int, sub_sid: str) -> list[Triple]:
    """An agent whose step 1 ran a GraphRAG sub-trace (the fox edge) that its answer does not
    rely on: step 2 went back to the question, and the answer rests on step 2 alone."""
    a = uris.agent_session_uri(sid)
    i1, i2 = uris.agent_iteration_uri(a, 1), uris.agent_iteration_uri(a, 2)
    out = agent_session_triples(a, "what does the fox do?", f"2026-01-01T00:00:{second:02d}Z")
    out += agent_iteration_triples(i1, a, "look it up", "knowledge-query", {}, "It jumps.")
    out += graph_rag(sub_sid, second, parent=i1)
    out += agent_iteration_triples(i2, [a], "that did not help", "text-completion", {}, "It runs.")
    out += agent_observation_triples(uris.agent_observation_uri(i2), i2)
    return out + agent_final_triples(
        uris.agent_final_uri(a), [uris.agent_observation_uri(i2)], "It runs.", "final-answer"
    )


def test_evidence_a_dead_end_step_found_is_not_what_the_answer_used(stores: Backend) -> None:
    write_batch(stores, [msg(dead_end_agent("a9", 9, "g-dead"))])
    u = usage(stores, FOX_EDGE)
    assert ids(u) == ["a9", "a1", "g1"]  # still listed: its trace did select the edge …
    marks = {t.trace.id.rsplit(":", 1)[1]: [p.used for p in t.paths] for t in u.traces}
    assert marks == {"a9": [False], "a1": [True], "g1": [True]}  # … marked not used by the answer
    doc = explain_op(
        stores, ExplainRequest(operation="document-hierarchy", id=DOC, user="alice")
    ).document
    assert doc is not None
    counts = {p.number: (p.used_by, [c.used_by for c in p.chunks]) for p in doc.pages}
    assert counts == {1: (3, [2, 1]), 2: (0, [0])}  # as before a9 came: it is not counted


def test_the_diff_compares_only_what_each_answer_relied_on(stores: Backend) -> None:
    write_batch(stores, [msg(dead_end_agent("a9", 9, "g-dead"))])
    d = explain_op(
        stores, ExplainRequest(operation="diff-traces", id="a1", other="a9", user="alice")
    ).diff
    assert d is not None
    # a9's step 1 selected the fox edge too, but its answer does not rest on that step.
    assert [i.id for i in d.edges.only_a] == [FOX_EDGE] and d.edges.both == []
    assert d.edges.only_b == [] and d.documents.only_b == []
