"""Offsets, lengths, counts and scores written before they took the reference's form
(``tg:charOffset "0"^^xsd:integer``, ``tg:inToken "10"^^xsd:integer``, a ranked chunk's
``tg:score "0.9"^^xsd:double``; docs/conformance.md) become plain literals at start, on both
backends: on a document's pages, chunks and activities (signed again, still verified) and on
traces (the same); what the views show is unchanged; idempotent; resumed when killed; an edit
never signed over."""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox
import pytest

from tests.support.migration import assert_verified, killed_then_resumed, seal_fixture
from tests.support.store import DOC, document, graph_rag, handle_of, msg
from trustgraph_base.provenance import (
    docrag_exploration_triples,
    docrag_question_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.provenance.common import datetime_literal, integer_literal
from trustgraph_base.provenance.evidence import ClaimSpec, claim_triples
from trustgraph_base.provenance.namespaces import PROV, TG, XSD
from trustgraph_base.rdf.terms import LiteralTerm, Triple
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance.documents import seal_document
from trustgraph_flow.store.governance.migrate import migrate
from trustgraph_flow.store.governance.migrate_plain import NUMBERS, SPANS
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.governance.verify import verify_document, verify_trace
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import explain, hierarchy
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, n
from trustgraph_flow.store.views.prov_export import prov_document

seal = seal_fixture()
QUESTION = uris.graph_rag_question_uri("g-spans")
SYNTHESIS = uris.synthesis_uri(QUESTION)
DOCRAG = uris.docrag_question_uri("d-plain")
TYPED = {p.i: dt.value for p, dt in (SPANS | NUMBERS).items()}


def typed_as_before(triples: list[Triple]) -> list[Triple]:
    """Offsets, lengths, counts, scores and start times as the builders wrote them before:
    typed."""
    out = []
    for t in triples:
        if t.p.i == PROV.startedAtTime.i and isinstance(t.o, LiteralTerm):
            t = t.model_copy(update={"o": datetime_literal(t.o.v)})
        if t.p.i in TYPED and isinstance(t.o, LiteralTerm):
            typed = TYPED[t.p.i]
            old = (
                integer_literal(int(t.o.v))
                if typed == XSD.integer
                else LiteralTerm(v=t.o.v, dt=typed)
            )
            t = t.model_copy(update={"o": old})
        out.append(t)
    return out


@pytest.fixture
def old_store(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    stores = make_backend()
    write_batch(stores, [msg(typed_as_before(document()), "doc")], seal)
    assert seal_document(handle_of(stores), seal, DOC) is not None
    claims = [ClaimSpec("It jumps over the dog.", 0, 22, (uris.focus_edge_uri(QUESTION, 1),))]
    trace = graph_rag("g-spans", 1) + claim_triples(SYNTHESIS, claims)
    trace += docrag_question_triples(DOCRAG, "what is on page 1?", "2026-01-01T00:00:05Z")
    trace += docrag_exploration_triples(f"{DOCRAG}/exploration", DOCRAG, [f"{DOC}/p1/c0"], [0.9])
    trace += synthesis_triples(f"{DOCRAG}/synthesis", f"{DOCRAG}/exploration", "Foxes.")
    write_batch(stores, [msg(typed_as_before(trace), "trace")], seal)
    assert verify_trace(handle_of(stores), seal.keys, QUESTION).verified
    return stores


def forms(stores: Backend, graph: ox.NamedNode) -> set[str]:
    """The datatypes of every offset, length, count and score in ``graph`` (plain: xsd:string)."""
    h = handle_of(stores)
    return {
        q.object.datatype.value  # type: ignore[union-attr]
        for p in TYPED
        for q in h.store.quads_for_pattern(None, ox.NamedNode(p), None, graph)
    }


def chunk_span(stores: Backend) -> tuple[int, int, int, int]:
    tree = hierarchy.document_view(handle_of(stores).store, DOC)
    assert tree is not None
    chunks = [c for page in tree.pages for c in page.chunks]
    return tree.pages[-1].number, chunks[0].index, chunks[0].char_offset, chunks[-1].char_length


XSD_STRING, XSD_INTEGER, XSD_DOUBLE = XSD.string, XSD.integer, XSD.double


def traces(stores: Backend) -> tuple[object, ...]:
    """What tg-show-explain-trace shows of the figures migrated."""
    h = handle_of(stores)
    rag = explain.get_trace(h, QUESTION, include_provenance=False)
    doc = explain.get_trace(h, DOCRAG, include_provenance=False)
    return rag.edge_count, rag.metrics["synthesis"], doc.chunk_count, [c.score for c in doc.chunks]


def test_old_numbers_become_plain_and_still_verify(old_store: Backend, seal: Seal) -> None:
    assert forms(old_store, SOURCE) == {XSD_INTEGER}
    assert forms(old_store, RETRIEVAL) == {XSD_INTEGER, XSD_DOUBLE}
    shown = chunk_span(old_store), traces(old_store)
    assert migrate(old_store, seal) > 0
    assert forms(old_store, SOURCE) == forms(old_store, RETRIEVAL) == {XSD_STRING}
    assert (chunk_span(old_store), traces(old_store)) == shown
    [claim] = explain.get_trace(handle_of(old_store), QUESTION, include_provenance=False).claims
    assert (claim.offset, claim.length) == (0, 22)
    assert_verified(handle_of(old_store), seal.keys, (DOC,), (QUESTION, DOCRAG))
    assert migrate(old_store, seal) == 0


def test_a_killed_migration_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    verified = lambda: verify_document(handle_of(old_store), seal.keys, DOC).verified  # noqa: E731
    killed_then_resumed(monkeypatch, old_store, seal, verified)
    assert forms(old_store, SOURCE) == forms(old_store, RETRIEVAL) == {XSD_STRING}
    assert_verified(handle_of(old_store), seal.keys, (DOC,), (QUESTION, DOCRAG))


def test_an_edited_document_is_migrated_but_not_signed_over(old_store: Backend, seal: Seal) -> None:
    h = handle_of(old_store)
    chunk = ox.NamedNode(f"{DOC}/p1/c0")
    [length] = h.store.quads_for_pattern(chunk, n(TG.charLength), None, SOURCE)
    h.store.remove(length)
    seven = ox.Literal("7", datatype=ox.NamedNode(XSD_INTEGER))
    h.store.extend([ox.Quad(chunk, n(TG.charLength), seven, SOURCE)])
    migrate(old_store, seal)
    assert forms(old_store, SOURCE) == {XSD_STRING}
    assert not verify_document(handle_of(old_store), seal.keys, DOC).verified
    assert verify_trace(handle_of(old_store), seal.keys, QUESTION).verified


def start_times(stores: Backend, graph: ox.NamedNode) -> set[str]:
    h = handle_of(stores)
    quads = h.store.quads_for_pattern(None, n(PROV.startedAtTime), None, graph)
    return {q.object.datatype.value for q in quads}  # type: ignore[union-attr]


def test_extraction_start_times_become_plain_and_export_as_prov_times(
    old_store: Backend, seal: Seal
) -> None:
    """An extraction activity's start, typed before, is the reference's plain literal after
    the migration (a question's stays SPEC's xsd:dateTime); the PROV export still reads it as
    the activity's start time (the prov package requires a datetime)."""
    assert start_times(old_store, SOURCE) == start_times(old_store, RETRIEVAL) == {XSD.dateTime}
    migrate(old_store, seal)
    assert start_times(old_store, SOURCE) == {XSD_STRING}
    assert start_times(old_store, RETRIEVAL) == {XSD.dateTime}
    assert_verified(handle_of(old_store), seal.keys, (DOC,), (QUESTION, DOCRAG))
    source = list(handle_of(old_store).store.quads_for_pattern(None, None, None, SOURCE))
    doc = prov_document(source)
    records = [r for b in doc.bundles for r in b.get_records()]  # type: ignore[attr-defined]
    starts = {
        r.identifier.uri: r.get_startTime().isoformat()
        for r in records
        if hasattr(r, "get_startTime") and r.get_startTime() is not None
    }
    assert starts[uris.activity_uri(DOC, "decode")] == "2026-01-01T00:00:00+00:00"
    assert len(starts) == 6  # a decode, a chunking per page, an extraction per chunk
