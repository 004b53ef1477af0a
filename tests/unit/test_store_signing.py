"""Signed traces and the append-only log on a real store (on disk, or the test's SPARQL
server): each kind of tampering past the gateway is detected and named; erasure still verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
)
from trustgraph_base.errors import ServiceError
from trustgraph_base.provenance import uris
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_base.schema.integrity import Verification
from trustgraph_flow.store.backends.embedded import trace_sql
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.governance import log, text_read, verify
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.lookup import RETRIEVAL

A1, G1 = uris.agent_session_uri("a1"), uris.graph_rag_question_uri("g1")
SUB = uris.graph_rag_question_uri("g-sub")


@pytest.fixture
def seal(tmp_path: Path) -> Seal:
    return open_seal(
        data_dir=str(tmp_path / "data"), key_file="", public_dir="", chain="", server=False
    )


@pytest.fixture
def stores(tmp_path: Path, seal: Seal) -> Backend:
    s = store_backend(tmp_path / "store")
    facts = [Triple(s=e[0], p=e[1], o=e[2]) for e in (EDGE_FOX, EDGE_CAT)]
    write_batch(s, [msg(document() + labels() + facts, "doc")], seal)
    write_batch(
        s, [msg(agent("a1", 3, "g-sub")), msg(graph_rag("g1", 1)), msg(doc_rag("d1", 2))], seal
    )
    return s


def op(
    stores: Backend, seal: Seal, operation: str, ident: str = "", **extra: object
) -> Verification:
    req = ExplainRequest(operation=operation, id=ident, user="alice", **extra)
    found = explain_op(stores, req, seal).verification
    assert found is not None or operation not in ("verify-trace", "verify-log")
    if operation == "verify-log" and seal is not None:
        for size in (1, 2, 1000):  # in pages, across every boundary: the same findings
            paged = paged_log(stores, seal, size)
            assert found is not None and sorted(codes(paged)) == sorted(codes(found))
            assert (paged.verified, paged.entries, paged.erased, paged.erased_kinds) == (
                found.verified,
                found.entries,
                found.erased,
                found.erased_kinds,
            )
    return found  # type: ignore[return-value]


def paged_log(stores: Backend, seal: Seal, size: int) -> Verification:
    """verify-log a page of ``size`` entries at a time, the pages' findings together."""
    pages, cursor = [], ""
    while cursor is not None:
        req = ExplainRequest(operation="verify-log", user="alice", cursor=cursor, limit=size)
        resp = explain_op(stores, req, seal)
        assert resp.verification is not None
        pages.append(resp.verification)
        cursor = resp.cursor  # type: ignore[assignment]
    problems = [p for v in pages for p in v.problems]
    return Verification(
        verified=not problems,
        problems=problems,
        entries=sum(v.entries for v in pages),
        erased=sum(v.erased for v in pages),
        erased_kinds={  # each erased subject counted on one page only
            k: sum(v.erased_kinds.get(k, 0) for v in pages)
            for k in {k for v in pages for k in v.erased_kinds}
        },
    )


def codes(v: Verification) -> list[str]:
    return [p.code for p in v.problems]


def records(handle: Handle) -> dict[ox.NamedNode, ox.Quad]:
    return {q.subject: q for q in handle.store.quads_for_pattern(None, log.RECORD, None, log.GRAPH)}  # type: ignore[misc]


def test_an_ended_trace_is_signed_and_verifies_with_its_sub_trace(
    stores: Backend, seal: Seal
) -> None:
    v = op(stores, seal, "verify-trace", "a1")
    assert v.verified, v.problems
    assert [(c.id, c.status) for c in v.traces] == [(A1, "verified"), (SUB, "verified")]
    assert all(c.key == seal.keys.kid and c.count > 0 and len(c.digest) == 64 for c in v.traces)
    whole = op(stores, seal, "verify-log")
    assert whole.verified and whole.entries == 4 and whole.chains == 1  # a1, its sub-trace, g1, d1


def test_a_trace_in_progress_is_not_signed_yet(stores: Backend, seal: Seal) -> None:
    write_batch(stores, [msg(graph_rag("g2", 5, finished=False))], seal)
    v = op(stores, seal, "verify-trace", "g2")
    assert not v.verified and v.problems == []
    assert [c.status for c in v.traces] == ["in-progress"]
    write_batch(stores, [msg(graph_rag("g2", 5))], seal)  # it ends: signed then
    assert op(stores, seal, "verify-trace", "g2").verified


