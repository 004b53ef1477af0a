"""delete-document on a real store (no broker; on disk, or on the test's SPARQL server): provenance gone, shared facts kept."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.store import (
    CAT,
    CHASES,
    DOC,
    DOG,
    EDGE_CAT,
    EDGE_FOX,
    FOX,
    JUMPS,
    TIME,
    document,
    handle_of,
    labels,
    msg,
    written,
)
from trustgraph_base.errors import ServiceError
from trustgraph_base.provenance import (
    GRAPH_SOURCE,
    activity_triples,
    chunk_triples,
    document_triples,
    subgraph_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store.core.backend import Backend, QuadStore
from trustgraph_flow.store.service.operations import explain_op

DOC2 = "urn:trustgraph:doc:d2"


def facts(*edges: tuple[object, object, object]) -> list[Triple]:
    return [Triple(s=s, p=p, o=o) for s, p, o in edges]


def second_document() -> list[Triple]:
    """d2: one chunk whose subgraph also holds the cat edge."""
    chunk = uris.chunk_uri(DOC2, 0)
    out = document_triples(DOC2, "Other", "text/plain")
    out += chunk_triples(chunk, DOC2, 0, 0, 10, uris.activity_uri(chunk, "chunk"))
    out += activity_triples(
        uris.activity_uri(chunk, "chunk"),
        uris.component_uri("chunker"),
        "chunker",
        TIME.format(1),
        used=DOC2,
    )
    out += subgraph_triples(
        uris.subgraph_uri(chunk), chunk, [EDGE_CAT], uris.activity_uri(chunk, "extract")
    )
    return out


@pytest.fixture
def stores(tmp_path: Path) -> Backend:
    return written(
        tmp_path / "store",
        [
            msg(document() + labels() + facts(EDGE_FOX, EDGE_CAT), "d1"),
            msg(second_document() + facts(EDGE_CAT), "d2"),
        ],
    )


def op(stores: Backend, operation: str, doc: str) -> None:
    explain_op(stores, ExplainRequest(operation=operation, id=doc, user="alice"))


def subjects(store: QuadStore, graph: ox.NamedNode | ox.DefaultGraph) -> set[str]:
    return {
        q.subject.value
        for q in store.quads_for_pattern(None, None, None, graph)
        if isinstance(q.subject, ox.NamedNode)
    }


def default_edges(store: QuadStore) -> set[tuple[str, str, str]]:
    return {
        (str(q.subject.value), q.predicate.value, str(q.object.value))
        for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph())
        if not isinstance(q.subject, ox.Triple) and not isinstance(q.object, ox.Triple)
    }


def test_delete_document_removes_provenance_and_unshared_facts(stores: Backend) -> None:
    handle = handle_of(stores)
    op(stores, "delete-document", DOC)
    source = subjects(handle.store, ox.NamedNode(GRAPH_SOURCE))
    assert not {s for s in source if s == DOC or s.startswith(DOC + "/")}
    assert DOC2 in source and uris.subgraph_uri(uris.chunk_uri(DOC2, 0)) in source
    assert (
        uris.component_uri("chunker") in source and uris.component_uri("decoder") in source
    )  # shared agents stay
    edges = default_edges(handle.store)
    assert (FOX, JUMPS, DOG) not in edges and (
        CAT,
        CHASES,
        FOX,
    ) in edges  # the cat edge is d2's too
    labelled = {s for s, p, _ in edges if p.endswith("#label")}
    assert labelled == {FOX, CAT, CHASES}  # dog and "jumps over" no longer used by any edge
    with pytest.raises(ServiceError) as err:
        op(stores, "document-hierarchy", DOC)
    assert err.value.type == "not-found"


def test_delete_document_unknown_or_repeated_is_not_found(stores: Backend) -> None:
    op(stores, "delete-document", DOC2)
    for doc in (DOC2, "urn:trustgraph:doc:missing", "missing"):
        with pytest.raises(ServiceError) as err:
            op(stores, "delete-document", doc)
        assert err.value.type == "not-found"
    with pytest.raises(ServiceError) as err:
        explain_op(stores, ExplainRequest(operation="delete-document", id=DOC, user="nobody"))
    assert err.value.type == "not-found"
    with pytest.raises(ServiceError) as err:
        op(stores, "delete-document", "urn:bad iri")
    assert err.value.type == "bad-request"
    handle = handle_of(stores)
    assert (CAT, CHASES, FOX) in default_edges(handle.store)  # d1 still holds it
    assert (FOX, JUMPS, DOG) in default_edges(handle.store)
    assert not {s for s in subjects(handle.store, ox.NamedNode(GRAPH_SOURCE)) if s.startswith(DOC2)}
