"""A document's extraction provenance signed when the librarian says it is complete (the
store's seal-document), on a real store (on disk, or the test's SPARQL server): a hand edit
is named, provenance written late signs it again, removal leaves a tombstone. With its
extraction activities named in the reference's form (``https://trustgraph.ai/activity/{uuid}``,
no document in the URI) the signature still covers them, a late write of an activity's facts
alone signs the document again, and removal takes them away."""

from __future__ import annotations

import uuid
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import store_backend
from tests.support.store import DOC, document, handle_of, msg
from trustgraph_base.provenance import TG, uris
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_base.schema.integrity import Verification
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.lookup import SOURCE

P2 = uris.page_uri(DOC, 2)
ACTIVITY = "https://trustgraph.ai/activity/"


@pytest.fixture
def seal(tmp_path: Path) -> Seal:
    return open_seal(
        data_dir=str(tmp_path / "d"), key_file="", public_dir="", chain="", server=False
    )


def late(triple: Triple) -> bool:
    """The second page's provenance: what the extractor's last messages carry."""
    return isinstance(triple.s, IriTerm) and "/p2" in triple.s.i


@pytest.fixture
def stores(tmp_path: Path, seal: Seal) -> Backend:
    s = store_backend(tmp_path / "store")
    write_batch(s, [msg(document(), "doc")], seal)
    return s


def _named(term: object) -> object:
    if isinstance(term, IriTerm) and "/activity/" in term.i and not term.i.startswith(ACTIVITY):
        return IriTerm(i=ACTIVITY + str(uuid.uuid5(uuid.NAMESPACE_URL, term.i)))
    return term


def reference_form(triples: list[Triple]) -> list[Triple]:
    """The triples with each activity named as the reference names it."""
    return [Triple(s=_named(t.s), p=t.p, o=_named(t.o), g=t.g) for t in triples]


@pytest.fixture
def referenced(tmp_path: Path, seal: Seal) -> Backend:
    """The document with its activities named in the reference's form."""
    s = store_backend(tmp_path / "referenced")
    write_batch(s, [msg(reference_form(document()), "doc")], seal)
    return s


def op(
    stores: Backend, seal: Seal, operation: str, ident: str = DOC, **extra: object
) -> ExplainResponse:
    req = ExplainRequest(operation=operation, id=ident, user="alice", **extra)
    return explain_op(stores, req, seal)


def verified(stores: Backend, seal: Seal) -> Verification:
    found = op(stores, seal, "verify-trace").verification
    assert found is not None
    return found


def test_a_complete_document_is_signed_and_verifies(stores: Backend, seal: Seal) -> None:
    assert verified(stores, seal).problems[0].code == "unsigned"  # not complete yet
    assert op(stores, seal, "seal-document").count == 1
    assert op(stores, seal, "seal-document").count == 0  # asked again: unchanged, nothing added
    v = verified(stores, seal)
    assert v.verified and [(c.id, c.status) for c in v.traces] == [(DOC, "verified")]
    assert v.traces[0].count > 30
    whole = op(stores, seal, "verify-log").verification
    assert whole is not None and whole.verified and whole.entries == 1


def test_a_hand_edit_of_its_provenance_is_named(stores: Backend, seal: Seal) -> None:
    op(stores, seal, "seal-document")
    h = handle_of(stores)
    chunk = ox.NamedNode(uris.chunk_uri(uris.page_uri(DOC, 1), 0))
    [old] = [
        q
        for q in h.store.quads_for_pattern(chunk, None, None, SOURCE)
        if "charOffset" in q.predicate.value
    ]
    assert isinstance(old.object, ox.Literal)
    h.store.remove(old)
    edited = ox.Literal("7", datatype=old.object.datatype)
    h.store.extend([ox.Quad(chunk, old.predicate, edited, SOURCE)])
    v = verified(stores, seal)
    assert [p.message for p in v.problems] == [
        f"{DOC}: <{chunk.value}> was changed since it was signed"
    ]


def test_provenance_written_after_the_seal_signs_it_again(tmp_path: Path, seal: Seal) -> None:
    s = store_backend(tmp_path / "late")
    write_batch(s, [msg([t for t in document() if not late(t)], "first")], seal)
    op(s, seal, "seal-document")  # the librarian's request came before the last triples
    write_batch(s, [msg([t for t in document() if late(t)], "last")], seal)
    assert_signed_again(s, seal)


def assert_signed_again(stores: Backend, seal: Seal) -> None:
    """The document verifies, signed once at the seal and once more for the late write."""
    v = verified(stores, seal)
    assert v.verified, v.problems
    reasons = sorted(e.entry.reason for _, e in log.of_subject(handle_of(stores).store, DOC))
    assert reasons == ["", "extraction provenance written after it was signed"]


def test_removing_the_document_leaves_a_tombstone(stores: Backend, seal: Seal) -> None:
    op(stores, seal, "seal-document")
    op(stores, seal, "delete-document", reason="takedown 9")
    v = verified(stores, seal)
    assert v.verified and v.traces[0].status == "erased"
    assert v.traces[0].erased == "document removed: takedown 9"


def activities(stores: Backend) -> list[ox.Quad]:
    store = handle_of(stores).store
    return [
        q
        for q in store.quads_for_pattern(None, None, None, SOURCE)
        if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(ACTIVITY)
    ]


def name(quad: ox.Quad) -> str:
    assert isinstance(quad.subject, ox.NamedNode)
    return quad.subject.value


def test_the_signature_covers_the_activities(referenced: Backend, seal: Seal) -> None:
    named = {q.subject for q in activities(referenced)}
    assert len(named) == 6  # a decode, 2 chunkings, 3 extractions
    op(referenced, seal, "seal-document")
    assert verified(referenced, seal).verified
    started = next(q for q in activities(referenced) if q.predicate.value.endswith("startedAtTime"))
    store = handle_of(referenced).store
    store.remove(started)
    store.extend([ox.Quad(started.subject, started.predicate, ox.Literal("1999-01-01"), SOURCE)])
    v = verified(referenced, seal)
    assert [p.message for p in v.problems] == [
        f"{DOC}: <{name(started)}> was changed since it was signed"
    ]


def test_an_activitys_late_facts_sign_the_document_again(referenced: Backend, seal: Seal) -> None:
    op(referenced, seal, "seal-document")
    activity = name(activities(referenced)[0])
    note = Triple(
        s=IriTerm(i=activity), p=TG.llmModel, o=LiteralTerm(v="late-model"), g=SOURCE.value
    )
    write_batch(referenced, [msg([note], "late")], seal)
    assert_signed_again(referenced, seal)


def test_removal_takes_the_activities(referenced: Backend, seal: Seal) -> None:
    op(referenced, seal, "seal-document")
    op(referenced, seal, "delete-document", reason="takedown")
    assert activities(referenced) == []
    assert verified(referenced, seal).traces[0].status == "erased"
