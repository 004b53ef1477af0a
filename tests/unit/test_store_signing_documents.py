"""A document's extraction provenance signed when the librarian says it is complete (the
store's seal-document), on a real store (on disk, or the test's SPARQL server): a hand edit
is named, provenance written late signs it again, removal leaves a tombstone. Its extraction
activities are named in the reference's form (``https://trustgraph.ai/activity/{uuid}``, no
document in the URI): the signature covers them, a late write of an activity's facts
alone signs the document again, and removal takes them away."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import store_backend
from tests.support.store import DOC, document, handle_of, msg
from trustgraph_base.provenance import PROV, TG, uris
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


@pytest.fixture
def seal(tmp_path: Path) -> Seal:
    return open_seal(
        data_dir=str(tmp_path / "d"), key_file="", public_dir="", chain="", server=False
    )


def late(triples: list[Triple]) -> set[str]:
    """The subjects of the second page's provenance: what the last messages carry (its
    entities, and the activities that read them)."""
    p2 = {t.s.i for t in triples if isinstance(t.s, IriTerm) and "/p2" in t.s.i}
    return p2 | {t.s.i for t in triples if t.p == PROV.used and getattr(t.o, "i", "") in p2}  # type: ignore[union-attr]


@pytest.fixture
def stores(tmp_path: Path, seal: Seal) -> Backend:
    s = store_backend(tmp_path / "store")
    write_batch(s, [msg(document(), "doc")], seal)
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
    last = late(document())
    write_batch(s, [msg([t for t in document() if t.s.i not in last], "first")], seal)  # type: ignore[union-attr]
    op(s, seal, "seal-document")  # the librarian's request came before the last triples
    write_batch(s, [msg([t for t in document() if t.s.i in last], "last")], seal)  # type: ignore[union-attr]
    assert_signed_again(s, seal)


def assert_signed_again(stores: Backend, seal: Seal) -> None:
    """The document verifies, signed once at the seal and once more for the late write."""
    v = verified(stores, seal)
    assert v.verified, v.problems
    reasons = sorted(e.entry.reason for _, e in log.of_subject(handle_of(stores).store, DOC))
    assert reasons == ["", "extraction provenance written after it was signed"]


def test_a_document_signed_twice_is_one_erased_document(tmp_path: Path, seal: Seal) -> None:
    """Each of its entries gets a tombstone (the log counts two), and verify-log says whose:
    'tg-verify-log' read '2 erased' to a user who had removed one document."""
    s = store_backend(tmp_path / "late")
    last = late(document())
    write_batch(s, [msg([t for t in document() if t.s.i not in last], "first")], seal)  # type: ignore[union-attr]
    op(s, seal, "seal-document")
    write_batch(s, [msg([t for t in document() if t.s.i in last], "last")], seal)  # type: ignore[union-attr]
    op(s, seal, "delete-document", reason="takedown 10")
    whole = op(s, seal, "verify-log").verification
    assert whole is not None and whole.verified, whole
    assert (whole.erased, whole.erased_kinds) == (2, {"document": 1})
    first = op(s, seal, "verify-log", cursor="", limit=1)  # a page an entry: counted once
    rest = op(s, seal, "verify-log", cursor=first.cursor, limit=1)
    assert first.cursor and first.verification is not None and rest.verification is not None
    kinds = [first.verification.erased_kinds, rest.verification.erased_kinds]
    assert kinds == [{}, {"document": 1}], kinds


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
        if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(uris.ACTIVITY_PREFIX)
    ]


def name(quad: ox.Quad) -> str:
    assert isinstance(quad.subject, ox.NamedNode)
    return quad.subject.value


def test_the_signature_covers_the_activities(stores: Backend, seal: Seal) -> None:
    named = {q.subject for q in activities(stores)}
    assert len(named) == 6  # a decode, 2 chunkings, 3 extractions
    op(stores, seal, "seal-document")
    assert verified(stores, seal).verified
    started = next(q for q in activities(stores) if q.predicate.value.endswith("startedAtTime"))
    store = handle_of(stores).store
    store.remove(started)
    store.extend([ox.Quad(started.subject, started.predicate, ox.Literal("1999-01-01"), SOURCE)])
    v = verified(stores, seal)
    assert [p.message for p in v.problems] == [
        f"{DOC}: <{name(started)}> was changed since it was signed"
    ]


def test_an_activitys_late_facts_sign_the_document_again(stores: Backend, seal: Seal) -> None:
    op(stores, seal, "seal-document")
    activity = name(activities(stores)[0])
    note = Triple(
        s=IriTerm(i=activity), p=TG.llmModel, o=LiteralTerm(v="late-model"), g=SOURCE.value
    )
    write_batch(stores, [msg([note], "late")], seal)
    assert_signed_again(stores, seal)


def test_removal_takes_the_activities(stores: Backend, seal: Seal) -> None:
    op(stores, seal, "seal-document")
    op(stores, seal, "delete-document", reason="takedown")
    assert activities(stores) == []
    assert verified(stores, seal).traces[0].status == "erased"
