"""A signed trace written to again by its own restarted process is signed again, not
called tampered (issue 30): the run's messages sent again (quads the store has) beside new
ones on the same entity — the interrupted mark, a rerun's step — in one batch or several,
with the store restarted in between; and a hand edit still shows through all of it. On
both backends (``TG_TEST_STORE=server``)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import server_mode, store_backend
from tests.support.store import agent, handle_of, msg
from trustgraph_base.provenance import interrupted_triples, uris
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_base.schema.integrity import Verification
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance import log, resign
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.lookup import RETRIEVAL

A1 = uris.agent_session_uri("a1")
FINAL = uris.agent_final_uri(A1)
TRACE = agent("a1", 3, "g-sub")
KILLED = "the agent process stopped before this run finished"


def started(tmp_path: Path) -> tuple[Backend, Seal]:
    """The store as a store process opens it (again after a restart: same data, same key)."""
    seal = open_seal(
        data_dir=str(tmp_path / "data"),
        key_file="",
        public_dir="",
        chain="replica" if server_mode() else "",
        server=server_mode(),
        defer=True,
    )
    return store_backend(tmp_path / "store"), seal


def of(subject: str, triples: list[Triple] = TRACE) -> list[Triple]:
    return [t for t in triples if isinstance(t.s, IriTerm) and t.s.i == subject]


def mark() -> list[Triple]:
    return interrupted_triples(A1, RETRIEVAL.value, KILLED, "2026-12-05T10:00:00Z")


def usage(subject: str) -> list[Triple]:
    """A quad the first process had not sent yet (its rerun's, say) on an entity the store has."""
    tokens = IriTerm(i="urn:test:tokens")
    return [Triple(s=IriTerm(i=subject), p=tokens, o=LiteralTerm(v="12"), g=RETRIEVAL.value)]


def verify(stores: Backend, seal: Seal) -> Verification:
    req = ExplainRequest(operation="verify-trace", id="a1", user="alice")
    found = explain_op(stores, req, seal).verification
    assert found is not None
    return found


def answered(tmp_path: Path) -> tuple[Backend, Seal]:
    stores, seal = started(tmp_path)
    write_batch(stores, [msg(TRACE)], seal)
    seal.flush(stores)
    assert verify(stores, seal).verified
    return stores, seal


def test_messages_sent_again_beside_the_interrupted_mark_are_signed_again(tmp_path: Path) -> None:
    stores, seal = answered(tmp_path)
    # The restarted agent's journal: the run's first message again, then the mark, one batch.
    write_batch(stores, [msg(of(A1), A1), msg(mark(), A1)], seal)
    v = verify(stores, seal)
    assert v.verified, [p.message for p in v.problems]
    found = log.of_subject(handle_of(stores).store, A1)
    signed = sorted((s.entry for _, s in found), key=lambda e: e.seq)
    assert len(signed) == 2 and signed[-1].count == signed[0].count + 2
    stores.close()


def test_a_restarts_writes_across_batches_and_a_store_restart_are_signed_again(
    tmp_path: Path,
) -> None:
    stores, seal = answered(tmp_path)
    write_batch(stores, [msg(of(FINAL) + usage(FINAL), FINAL)], seal)  # old and new, one entity
    stores.close()  # the store restarts: its seal's memory of that batch is gone
    stores, seal = started(tmp_path)
    seal.flush(stores)
    write_batch(stores, [msg(of(A1) + mark(), A1), msg(of(FINAL), FINAL)], seal)
    write_batch(stores, [msg(of(A1) + usage(A1), A1)], seal)
    v = verify(stores, seal)
    assert v.verified, [p.message for p in v.problems]
    assert len(log.of_subject(handle_of(stores).store, A1)) == 4  # signed, then once a write
    stores.close()


def test_a_hand_edit_shows_through_a_restarts_writes(tmp_path: Path) -> None:
    stores, seal = answered(tmp_path)
    h = handle_of(stores)
    final, answer = ox.NamedNode(FINAL), ox.NamedNode("https://trustgraph.ai/ns/answer")
    [old] = list(h.store.quads_for_pattern(final, answer, None, RETRIEVAL))
    h.store.remove(old)
    h.store.extend([ox.Quad(final, answer, ox.Literal("The Thames."), RETRIEVAL)])
    # The restart's writes touch the edited entity and the root, old quads beside new ones.
    write_batch(stores, [msg(of(FINAL) + usage(FINAL), FINAL), msg(of(A1) + mark(), A1)], seal)
    write_batch(stores, [msg(of(A1) + usage(A1), A1)], seal)
    v = verify(stores, seal)
    assert not v.verified
    assert f"{A1}: <{FINAL}> was changed since it was signed" in [p.message for p in v.problems]
    assert len(log.of_subject(h.store, A1)) == 1  # never signed over
    stores.close()


def test_a_quad_added_by_hand_beside_a_restarts_write_is_not_signed_over(tmp_path: Path) -> None:
    stores, seal = answered(tmp_path)
    h = handle_of(stores)
    [hand] = usage(A1)
    h.store.extend([ox.Quad(ox.NamedNode(A1), ox.NamedNode(hand.p.i), ox.Literal("99"), RETRIEVAL)])
    write_batch(stores, [msg(of(A1) + mark(), A1)], seal)
    v = verify(stores, seal)
    assert not v.verified
    assert [p.message for p in v.problems] == [f"{A1}: <{A1}> was changed since it was signed"]
    assert len(log.of_subject(h.store, A1)) == 1
    stores.close()


def test_a_write_too_mixed_to_search_is_not_signed_over_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    stores, seal = answered(tmp_path)
    monkeypatch.setattr(resign, "LINES", 1)  # fewer lines than one digest of the root
    write_batch(stores, [msg(of(A1), A1), msg(mark(), A1)], seal)
    assert "too many ways this write could have changed it" in caplog.text
    assert not verify(stores, seal).verified  # kept its signature: the change stays named
    assert len(log.of_subject(handle_of(stores).store, A1)) == 1
    stores.close()
