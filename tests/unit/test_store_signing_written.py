"""Signing from what the writer wrote (``governance/written.py``), not from the store read
back: the digest is the one the store's quads give (typed literals as pyoxigraph keeps
them), and a trace the record does not hold whole is read back as before."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.store import TIME, agent, deferred_seal, handle_of, msg
from trustgraph_base.integrity.canonical import fingerprint_groups
from trustgraph_base.provenance import uris
from trustgraph_base.provenance.namespaces import RDF, TG
from trustgraph_base.rdf.nquads import nquads_text
from trustgraph_base.rdf.terms import LiteralTerm, QuotedTriple, Triple, TripleTerm, iri
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.embedded.trace_index import TraceIndex
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance import seal as seal_module
from trustgraph_flow.store.governance.seal import Seal, trace_groups
from trustgraph_flow.store.governance.stored_form import known_normal
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.lookup import RETRIEVAL

A1 = uris.agent_session_uri("a1")
STEP = uris.agent_iteration_uri(A1, 1)
XSD = "http://www.w3.org/2001/XMLSchema#"
G = RETRIEVAL.value  # the trace's graph: the record holds only its quads


def halves(triples: list[Triple]) -> tuple[list[Triple], list[Triple]]:
    """The trace's triples before its conclusion (in progress), and its conclusion's."""
    final = iri(uris.agent_final_uri(A1))
    return [t for t in triples if t.s != final], [t for t in triples if t.s == final]


def odd_literals() -> list[Triple]:
    """Typed literals the store keeps in another form than they were written."""
    p = iri("urn:test:measure")
    return [
        Triple(s=iri(STEP), p=p, o=LiteralTerm(v="1.50", dt=XSD + "decimal"), g=G),
        Triple(s=iri(STEP), p=p, o=LiteralTerm(v="007", dt=XSD + "integer"), g=G),
        Triple(s=iri(STEP), p=p, o=LiteralTerm(v=TIME.format(9), dt=XSD + "dateTime"), g=G),
    ]


def signed_digest(stores: Stores) -> str:
    found = log.of_subject(handle_of(stores).store, A1)
    assert len(found) == 1
    return found[0][1].entry.digest


def verified(stores: Stores, seal: Seal) -> bool:
    req = ExplainRequest(operation="verify-trace", id=A1, user="alice")
    found = explain_op(stores, req, seal).verification
    assert found is not None
    return found.verified


def test_a_trace_signed_from_the_writers_record_has_the_stored_quads_digest(
    tmp_path: Path,
) -> None:
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    steps, conclusion = halves(agent("a1", 3, "g-sub") + odd_literals())
    write_batch(stores, [msg(steps)], seal)  # in progress
    write_batch(stores, [msg(conclusion)], seal)
    h = handle_of(stores)
    assert seal.written is not None
    recorded = seal.written.fingerprints(h, [A1])
    assert A1 in recorded  # what the writer wrote is all the store holds: no read back
    stored = fingerprint_groups(trace_groups(h, A1))
    assert recorded[A1] == stored
    assert seal.flush(stores) >= 1
    assert signed_digest(stores) == stored.digest and verified(stores, seal)
    assert seal.written.fingerprints(h, [A1]) == {A1: stored}  # signed: kept, for a late message
    stores.close()


def test_a_trace_begun_before_this_writer_is_read_back(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "store")
    steps, conclusion = halves(agent("a1", 3, "g-sub"))
    write_batch(stores, [msg(steps)], deferred_seal(tmp_path))  # a writer since restarted
    seal = deferred_seal(tmp_path)
    write_batch(stores, [msg(conclusion)], seal)
    h = handle_of(stores)
    assert seal.written is not None and seal.written.fingerprints(h, [A1]) == {}  # not whole
    seal.flush(stores)
    assert signed_digest(stores) == fingerprint_groups(trace_groups(h, A1)).digest
    assert verified(stores, seal)
    stores.close()


def with_extra_quad(stores: Stores, seal: Seal) -> None:
    """The trace written, then a quad added to one of its entities past the writer."""
    write_batch(stores, [msg(agent("a1", 3, "g-sub"))], seal)
    extra = ox.Quad(ox.NamedNode(STEP), ox.NamedNode("urn:test:note"), ox.Literal("x"), RETRIEVAL)
    handle_of(stores).store.extend([extra])


def test_a_quad_added_by_hand_to_a_trace_this_writer_began_is_named_not_signed(
    tmp_path: Path,
) -> None:
    """A store this version made: the trace's entities were indexed before its write, so the
    record is the whole trace without counting the store; a quad added past the writer is not
    signed over, and the verifier names it."""
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    with_extra_quad(stores, seal)
    seal.flush(stores)
    req = ExplainRequest(operation="verify-trace", id=A1, user="alice")
    found = explain_op(stores, req, seal).verification
    assert found is not None and not found.verified
    assert [p.message for p in found.problems] == [
        f"{A1}: <{STEP}> was changed since it was signed"
    ]
    stores.close()


def earlier_store(stores: Stores) -> None:
    """The collection's store as an earlier version left it: not known to be covered."""
    h = stores.get("alice", "default", create=True)
    assert h is not None and isinstance(h.index, TraceIndex)
    h.index.db.execute("DELETE FROM lineage_meta WHERE key = 'covered'")


