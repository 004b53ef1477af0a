"""Removal that follows lineage on a real store (on disk, or the test's SPARQL server): traces marked or purged, nothing else touched."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import store_backend
from tests.support.store import (
    DOC,
    EDGE_CAT,
    EDGE_FOX,
    agent,
    doc_rag,
    document,
    graph_rag,
    handle_of,
    labels,
    msg,
    plain_document,
    quads,
)
from trustgraph_base.provenance import uris
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import traces

NOTES = "urn:trustgraph:doc:notes"


def notes_rag(sid: str, second: int) -> list:  # type: ignore[type-arg]
    """A DocumentRAG trace that used only the other document."""
    return [t for t in doc_rag(sid, second) if "selectedChunk" not in t.p.i] + [
        t.model_copy(update={"o": t.o.model_copy(update={"i": uris.chunk_uri(NOTES, 0)})})
        for t in doc_rag(sid, second)
        if "selectedChunk" in t.p.i
    ]


@pytest.fixture
def stores(tmp_path: Path) -> Backend:
    s = store_backend(tmp_path / "store")
    for user in ("alice", "bob"):
        facts = [Triple(s=e[0], p=e[1], o=e[2]) for e in (EDGE_FOX, EDGE_CAT)]
        write_batch(s, [msg(document() + plain_document() + labels() + facts, "doc", user=user)])
        write_batch(
            s,
            [
                msg(graph_rag("g1", 1), user=user),
                msg(doc_rag("d1", 2), user=user),
                msg(agent("a1", 3, "g-sub"), user=user),
                msg(notes_rag("n1", 4), user=user),
            ],
        )
    return s


def op(
    stores: Backend, operation: str, ident: str, user: str = "alice", **extra: object
) -> ExplainResponse:
    return explain_op(stores, ExplainRequest(operation=operation, id=ident, user=user, **extra))


def user_quads(stores: Backend, user: str) -> set[ox.Quad]:
    return quads(handle_of(stores, user))


def trace_quads(stores: Backend, trace: str) -> set[ox.Quad]:
    handle = handle_of(stores)
    root = traces.resolve(handle, trace)
    return {
        q
        for e in handle.index.entities(root)
        for q in handle.store.quads_for_pattern(ox.NamedNode(e), None, None, None)
    }


def test_removal_marks_every_trace_that_used_the_document_and_nothing_else(stores: Backend) -> None:
    bob_before = user_quads(stores, "bob")
    notes_trace = trace_quads(stores, "n1")
    notes_tree = op(stores, "document-hierarchy", NOTES).document
    report = op(stores, "delete-document", DOC, reason="takedown 114").removal
    assert report is not None and report.erasure is not None
    assert sorted(report.marked) == sorted(
        uris.graph_rag_question_uri(s)
        if s.startswith("g")
        else uris.agent_session_uri(s)
        if s.startswith("a")
        else uris.docrag_question_uri(s)
        for s in ("g1", "d1", "a1")
    )
    assert report.edges_removed == 2 and report.purged == []

    g1 = op(stores, "get-trace", "g1", include_provenance=True).trace
    assert g1 is not None and g1.status == "complete" and g1.answer == "It jumps over the dog."
    [edge] = g1.edges
    [removed] = edge.removed
    assert (removed.reason, removed.document, removed.erasure) == (
        "takedown 114",
        DOC,
        report.erasure,
    )
    assert edge.sources == []  # its only source is gone
    d1 = op(stores, "get-trace", "d1").trace
    assert d1 is not None and d1.chunks[0].removed[0].erasure == report.erasure
    a1 = op(stores, "get-trace", "a1").trace
    assert a1 is not None and a1.steps[0].subtraces[0].edges[0].removed  # through its sub-trace

    n1 = op(stores, "get-trace", "n1").trace
    assert n1 is not None and n1.chunks[0].removed == []
    assert trace_quads(stores, "n1") == notes_trace  # another document's trace: not a quad changed
    assert op(stores, "document-hierarchy", NOTES).document == notes_tree
    assert user_quads(stores, "bob") == bob_before  # another tenant: not a quad changed

    handle = handle_of(stores)
    erasure = ox.NamedNode(report.erasure)
    assert (
        ox.Quad(
            ox.NamedNode(DOC),
            ox.NamedNode("http://www.w3.org/ns/prov#wasInvalidatedBy"),
            erasure,
            ox.NamedNode("urn:graph:retrieval"),
        )
        in handle.store
    )


def test_purge_deletes_the_traces_that_used_it_with_their_subtraces(stores: Backend) -> None:
    report = op(stores, "delete-document", DOC, purge_traces=True).removal
    assert report is not None and len(report.purged) == 3 and report.marked == []
    assert [t.id for t in op(stores, "list-traces", "").traces] == [uris.docrag_question_uri("n1")]
    assert handle_of(stores).index.get(uris.graph_rag_question_uri("g-sub")) is None


def test_unknown_or_repeated_removal_is_not_found(stores: Backend) -> None:
    from trustgraph_base.errors import ServiceError

    op(stores, "delete-document", DOC)
    with pytest.raises(ServiceError) as err:
        op(stores, "delete-document", DOC)
    assert err.value.type == "not-found"
