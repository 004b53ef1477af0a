"""Offsets and lengths written before they took the reference's form (``tg:charOffset
"0"^^xsd:integer``, docs/conformance.md) become plain literals at start, on both backends: on a
document's chunks (signed again, still verified) and on a trace's claims (the same); what the
views show is unchanged; idempotent; resumed when killed; an edit never signed over."""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox
import pytest

from tests.support.migration import killed_at, seal_fixture
from tests.support.store import DOC, document, graph_rag, handle_of, msg
from trustgraph_base.provenance import uris
from trustgraph_base.provenance.common import integer_literal
from trustgraph_base.provenance.evidence import ClaimSpec, claim_triples
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.rdf.terms import LiteralTerm, Triple
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance.documents import seal_document
from trustgraph_flow.store.governance.migrate import migrate
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.governance.verify import verify_document, verify_trace
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import explain, hierarchy
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, n

seal = seal_fixture()
QUESTION = uris.graph_rag_question_uri("g-spans")
SYNTHESIS = uris.synthesis_uri(QUESTION)
SPANS = (TG.charOffset.i, TG.charLength.i)


def typed_as_before(triples: list[Triple]) -> list[Triple]:
    """Offsets and lengths as the builders wrote them before: ``xsd:integer``."""
    return [
        t.model_copy(update={"o": integer_literal(int(t.o.v))})
        if t.p.i in SPANS and isinstance(t.o, LiteralTerm)
        else t
        for t in triples
    ]


@pytest.fixture
def old_store(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    stores = make_backend()
    write_batch(stores, [msg(typed_as_before(document()), "doc")], seal)
    assert seal_document(handle_of(stores), seal, DOC) is not None
    claims = [ClaimSpec("It jumps over the dog.", 0, 22, (uris.focus_edge_uri(QUESTION, 1),))]
    trace = graph_rag("g-spans", 1) + claim_triples(SYNTHESIS, claims)
    write_batch(stores, [msg(typed_as_before(trace), "trace")], seal)
    assert verify_trace(handle_of(stores), seal.keys, QUESTION).verified
    return stores


def forms(stores: Backend, graph: ox.NamedNode) -> set[str]:
    """Each offset's and length's datatype in ``graph`` (plain: xsd:string)."""
    h = handle_of(stores)
    return {
        q.object.datatype.value  # type: ignore[union-attr]
        for p in (TG.charOffset, TG.charLength)
        for q in h.store.quads_for_pattern(None, n(p), None, graph)
    }


def chunk_span(stores: Backend) -> tuple[int, int]:
    tree = hierarchy.document_view(handle_of(stores).store, DOC)
    assert tree is not None
    chunks = [c for page in tree.pages for c in page.chunks]
    return chunks[0].char_offset, chunks[-1].char_length


XSD_STRING, XSD_INTEGER = (
    "http://www.w3.org/2001/XMLSchema#string",
    "http://www.w3.org/2001/XMLSchema#integer",
)


def test_old_spans_become_plain_and_still_verify(old_store: Backend, seal: Seal) -> None:
    assert forms(old_store, SOURCE) == forms(old_store, RETRIEVAL) == {XSD_INTEGER}
    shown = chunk_span(old_store)
    assert migrate(old_store, seal) > 0
    assert forms(old_store, SOURCE) == forms(old_store, RETRIEVAL) == {XSD_STRING}
    assert chunk_span(old_store) == shown
    [claim] = explain.get_trace(handle_of(old_store), QUESTION, include_provenance=False).claims
    assert (claim.offset, claim.length) == (0, 22)
    checked = verify_document(handle_of(old_store), seal.keys, DOC)
    assert checked.verified, checked.problems
    checked = verify_trace(handle_of(old_store), seal.keys, QUESTION)
    assert checked.verified, checked.problems
    assert migrate(old_store, seal) == 0


def test_a_killed_migration_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    with killed_at(monkeypatch, "append"):
        migrate(old_store, seal)
    assert not verify_document(handle_of(old_store), seal.keys, DOC).verified
    migrate(old_store, seal)
    assert forms(old_store, SOURCE) == forms(old_store, RETRIEVAL) == {XSD_STRING}
    for check in (verify_document(handle_of(old_store), seal.keys, DOC),
                  verify_trace(handle_of(old_store), seal.keys, QUESTION)):  # fmt: skip
        assert check.verified, check.problems


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