def test_a_quad_added_past_the_writer_in_an_earlier_versions_store_is_read_back(
    tmp_path: Path,
) -> None:
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    earlier_store(stores)
    with_extra_quad(stores, seal)
    assert seal.written is not None and seal.written.fingerprints(handle_of(stores), [A1]) == {}
    seal.flush(stores)
    assert signed_digest(stores) == fingerprint_groups(trace_groups(handle_of(stores), A1)).digest
    assert verified(stores, seal)
    stores.close()


def test_a_trace_claimed_before_a_kill_is_counted_when_it_comes_again(tmp_path: Path) -> None:
    """Killed between indexing a batch's entities and writing it: the redelivered batch does
    not begin the trace (its entities are in the index), so its record is counted."""
    stores = Stores(tmp_path / "store")
    first = msg(agent("a1", 3, "g-sub"))
    h = stores.get("alice", "default", create=True)
    assert h is not None and isinstance(h.index, TraceIndex)
    h.index.claim(q for q in ox.parse(nquads_text(first.triples).encode(), ox.RdfFormat.N_QUADS))
    seal = deferred_seal(tmp_path)  # the writer, restarted
    with_extra_quad(stores, seal)
    assert seal.written is not None and seal.written.fingerprints(handle_of(stores), [A1]) == {}
    seal.flush(stores)
    assert verified(stores, seal)
    stores.close()


def test_a_large_batchs_text_counts_once_however_many_traces_share_it(tmp_path: Path) -> None:
    """A batch's text is kept once for all the trace roots it touched (each root's part
    of it): a batch of many traces within the record's limit is signed from the record,
    none read back (counted once per root, 40 traces' text was 40 times itself and every
    record was dropped)."""
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    assert seal.written is not None
    batch = [msg(agent(f"t{n}", 3, f"t{n}-sub")) for n in range(40)]
    roots = [uris.agent_session_uri(f"t{n}") for n in range(40)]
    size = len(nquads_text(t for m in batch for t in m.triples).encode())
    seal.written.limit = 2 * size  # the batch's text fits; 40 copies of it would not
    write_batch(stores, batch, seal)
    h = handle_of(stores)
    recorded = seal.written.fingerprints(h, roots)
    assert sorted(recorded) == sorted(roots)  # all from the record: nothing read back
    for root in roots[:3]:
        assert recorded[root] == fingerprint_groups(trace_groups(h, root))
    assert seal.flush(stores) >= 40
    assert seal.written.fingerprints(h, roots) == recorded  # signed: kept for a late message
    stores.close()


Q = uris.graph_rag_question_uri("g-sub")
VERDICT = iri(TG.answerVerdict.i)


def late_verdict() -> list[Triple]:
    """What GraphRAG writes after its answer's synthesis: the answer's verification."""
    v = iri(uris.synthesis_uri(Q) + "/verification")
    return [Triple(s=v, p=VERDICT, o=LiteralTerm(v="supported"), g=G)]


def signed_once(tmp_path: Path) -> tuple[Seal, Stores]:
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    write_batch(stores, [msg(agent("a1", 3, "g-sub"))], seal)
    assert seal.flush(stores) == 2  # the agent's trace and its GraphRAG sub-trace
    return seal, stores


