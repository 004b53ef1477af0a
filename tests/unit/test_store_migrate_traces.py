"""Traces written before the reference's forms were adopted (docs/conformance.md:
DocumentRAG's tg:ChunkSelection, the labels of questions and analyses, the verifier's URI) are
migrated at start, on both backends: an ended, signed trace signed again and still verified,
idempotent, resumed when killed half way, an edit never signed over."""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox
import pytest

from tests.support.migration import killed_at, old_agent_iri, seal_fixture
from tests.support.store import DOC, agent, graph_rag, handle_of, msg
from trustgraph_base.provenance import (
    docrag_exploration_triples,
    docrag_question_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.provenance.document_uris import COMPONENT_PREFIX
from trustgraph_base.provenance.namespaces import PROV, RDF, RDFS, TG
from trustgraph_base.provenance.verification import (
    ClaimAssessment,
    VerificationRecord,
    verification_triples,
)
from trustgraph_base.rdf.terms import IriTerm, Triple, lit
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance.migrate import migrate
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.governance.verify import verify_trace
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import explain
from trustgraph_flow.store.views.lookup import RETRIEVAL, n

seal = seal_fixture()


QUESTION = uris.docrag_question_uri("d-old")
CHUNKS = [f"{DOC}/p1/c0", f"{DOC}/p2/c0"]


EXPLORATION = uris.exploration_uri(QUESTION)
# each reifier's URI written before (1-based rank) and the reference's (0-based), adopted since
RENAMED = {uris.exploration_chunk_uri(EXPLORATION, r): f"{EXPLORATION}/c{r}" for r in (1, 2)}


def old_docrag() -> list[Triple]:
    """A ranked DocumentRAG trace as written before its reifiers were tg:ChunkSelection,
    under the URIs they had then."""
    out = docrag_question_triples(QUESTION, "what is on the pages?", "2026-12-01T00:00:00Z")
    out += docrag_exploration_triples(EXPLORATION, QUESTION, CHUNKS, [0.9, 0.5])
    out += synthesis_triples(uris.synthesis_uri(QUESTION), EXPLORATION, "Foxes and cats.")
    adopted = {(RDF.type.i, TG.ChunkSelection.i), (TG.document.i, None)}
    return [
        t.model_copy(update={"s": IriTerm(i=RENAMED[t.s.i])}) if t.s.i in RENAMED else t  # type: ignore[union-attr]
        for t in out
        if not (
            t.s.i in RENAMED  # type: ignore[union-attr]
            and ((t.p.i, getattr(t.o, "i", None)) in adopted or t.p.i == TG.document.i)
        )
    ]


def selections(stores: Backend) -> dict[str, str]:
    h = handle_of(stores)
    typed = h.store.quads_for_pattern(None, n(RDF.type), n(TG.ChunkSelection), RETRIEVAL)
    out = {}
    for q in typed:
        [link] = h.store.quads_for_pattern(q.subject, n(TG.document), None, RETRIEVAL)
        out[str(q.subject)] = str(link.object)
    return out


@pytest.fixture
def old_trace(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    stores = make_backend()
    write_batch(stores, [msg(old_docrag(), "trace")], seal)
    assert verify_trace(handle_of(stores), seal.keys, QUESTION).verified
    return stores


def test_an_old_trace_gets_its_chunk_selections_and_still_verifies(
    old_trace: Backend, seal: Seal
) -> None:
    assert selections(old_trace) == {}
    shown = explain.get_trace(handle_of(old_trace), QUESTION, include_provenance=True)
    assert [(c.uri, c.score) for c in shown.chunks] == [(CHUNKS[0], 0.9), (CHUNKS[1], 0.5)]
    assert migrate(old_trace, seal) == 4  # typed (2), then renamed (2)
    new = list(RENAMED)
    assert selections(old_trace) == {
        f"<{new[0]}>": f"<{CHUNKS[0]}>",
        f"<{new[1]}>": f"<{CHUNKS[1]}>",
    }
    h = handle_of(old_trace)
    for old in RENAMED.values():  # nothing names the old URIs, in the store or the index
        assert not list(h.store.quads_for_pattern(ox.NamedNode(old), None, None, RETRIEVAL))
        assert old not in h.index.entities(QUESTION)
    assert set(new) <= set(h.index.entities(QUESTION))
    checked = verify_trace(h, seal.keys, QUESTION)
    assert checked.verified, checked.problems
    again = explain.get_trace(h, QUESTION, include_provenance=True)
    assert again.model_dump() == shown.model_dump()
    assert migrate(old_trace, seal, again=True) == 0


def test_a_trace_migration_killed_before_signing_resumes(
    old_trace: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    with killed_at(monkeypatch, "sign_all"):
        migrate(old_trace, seal)
    assert len(selections(old_trace)) == 2
    assert not verify_trace(handle_of(old_trace), seal.keys, QUESTION).verified
    migrate(old_trace, seal)
    checked = verify_trace(handle_of(old_trace), seal.keys, QUESTION)
    assert checked.verified, checked.problems


AGENT = uris.agent_session_uri("a-old")
SUB = uris.graph_rag_question_uri("g-sub")
NEW_LABELS = {
    AGENT: "Agent Question",
    f"{AGENT}/i1": "Analysis: knowledge-query",
    f"{AGENT}/i2": "Analysis: none",
    SUB: "GraphRAG Question",
}


def labelled_as_before(triples: list[Triple]) -> list[Triple]:
    """Triples with the labels written before: "Question" and "Analysis"."""
    out = []
    for t in triples:
        if t.p.i == RDFS.label.i and t.s.i in NEW_LABELS:  # type: ignore[union-attr]
            old = "Question" if "Question" in NEW_LABELS[t.s.i] else "Analysis"  # type: ignore[union-attr]
            t = t.model_copy(update={"o": lit(old)})
        out.append(t)
    return out


def labels(stores: Backend) -> dict[str, str]:
    h = handle_of(stores)
    found: dict[str, str] = {}
    for uri in NEW_LABELS:
        for q in h.store.quads_for_pattern(ox.NamedNode(uri), n(RDFS.label), None, RETRIEVAL):
            found[uri] = found.get(uri, "") + str(q.object.value)  # type: ignore[union-attr]
    return found


@pytest.fixture
def old_agent(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    stores = make_backend()
    write_batch(stores, [msg(labelled_as_before(agent("a-old", 1, "g-sub")), "trace")], seal)
    before = {u: "Question" if "Question" in v else "Analysis" for u, v in NEW_LABELS.items()}
    assert labels(stores) == before
    assert verify_trace(handle_of(stores), seal.keys, AGENT).verified
    return stores


def test_old_labels_are_replaced_and_the_trace_still_verifies(
    old_agent: Backend, seal: Seal
) -> None:
    assert migrate(old_agent, seal) == len(NEW_LABELS)
    assert labels(old_agent) == NEW_LABELS
    checked = verify_trace(handle_of(old_agent), seal.keys, AGENT)
    assert checked.verified, checked.problems
    assert migrate(old_agent, seal) == 0 and labels(old_agent) == NEW_LABELS


def test_a_relabelling_killed_before_signing_resumes(
    old_agent: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    with killed_at(monkeypatch, "append"):
        migrate(old_agent, seal)
    assert labels(old_agent) == NEW_LABELS
    assert not verify_trace(handle_of(old_agent), seal.keys, AGENT).verified
    migrate(old_agent, seal)
    checked = verify_trace(handle_of(old_agent), seal.keys, AGENT)
    assert checked.verified, checked.problems


def test_an_edited_trace_is_relabelled_but_not_signed_over(old_agent: Backend, seal: Seal) -> None:
    h = handle_of(old_agent)
    step = ox.NamedNode(f"{AGENT}/i1")
    [thought] = h.store.quads_for_pattern(step, n(TG.thought), None, RETRIEVAL)
    h.store.remove(thought)
    h.store.extend([ox.Quad(step, n(TG.thought), ox.Literal("edited"), RETRIEVAL)])
    migrate(old_agent, seal)
    assert labels(old_agent) == NEW_LABELS
    assert not verify_trace(handle_of(old_agent), seal.keys, AGENT).verified


def test_a_verified_trace_gets_its_verifier_renamed_and_still_verifies(
    make_backend: Callable[[], Backend], seal: Seal
) -> None:

    root = uris.graph_rag_question_uri("g-verified")
    synthesis = uris.synthesis_uri(root)
    record = VerificationRecord(
        method="heuristic",
        model="offline",
        started_at="2026-01-01T10:00:00.000Z",
        ended_at="2026-01-01T10:00:00.004Z",
        evidence=[uris.focus_edge_uri(root, 1)],
        assessments=[ClaimAssessment(f"{synthesis}/claim1", "supported", 1.0, "all words")],
        answer_verdict="supported",
        reason="1 of 1 claims supported",
    )
    old = [
        t.model_copy(update={"s": old_agent_iri(t.s), "o": old_agent_iri(t.o)})
        for t in graph_rag("g-verified", 1) + verification_triples(synthesis, record)
        if getattr(t.o, "i", None) != PROV.Agent.i
    ]
    stores = make_backend()
    write_batch(stores, [msg(old, "trace")], seal)
    assert verify_trace(handle_of(stores), seal.keys, root).verified
    migrate(stores, seal)
    h = handle_of(stores)
    activity = ox.NamedNode(f"{synthesis}/verification")
    [agent] = h.store.quads_for_pattern(activity, n(PROV.wasAssociatedWith), None, RETRIEVAL)
    assert agent.object == ox.NamedNode(COMPONENT_PREFIX + "verifier")
    checked = verify_trace(h, seal.keys, root)
    assert checked.verified, checked.problems
