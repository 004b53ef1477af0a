"""A document's extraction provenance signed when the librarian says it is complete (the
store's seal-document), on a real store (on disk, or the test's SPARQL server): a hand edit
is named, provenance written late signs it again, removal leaves a tombstone."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import store_backend
from tests.support.store import DOC, document, handle_of, msg
from trustgraph_base.provenance import uris
from trustgraph_base.rdf.terms import IriTerm, Triple
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


def late(triple: Triple) -> bool:
    """The second page's provenance: what the extractor's last messages carry."""
    return isinstance(triple.s, IriTerm) and "/p2" in triple.s.i


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
    write_batch(s, [msg([t for t in document() if not late(t)], "first")], seal)
    op(s, seal, "seal-document")  # the librarian's request came before the last triples
    write_batch(s, [msg([t for t in document() if late(t)], "last")], seal)
    v = verified(s, seal)
    assert v.verified, v.problems
    reasons = sorted(e.entry.reason for _, e in log.of_subject(handle_of(s).store, DOC))
    assert reasons == ["", "extraction provenance written after it was signed"]


def test_removing_the_document_leaves_a_tombstone(stores: Backend, seal: Seal) -> None:
    op(stores, seal, "seal-document")
    op(stores, seal, "delete-document", reason="takedown 9")
    v = verified(stores, seal)
    assert v.verified and v.traces[0].status == "erased"
    assert v.traces[0].erased == "document removed: takedown 9"