def test_a_late_message_to_a_signed_trace_is_signed_again_from_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record stays after signing: the verification written after a GraphRAG answer's
    synthesis signs its trace again without reading it back (nor searching it)."""
    seal, stores = signed_once(tmp_path)

    def read_back(*args: object) -> None:
        raise AssertionError("the trace was read back")

    monkeypatch.setattr(seal_module, "subject_groups", read_back)
    write_batch(stores, [msg(late_verdict())], seal)
    h = handle_of(stores)
    assert len(log.of_subject(h.store, Q)) == 2  # signed again, at once
    req = ExplainRequest(operation="verify-trace", id=Q, user="alice")
    found = explain_op(stores, req, seal).verification
    assert found is not None and found.verified, found
    stores.close()


def test_a_hand_edit_before_a_late_message_still_shows(tmp_path: Path) -> None:
    """A quad replaced by hand (one for one: the count holds) on an entity the late message
    does not touch: the trace is signed again from the record, which is what the writer
    wrote, so the new signature still names the edit (nothing laundered)."""
    seal, stores = signed_once(tmp_path)
    h = handle_of(stores)
    focus = ox.NamedNode(uris.focus_uri(Q))
    [old] = [q for q in h.store.quads_for_pattern(focus, None, None, RETRIEVAL)][:1]
    h.store.remove(old)
    h.store.extend([ox.Quad(focus, old.predicate, ox.Literal("edited by hand"), RETRIEVAL)])
    write_batch(stores, [msg(late_verdict())], seal)
    req = ExplainRequest(operation="verify-trace", id=Q, user="alice")
    found = explain_op(stores, req, seal).verification
    assert found is not None and not found.verified
    assert [p.message for p in found.problems] == [
        f"{Q}: <{focus.value}> was changed since it was signed"
    ]
    stores.close()


KNOWN_FORMS = {  # lexical forms whose normal form the record finds without a store
    "dateTime": [
        "2026-12-01T10:00:00Z",
        "2026-12-01T10:00:00.120Z",
        "2026-12-01T10:00:00.000Z",
        "2024-02-29T23:59:59.5Z",
        "1000-01-01T00:00:00.100000000000000000Z",
        "9999-12-31T23:59:59.123456789012345678Z",
    ],
    "integer": ["0", "-12", "123456789012345678"],
    "decimal": ["0", "1", "-3", "1.5", "-0.25", "0.001", "123456789012345678.5"],
}
STORE_FORMS = {  # the same types in forms left to the store in memory
    "dateTime": [
        "2023-02-29T10:00:00.10Z",  # no such date: kept as written
        "2026-04-31T10:00:00.10Z",
        "2026-12-01T24:00:00Z",
        "2026-12-01T10:00:00+00:00",
        "2026-12-01T10:00:00.1234567890123456780Z",
        "0999-12-01T10:00:00.50Z",
        "2026-12-01T10:00:00",
    ],
    "integer": ["-0", "007", "+5", "9223372036854775808"],
    "decimal": ["-0.0", "1.0", ".5", "100.0", "1234567890123456789012.5"],
}


def test_typed_literals_in_the_record_take_the_stored_quads_form(tmp_path: Path) -> None:
    """Each typed literal the record turns into the store's normal form itself (a time's
    fraction without trailing zeros) or through a store in memory gives the digest of the
    quads the store holds; so does a plain literal that only looks typed."""
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    p = iri("urn:test:measure")
    typed = [
        Triple(s=iri(STEP), p=p, o=LiteralTerm(v=v, dt=XSD + dt), g=G)
        for forms in (KNOWN_FORMS, STORE_FORMS)
        for dt, values in forms.items()
        for v in values
    ]
    looks = LiteralTerm(v='"2026-12-01T10:00:00.10Z"^^<' + XSD + "dateTime>")
    terms = [  # a reifier's triple term of IRIs alone (as written), and one holding a literal
        TripleTerm(tr=QuotedTriple(s=iri(STEP), p=p, o=iri("urn:test:chunk"))),
        TripleTerm(tr=QuotedTriple(s=iri(STEP), p=p, o=LiteralTerm(v="1.50", dt=XSD + "decimal"))),
    ]
    reified = [Triple(s=iri(STEP), p=iri(RDF.reifies.i), o=t, g=G) for t in terms]
    steps, conclusion = halves(
        agent("a1", 3, "g-sub") + typed + reified + [Triple(s=iri(STEP), p=p, o=looks, g=G)]
    )
    write_batch(stores, [msg(steps), msg(conclusion)], seal)
    h = handle_of(stores)
    assert seal.written is not None
    recorded = seal.written.fingerprints(h, [A1])
    stored = fingerprint_groups(trace_groups(h, A1))
    measured = [q for g in trace_groups(h, A1) for q in g if q.predicate == ox.NamedNode(p.i)]
    assert len(measured) > sum(map(len, KNOWN_FORMS.values()))  # in the trace (equal values once)
    assert recorded[A1] == stored
    seal.flush(stores)
    assert verified(stores, seal)
    stores.close()


def test_past_the_limit_the_signed_traces_records_go_first(tmp_path: Path) -> None:
    """Records kept after signing give way to those of traces still to sign."""
    seal, stores = deferred_seal(tmp_path), Stores(tmp_path / "store")
    assert seal.written is not None
    first, second = (msg(agent(f"t{n}", 3, f"t{n}-sub")) for n in range(2))
    size = len(nquads_text(first.triples).encode())
    seal.written.limit = size * 3 // 2  # one batch's text fits, two do not
    write_batch(stores, [first], seal)
    seal.flush(stores)
    h, roots = handle_of(stores), [uris.agent_session_uri(f"t{n}") for n in range(2)]
    assert list(seal.written.fingerprints(h, roots)) == roots[:1]  # signed, kept
    write_batch(stores, [second], seal)
    assert list(seal.written.fingerprints(h, roots)) == roots[1:]  # to sign: kept instead
    stores.close()


def test_a_triple_term_of_iris_alone_is_kept_as_written() -> None:
    """Without a store: a reifier's line of IRIs alone is its own normal form; one whose triple
    term holds a literal (or a blank node) is left to the store in memory."""
    iris = b"<urn:r> <urn:p> <<( <urn:s> <urn:p> <urn:o> )>> <urn:g> .\n"
    assert known_normal(iris) == iris
    typed = (
        b'<urn:r> <urn:p> <<( <urn:s> <urn:p> "1.50"^^<'
        + XSD.encode()
        + b"decimal> )>> <urn:g> .\n"
    )
    assert known_normal(typed) is None
    assert known_normal(b"<urn:r> <urn:p> <<( _:b <urn:p> <urn:o> )>> <urn:g> .\n") is None
