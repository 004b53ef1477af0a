"""GraphRAG's grounding written before under our URI (``urn:trustgraph:question:{id}/grounding``)
is renamed at start to the reference's (``urn:trustgraph:prov:grounding:{id}``,
docs/conformance.md), on both backends: wherever it is named (its facts, the exploration's
``prov:wasDerivedFrom``), the trace index's entity map following; the trace signed again and
still verified, what its view shows unchanged; idempotent; resumed when killed; an edit never
signed over."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.migration import (
    assert_verified,
    killed_then_resumed,
    seal_fixture,
    store_before_start,
)
from tests.support.store import graph_rag, handle_of, msg
from trustgraph_base.provenance import grounding_triples, uris
from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.rdf.terms import IriTerm, Triple
from trustgraph_flow.store.core.backend import Backend, QuadStore, remove_quads
from trustgraph_flow.store.governance import migrate as migration
from trustgraph_flow.store.governance.migrate import migrate
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.governance.verify import verify_trace
from trustgraph_flow.store.service.lifespan import running
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import explain
from trustgraph_flow.store.views.lookup import RETRIEVAL, n

seal = seal_fixture()
QUESTION = uris.graph_rag_question_uri("g-ground")
OLD, NEW = f"{QUESTION}/grounding", "urn:trustgraph:prov:grounding:g-ground"
EXPLORATION = uris.exploration_uri(QUESTION)


def as_before() -> list[Triple]:
    """A finished GraphRAG trace whose grounding has the URI written before."""
    linked = Triple(s=IriTerm(i=EXPLORATION), p=PROV.wasDerivedFrom, o=IriTerm(i=OLD))
    link = linked.model_copy(update={"g": RETRIEVAL.value})
    return graph_rag("g-ground", 1) + grounding_triples(OLD, QUESTION, ["fox?"]) + [link]


@pytest.fixture
def old_store(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    stores = make_backend()
    write_batch(stores, [msg(as_before(), "trace")], seal)
    assert verify_trace(handle_of(stores), seal.keys, QUESTION).verified
    assert OLD in handle_of(stores).index.entities(QUESTION)
    return stores


def named(stores: Backend, uri: str) -> int:
    """How many retrieval-graph quads name ``uri`` (as subject or object)."""
    store, node = handle_of(stores).store, ox.NamedNode(uri)
    return len(list(store.quads_for_pattern(node, None, None, RETRIEVAL))) + len(
        list(store.quads_for_pattern(None, None, node, RETRIEVAL))
    )


def shown(stores: Backend) -> object:
    return explain.get_trace(handle_of(stores), QUESTION, include_provenance=True).model_dump()


def assert_renamed(stores: Backend, seal: Seal) -> None:
    h = handle_of(stores)
    assert named(stores, OLD) == 0
    derived = h.store.quads_for_pattern(ox.NamedNode(EXPLORATION), n(PROV.wasDerivedFrom), None)
    assert ox.NamedNode(NEW) in {q.object for q in derived}
    concepts = h.store.quads_for_pattern(ox.NamedNode(NEW), n(TG.concept), None, RETRIEVAL)
    assert [q.object for q in concepts] == [ox.Literal("fox?")]
    entities = h.index.entities(QUESTION)
    assert NEW in entities and OLD not in entities
    assert_verified(h, seal.keys, traces=(QUESTION,))


def test_the_grounding_is_renamed_and_the_trace_still_verifies(
    old_store: Backend, seal: Seal
) -> None:
    before = shown(old_store)
    assert migrate(old_store, seal) > 0
    assert_renamed(old_store, seal)
    assert shown(old_store) == before
    assert migrate(old_store, seal, again=True) == 0


def test_a_migration_killed_before_signing_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    verified = lambda: verify_trace(handle_of(old_store), seal.keys, QUESTION).verified  # noqa: E731
    killed_then_resumed(monkeypatch, old_store, seal, verified)
    assert_renamed(old_store, seal)


def test_a_migration_killed_before_the_removal_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the old URI left the entity map, before its quads were removed."""

    real = remove_quads

    def killed(store: QuadStore, quads: list[ox.Quad]) -> None:
        old = ox.NamedNode(OLD)
        if any(old in (q.subject, q.object) for q in quads):  # the grounding's step
            raise SystemExit("killed")
        real(store, quads)

    with monkeypatch.context() as m, pytest.raises(SystemExit):
        m.setattr(migration, "remove_quads", killed)
        migrate(old_store, seal)
    assert named(old_store, OLD) > 0 and named(old_store, NEW) > 0
    assert OLD not in handle_of(old_store).index.entities(QUESTION)
    migrate(old_store, seal)
    assert_renamed(old_store, seal)


def test_an_edited_grounding_is_renamed_but_not_signed_over(old_store: Backend, seal: Seal) -> None:
    h = handle_of(old_store)
    [concept] = h.store.quads_for_pattern(ox.NamedNode(OLD), n(TG.concept), None, RETRIEVAL)
    h.store.remove(concept)
    edited = ox.Literal("edited by hand")
    h.store.extend([ox.Quad(concept.subject, concept.predicate, edited, RETRIEVAL)])
    migrate(old_store, seal)
    assert named(old_store, OLD) == 0 and named(old_store, NEW) > 0
    checked = verify_trace(handle_of(old_store), seal.keys, QUESTION)
    assert not checked.verified


async def test_the_store_processor_renames_at_start(tmp_path: Path) -> None:
    """The store processor renames at start on the backend the test suite runs (embedded,
    TG_TEST_STORE=server, or sharded: its journal forgets the old entity too)."""
    with store_before_start(tmp_path) as (stores, seal, settings):
        write_batch(stores, [msg(as_before(), "trace")], seal)
    async with running(settings) as state:
        assert await state.read(lambda s: named(s, OLD)) == 0
        entities = await state.read(lambda s: handle_of(s).index.entities(QUESTION))
        assert NEW in entities and OLD not in entities
        checked = await state.read(lambda s: verify_trace(handle_of(s), seal.keys, QUESTION))
        assert checked.verified, checked.problems
