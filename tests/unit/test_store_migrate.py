"""A store written before the reference's forms were adopted (docs/conformance.md: extraction
activities' ``prov:used`` and label, DocumentRAG's ``tg:ChunkSelection``) is migrated at start,
on both backends: the facts added, a signed document or trace signed again and still verified,
idempotent, and resumed when killed half way."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import store_backend
from tests.support.store import DOC, agent, document, handle_of, msg
from trustgraph_base.provenance import (
    docrag_exploration_triples,
    docrag_question_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.provenance.namespaces import PROV, RDF, RDFS, TG
from trustgraph_base.rdf.terms import Triple, lit
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.documents import seal_document
from trustgraph_flow.store.governance.migrate import GRAPH, migrate
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.governance.verify import verify_document, verify_trace
from trustgraph_flow.store.service.lifespan import running
from trustgraph_flow.store.service.settings import StoreSettings
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, n

ADOPTED = {PROV.used.i, RDFS.label.i, TG.componentVersion.i}
# d1's activities: one decode, a chunking per page (2), an extraction per chunk (3)
ACTIVITIES = {
    f"{DOC}/activity/decode": (DOC, "decoder extraction"),
    f"{DOC}/p1/activity/chunk": (f"{DOC}/p1", "chunker extraction"),
    f"{DOC}/p2/activity/chunk": (f"{DOC}/p2", "chunker extraction"),
    f"{DOC}/p1/c0/activity/extract": (f"{DOC}/p1/c0", "extractor extraction"),
    f"{DOC}/p1/c1/activity/extract": (f"{DOC}/p1/c1", "extractor extraction"),
    f"{DOC}/p2/c0/activity/extract": (f"{DOC}/p2/c0", "extractor extraction"),
}


def before_the_change() -> list[Triple]:
    """d1 as the builders wrote it before: its activities without the adopted facts."""
    return [
        t
        for t in document()
        if not ("/activity/" in t.s.i and t.p.i in ADOPTED)  # type: ignore[union-attr]
        and getattr(t.o, "i", None) != PROV.Agent.i  # its software agents: prov:Agent too
    ]


def agents(stores: Backend) -> set[str]:
    h = handle_of(stores)
    typed = h.store.quads_for_pattern(None, n(RDF.type), n(PROV.Agent), SOURCE)
    return {str(q.subject) for q in typed}


@pytest.fixture
def seal(tmp_path: Path) -> Seal:
    return open_seal(
        data_dir=str(tmp_path / "data"), key_file="", public_dir="", chain="", server=False
    )


@pytest.fixture
def old_store(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    """An old-form store whose document's provenance is signed."""
    stores = make_backend()
    write_batch(stores, [msg(before_the_change(), "doc")], seal)
    assert seal_document(handle_of(stores), seal, DOC) is not None
    assert verify_document(handle_of(stores), seal.keys, DOC).verified
    return stores


def facts(stores: Backend) -> dict[str, tuple[str, str]]:
    h, out = handle_of(stores), {}
    for q in h.store.quads_for_pattern(None, n(PROV.used), None, SOURCE):
        labels = h.store.quads_for_pattern(q.subject, n(RDFS.label), None, SOURCE)
        out[str(q.subject.value)] = (str(q.object.value), next(labels).object.value)  # type: ignore[union-attr]
    return out


def test_an_old_store_is_migrated_and_its_signature_still_verifies(
    old_store: Backend, seal: Seal
) -> None:
    assert facts(old_store) == {} and agents(old_store) == set()
    assert migrate(old_store, seal) == len(ACTIVITIES) + 3
    assert facts(old_store) == ACTIVITIES
    names = ("decoder", "chunker", "extractor")
    assert agents(old_store) == {f"<urn:trustgraph:component:{name}>" for name in names}
    checked = verify_document(handle_of(old_store), seal.keys, DOC)
    assert checked.verified, checked.problems
    h = handle_of(old_store)
    assert not list(h.store.quads_for_pattern(None, None, None, GRAPH))  # no mark left


