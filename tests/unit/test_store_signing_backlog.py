"""Ended traces signed a moment later, in batches (the embedded store's backlog): nothing
reads as unsigned meanwhile, one log write signs many, and a store stopped before signing
(its process killed: nothing flushed, nothing closed in order) signs them at its next start."""

from __future__ import annotations

from pathlib import Path

from tests.support.store import agent, deferred_seal, graph_rag, handle_of, msg
from trustgraph_base.provenance import uris
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.embedded.trace_index import TraceIndex
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch

A1, G1, G2 = (uris.agent_session_uri("a1"), *map(uris.graph_rag_question_uri, ("g1", "g2")))
SUB = uris.graph_rag_question_uri("g-sub")


def held(stores: Stores) -> list[str]:
    index = handle_of(stores).index
    assert isinstance(index, TraceIndex)
    return index.held()


def entries(stores: Stores) -> list[str]:
    """The trace roots of the log's entries, in chain order."""
    found = log.entries(handle_of(stores).store).get("local", [])
    return [s.entry.subject for _, s in sorted(found, key=lambda x: x[0])]


def verify(stores: Stores, seal: Seal, operation: str, ident: str = "") -> bool:
    req = ExplainRequest(operation=operation, id=ident, user="alice")
    found = explain_op(stores, req, seal).verification
    assert found is not None
    return found.verified


def test_ended_traces_wait_then_are_signed_together(tmp_path: Path) -> None:
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    write_batch(stores, [msg(agent("a1", 3, "g-sub")), msg(graph_rag("g1", 1))], seal)
    write_batch(stores, [msg(graph_rag("g2", 2, finished=False))], seal)
    h = handle_of(stores)
    assert entries(stores) == [] and held(stores) == sorted([A1, SUB, G1])  # noted, not signed
    assert seal.backlog is not None and seal.backlog.waiting()
    assert seal.flush(stores) == 3
    assert sorted(entries(stores)) == sorted([A1, SUB, G1]) and held(stores) == []
    heads = log.heads(h.store)
    assert heads["local"].seq == 2  # one checkpoint for the three: one log write
    write_batch(stores, [msg(graph_rag("g2", 2))], seal)  # g2 ends: waits in its turn
    assert verify(stores, seal, "verify-trace", "g2")  # a verification signs the backlog first
    assert entries(stores)[-1] == G2 and verify(stores, seal, "verify-log")
    stores.close()


def test_a_killed_store_signs_what_it_left_at_its_next_start(tmp_path: Path) -> None:
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    write_batch(stores, [msg(graph_rag("g1", 1)), msg(graph_rag("g2", 2))], seal)
    assert entries(stores) == []
    # The process dies here: the seal's memory is gone (no flush); the batch was acked.
    stores.close()
    again, reopened = deferred_seal(tmp_path), Stores(tmp_path / "store")
    assert again.backlog is not None and again.backlog.waiting()  # named by the journal
    assert again.flush(reopened) == 2
    assert sorted(entries(reopened)) == sorted([G1, G2])
    assert verify(reopened, again, "verify-log")
    assert (tmp_path / "data" / "signing" / "unsigned").read_text() == ""  # nothing waits
    reopened.close()


def test_a_trace_deleted_while_it_waits_is_signed_then_erased(tmp_path: Path) -> None:
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    write_batch(stores, [msg(graph_rag("g1", 1))], seal)
    req = ExplainRequest(operation="delete-trace", id="g1", user="alice")
    explain_op(stores, req, seal)
    [(_, signed)] = log.of_subject(handle_of(stores).store, G1)
    assert signed.tombstone is not None and signed.tombstone.reason == "delete-trace request"
    assert verify(stores, seal, "verify-log")
    stores.close()


def test_a_long_backlog_is_signed_by_the_writer_itself(tmp_path: Path) -> None:
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    assert seal.backlog is not None
    seal.backlog.limit = 3
    write_batch(stores, [msg(graph_rag(f"g{n}", n)) for n in (1, 2)], seal)
    assert entries(stores) == []
    write_batch(stores, [msg(graph_rag("g3", 3))], seal)  # the third: over the limit
    assert len(entries(stores)) == 3 and held(stores) == []
    stores.close()