def test_one_quad_edited_in_the_store_is_named(stores: Backend, seal: Seal) -> None:
    h = handle_of(stores)
    focus = ox.NamedNode(uris.focus_edge_uri(G1, 1))
    [old] = [
        q
        for q in h.store.quads_for_pattern(focus, None, None, RETRIEVAL)
        if isinstance(q.object, ox.Literal)
    ][:1]
    h.store.remove(old)
    h.store.extend([ox.Quad(old.subject, old.predicate, ox.Literal("the dog acts"), RETRIEVAL)])
    v = op(stores, seal, "verify-trace", "g1")
    assert not v.verified and codes(v) == ["changed"]
    assert v.problems[0].message == f"{G1}: <{focus.value}> was changed since it was signed"
    assert op(stores, seal, "verify-trace", "d1").verified  # the others are untouched


def test_a_trace_read_in_blocks_on_two_threads_verifies_and_names_an_edit(
    stores: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded store reads a long trace's entities in blocks, two at a time, beside
    the entry checks: here blocks of two entities, so each root's are split across them."""
    monkeypatch.setattr(text_read, "VALUES_MAX", 2)
    reads: list[dict[str, str]] = []

    def text_digests(*args: Any) -> dict[str, str]:
        reads.append(text_read.text_digests(*args))
        return reads[-1]

    monkeypatch.setattr(verify, "text_digests", text_digests)
    v = op(stores, seal, "verify-trace", "a1")
    assert v.verified and [c.status for c in v.traces] == ["verified", "verified"], v.problems
    if isinstance(handle_of(stores).store, ox.Store):  # read as text, not read back
        assert reads == [{c.id: c.digest for c in v.traces}]
    h = handle_of(stores)
    [old] = list(h.store.quads_for_pattern(ox.NamedNode(SUB), None, None, RETRIEVAL))[:1]
    h.store.remove(old)
    v = op(stores, seal, "verify-trace", "a1")
    assert [(c.id, c.status) for c in v.traces] == [(A1, "verified"), (SUB, "tampered")]
    assert codes(v) == ["changed"] and f"<{SUB}>" in v.problems[0].message


def test_a_trace_deleted_past_the_store_is_named(stores: Backend, seal: Seal) -> None:
    h = handle_of(stores)
    quads = [
        q
        for e in h.index.entities(G1)
        for q in h.store.quads_for_pattern(ox.NamedNode(e), None, None, RETRIEVAL)
    ]
    for q in quads:
        h.store.remove(q)
    v = op(stores, seal, "verify-trace", "g1")
    assert not v.verified and set(codes(v)) == {"changed"}
    assert any(p.message.endswith(f"<{G1}> was removed since it was signed") for p in v.problems)
    h.index.forget([G1])  # its index rows too: only the log remembers it
    gone = op(stores, seal, "verify-trace", "g1")
    assert codes(gone) == ["deleted"] and "deleted outside the store" in gone.problems[0].message
    assert codes(op(stores, seal, "verify-log")) == ["deleted"]


def test_a_reordered_log_is_named(stores: Backend, seal: Seal) -> None:
    h = handle_of(stores)
    found = records(h)
    one, two = log.entry_node("local", 1), log.entry_node("local", 2)
    for q in (found[one], found[two]):
        h.store.remove(q)
    h.store.extend(
        [
            ox.Quad(one, log.RECORD, found[two].object, log.GRAPH),
            ox.Quad(two, log.RECORD, found[one].object, log.GRAPH),
        ]
    )
    assert "position" in codes(op(stores, seal, "verify-log"))


def test_a_removed_log_entry_is_named(stores: Backend, seal: Seal) -> None:
    h = handle_of(stores)
    ((node, _),) = log.of_subject(h.store, SUB)
    for q in list(h.store.quads_for_pattern(node, None, None, log.GRAPH)):
        h.store.remove(q)
    assert codes(op(stores, seal, "verify-log")) == ["gap"]
    unsigned = [c for c in op(stores, seal, "verify-trace", "a1").traces if c.status == "unsigned"]
    assert len(unsigned) == 1 and "the log has no entry for it" in unsigned[0].problems[0].message


def test_two_traces_signatures_swapped_are_named(stores: Backend, seal: Seal) -> None:
    h = handle_of(stores)
    ((g_node, g_entry),) = log.of_subject(h.store, G1)
    d1 = uris.docrag_question_uri("d1")
    ((d_node, d_entry),) = log.of_subject(h.store, d1)
    found = records(h)
    for node, entry, sig in ((g_node, g_entry, d_entry.sig), (d_node, d_entry, g_entry.sig)):
        h.store.remove(found[node])
        text = entry.model_copy(update={"sig": sig}).model_dump_json(exclude={"tombstone"})
        h.store.extend([ox.Quad(node, log.RECORD, ox.Literal(text), log.GRAPH)])
    v = op(stores, seal, "verify-trace", "g1")
    assert codes(v) == ["moved"] and f"({d1})" in v.problems[0].message
    assert codes(op(stores, seal, "verify-log")).count("moved") == 2


def test_deletion_through_the_store_leaves_a_signed_tombstone(stores: Backend, seal: Seal) -> None:
    explain_op(stores, ExplainRequest(operation="delete-trace", id="a1", user="alice"), seal)
    v = op(stores, seal, "verify-trace", "a1")
    assert v.verified and [c.status for c in v.traces] == ["erased"]
    assert v.traces[0].erased == "delete-trace request"
    whole = op(stores, seal, "verify-log")
    assert whole.verified and whole.erased == 2  # the agent and its sub-trace
    assert whole.erased_kinds == {"trace": 2}


def test_a_document_erasure_signs_the_marked_traces_again(stores: Backend, seal: Seal) -> None:
    explain_op(
        stores,
        ExplainRequest(operation="delete-document", id=DOC, user="alice", reason="takedown 7"),
        seal,
    )
    v = op(stores, seal, "verify-trace", "g1")
    assert v.verified, v.problems
    h = handle_of(stores)
    reasons = sorted(s.entry.reason for _, s in log.of_subject(h.store, G1))
    assert reasons[0] == "" and reasons[1].startswith("erasure urn:trustgraph:erasure:")
    assert op(stores, seal, "verify-log").verified


def test_purging_with_the_document_leaves_tombstones_saying_why(
    stores: Backend, seal: Seal
) -> None:
    req = ExplainRequest(
        operation="delete-document", id=DOC, user="alice", reason="court order", purge_traces=True
    )
    explain_op(stores, req, seal)
    v = op(stores, seal, "verify-trace", "g1")
    assert v.verified and v.traces[0].erased == f"document {DOC} removed: court order"
    assert op(stores, seal, "verify-log").verified


def test_a_store_without_signing_says_so(stores: Backend) -> None:
    with pytest.raises(ServiceError, match="does not sign traces"):
        explain_op(stores, ExplainRequest(operation="verify-log", user="alice"))


def test_a_log_record_edited_into_garbage_is_named_and_writes_go_on(
    stores: Backend, seal: Seal
) -> None:
    h = handle_of(stores)
    ((node, _),) = log.of_subject(h.store, G1)
    h.store.remove(records(h)[node])
    h.store.extend([ox.Quad(node, log.RECORD, ox.Literal("{not json"), log.GRAPH)])
    found = op(stores, seal, "verify-log")
    assert sorted(codes(found)) == ["truncated", "unreadable"]  # g1 was the last entry
    assert any(str(node) in p.message and "edited by hand" in p.message for p in found.problems)
    assert [c.status for c in op(stores, seal, "verify-trace", "g1").traces] == ["unsigned"]
    write_batch(stores, [msg(graph_rag("g3", 9))], seal)  # the writer signs on regardless
    assert op(stores, seal, "verify-trace", "g3").verified


def test_a_hand_edit_is_not_signed_over_by_a_later_write(stores: Backend, seal: Seal) -> None:
    h = handle_of(stores)
    synthesis = ox.NamedNode(uris.synthesis_uri(G1))
    [old] = [
        q
        for q in h.store.quads_for_pattern(synthesis, None, None, RETRIEVAL)
        if isinstance(q.object, ox.Literal) and "dog" in q.object.value
    ]
    h.store.remove(old)
    h.store.extend([ox.Quad(synthesis, old.predicate, ox.Literal("It sleeps."), RETRIEVAL)])
    # The erasure marks g1's focus edge: a write to the trace, signed again if it were clean.
    req = ExplainRequest(operation="delete-document", id=DOC, user="alice", reason="takedown")
    explain_op(stores, req, seal)
    v = op(stores, seal, "verify-trace", "g1")
    assert [p.message for p in v.problems] == [
        f"{G1}: <{uris.focus_edge_uri(G1, 1)}> was changed since it was signed",  # the mark
        f"{G1}: <{synthesis.value}> was changed since it was signed",  # the hand edit
    ]
    assert [s.entry.reason for _, s in log.of_subject(h.store, G1)] == [""]  # not re-signed
    assert op(stores, seal, "verify-trace", "d1").verified  # a clean trace it marked was


def test_a_rotated_key_keeps_old_signatures_verifiable(
    tmp_path: Path, stores: Backend, seal: Seal
) -> None:
    from click.testing import CliRunner

    from trustgraph_cli.rotate_signing_key import main as rotate

    data = tmp_path / "data"
    # tg-start's --data-dir holds the store's under data/: the error names the folder to pass.
    started = CliRunner().invoke(rotate, ["--data-dir", str(tmp_path)])
    assert started.exit_code == 1 and f"pass --data-dir {data}" in started.output, started.output
    assert (tmp_path / "signing").exists() is False  # nothing written beside it
    done = CliRunner().invoke(rotate, ["--data-dir", str(data)])
    assert done.exit_code == 0 and f"signing key {seal.keys.kid} replaced by " in done.output
    # The store restarted: the new key, the chain continued from its checkpoint.
    again = open_seal(data_dir=str(data), key_file="", public_dir="", chain="", server=False)
    assert again.keys.kid != seal.keys.kid and seal.keys.kid in again.keys.public
    write_batch(stores, [msg(graph_rag("g9", 9))], again)
    assert op(stores, again, "verify-trace", "g1").verified  # the old key's
    fresh = op(stores, again, "verify-trace", "g9")
    assert fresh.verified and fresh.traces[0].key == again.keys.kid
    assert fresh.traces[0].entry == "local#4"
    whole = op(stores, again, "verify-log")
    assert whole.verified and whole.keys == sorted([seal.keys.kid, again.keys.kid])


def test_a_retention_purge_leaves_tombstones_saying_why(stores: Backend, seal: Seal) -> None:
    req = ExplainRequest(operation="purge-traces", older_than=3600, user="alice")
    assert explain_op(stores, req, seal).count == 3  # a1 (with its sub-trace), g1, d1
    whole = op(stores, seal, "verify-log")
    assert whole.verified and whole.erased == 4
    erased = op(stores, seal, "verify-trace", "g1").traces[0]
    assert (
        erased.status == "erased" and erased.erased == "retention: started more than 3600 s before"
    )


def test_the_log_read_in_pages_is_the_whole_log(stores: Backend, seal: Seal) -> None:
    whole = explain_op(stores, ExplainRequest(operation="audit-log", user="alice"), seal)
    expected = json.loads(whole.export or "")
    chains: dict[str, list[object]] = {}
    cursor: str | None = ""
    while cursor is not None:
        req = ExplainRequest(operation="audit-log", user="alice", cursor=cursor, limit=1)
        resp = explain_op(stores, req, seal)
        page = json.loads(resp.export or "")
        assert sum(len(c) for c in page["chains"].values()) == 1 and page["total"] == 4
        for chain, found in page["chains"].items():
            chains.setdefault(chain, []).extend(found)
        assert page["heads"] == expected["heads"] and page["keys"] == expected["keys"]
        cursor = resp.cursor
    assert chains == expected["chains"]


def test_the_index_reads_many_traces_rows_as_it_reads_each(
    stores: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rows`` (one read for many roots, in blocks) gives what ``get`` gives root by root,
    in the roots' order; blocks of two here, so the three traces and an unknown root span
    two."""
    monkeypatch.setattr(trace_sql, "IN_BATCH", 2)
    roots = [G1, A1, "urn:x:none", SUB]
    with stores.lease("alice", "default") as h:
        assert h is not None
        each = {r: row for r in roots if (row := h.index.get(r)) is not None}
        assert list(h.index.rows(roots)) == [G1, A1, SUB] and h.index.rows(roots) == each