def test_migrating_twice_changes_nothing(old_store: Backend, seal: Seal) -> None:
    migrate(old_store, seal)
    entries = len(log.of_subject(handle_of(old_store).store, DOC))
    assert migrate(old_store, seal) == 0
    assert len(log.of_subject(handle_of(old_store).store, DOC)) == entries
    assert verify_document(handle_of(old_store), seal.keys, DOC).verified


def test_a_migration_killed_before_signing_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(*args: object, **kwargs: object) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(Seal, "sign_all", killed)
        with pytest.raises(SystemExit):
            migrate(old_store, seal)
    assert facts(old_store) == ACTIVITIES  # written, but not yet signed again
    assert not verify_document(handle_of(old_store), seal.keys, DOC).verified
    assert migrate(old_store, seal) == 3  # the agents, a later step; the mark: what to sign
    checked = verify_document(handle_of(old_store), seal.keys, DOC)
    assert checked.verified, checked.problems


def test_an_edit_before_the_migration_is_not_signed_over(old_store: Backend, seal: Seal) -> None:
    h = handle_of(old_store)
    chunk = ox.NamedNode(f"{DOC}/p1/c0")
    [length] = h.store.quads_for_pattern(chunk, n(TG.charLength), None, SOURCE)
    h.store.remove(length)
    seven = ox.Literal("7", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
    h.store.extend([ox.Quad(chunk, n(TG.charLength), seven, SOURCE)])
    migrate(old_store, seal)
    assert facts(old_store) == ACTIVITIES
    assert not verify_document(handle_of(old_store), seal.keys, DOC).verified


async def test_the_store_processor_migrates_at_start(tmp_path: Path) -> None:
    """A store left by the code before (embedded, or TG_TEST_STORE=server) is migrated when the
    store processor starts on it."""
    data, uri = tmp_path / "data", os.environ.get("TG_STORE_URI", "")
    seal = open_seal(data_dir=str(data), key_file="", public_dir="", chain="", server=bool(uri))
    stores = store_backend(data / "store")
    write_batch(stores, [msg(before_the_change(), "doc")], seal)
    assert seal_document(handle_of(stores), seal, DOC) is not None
    stores.close()
    async with running(StoreSettings(data_dir=str(data), store_uri=uri)) as state:
        assert await state.read(facts) == ACTIVITIES
        checked = await state.read(lambda s: verify_document(handle_of(s), seal.keys, DOC))
        assert checked.verified, checked.problems


QUESTION = uris.docrag_question_uri("d-old")
CHUNKS = [f"{DOC}/p1/c0", f"{DOC}/p2/c0"]


def old_docrag() -> list[Triple]:
    """A ranked DocumentRAG trace as written before its reifiers were tg:ChunkSelection."""
    exploration = uris.exploration_uri(QUESTION)
    out = docrag_question_triples(QUESTION, "what is on the pages?", "2026-12-01T00:00:00Z")
    out += docrag_exploration_triples(exploration, QUESTION, CHUNKS, [0.9, 0.5])
    out += synthesis_triples(uris.synthesis_uri(QUESTION), exploration, "Foxes and cats.")
    adopted = {(RDF.type.i, TG.ChunkSelection.i), (TG.document.i, None)}
    return [
        t
        for t in out
        if not (
            "/exploration/c" in t.s.i  # type: ignore[union-attr]
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
    assert migrate(old_trace, seal) == 2
    exploration = uris.exploration_uri(QUESTION)
    assert selections(old_trace) == {
        f"<{exploration}/c1>": f"<{CHUNKS[0]}>",
        f"<{exploration}/c2>": f"<{CHUNKS[1]}>",
    }
    checked = verify_trace(handle_of(old_trace), seal.keys, QUESTION)
    assert checked.verified, checked.problems
    assert migrate(old_trace, seal) == 0


def test_a_trace_migration_killed_before_signing_resumes(
    old_trace: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(*args: object, **kwargs: object) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(Seal, "sign_all", killed)
        with pytest.raises(SystemExit):
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
    def killed(*args: object, **kwargs: object) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(Seal, "append", killed)
        with pytest.raises(SystemExit):
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
