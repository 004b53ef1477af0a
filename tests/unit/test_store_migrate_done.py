"""Each migration step, once finished in a collection, is marked done there
(``urn:tg:migration``, the store's own graph) and not run there again, on both backends: a
migrated collection costs one read at start; a migration killed before a step's mark resumes
that step; a step with owners still to sign again (signing off) is not marked; the store's
``--migrate-again`` runs every step anew (old-form triples written after the marks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.migration import (
    assert_verified,
    killed_at,
    old_agent_iri,
    seal_fixture,
    store_before_start,
)
from tests.support.store import DOC, document, handle_of, msg
from trustgraph_base.provenance.document_uris import OLD_COMPONENT_PREFIX
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.governance import migrate as migration
from trustgraph_flow.store.governance.documents import seal_document
from trustgraph_flow.store.governance.migrate import migrate, steps_done
from trustgraph_flow.store.governance.migrate_steps import STEPS, Step
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.service.lifespan import running
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.lookup import SOURCE

seal = seal_fixture()
ALL = {step.name for step in STEPS}


def with_old_agents() -> list[Triple]:
    """d1 with its software agents under the URIs written before (step ``agent-uris``)."""
    return [
        t.model_copy(update={"s": old_agent_iri(t.s), "o": old_agent_iri(t.o)}) for t in document()
    ]


def old_agents(stores: Backend) -> int:
    """How many quads of the source graph still name an old agent URI."""
    quads = handle_of(stores).store.quads_for_pattern(None, None, None, SOURCE)
    return sum(
        any(
            isinstance(t, ox.NamedNode) and t.value.startswith(OLD_COMPONENT_PREFIX)
            for t in (q.subject, q.object)
        )
        for q in quads
    )


@pytest.fixture
def old_store(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    stores = make_backend()
    write_batch(stores, [msg(with_old_agents(), "doc")], seal)
    assert seal_document(handle_of(stores), seal, DOC) is not None
    assert old_agents(stores) > 0
    return stores


def test_a_migrated_collection_is_marked_and_its_steps_not_run_again(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert steps_done(handle_of(old_store)) == set()
    assert migrate(old_store, seal) > 0
    assert steps_done(handle_of(old_store)) == ALL
    assert old_agents(old_store) == 0
    ran: list[str] = []
    real = migration.migrate_step

    def counted(handle: Handle, seal: Seal | None, step: Step) -> int:
        ran.append(step.name)
        return real(handle, seal, step)

    monkeypatch.setattr(migration, "migrate_step", counted)
    assert migrate(old_store, seal) == 0
    assert ran == []
    # old-form triples written after the marks (an older processor still publishing) stay
    # until asked for: every step runs again, and the document is signed again
    write_batch(old_store, [msg(with_old_agents(), "late")], seal)
    assert old_agents(old_store) > 0
    assert migrate(old_store, seal) == 0
    migrate(old_store, seal, again=True)
    assert set(ran) == ALL
    assert old_agents(old_store) == 0
    assert_verified(handle_of(old_store), seal.keys, (DOC,))


def test_a_migration_killed_before_a_mark_resumes_that_step(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    with killed_at(monkeypatch, "append"):  # agent-uris-source signs the document again
        migrate(old_store, seal)
    done = steps_done(handle_of(old_store))
    assert "agent-uris-source" not in done and "activity-facts" in done
    migrate(old_store, seal)
    assert steps_done(handle_of(old_store)) == ALL
    assert old_agents(old_store) == 0
    assert_verified(handle_of(old_store), seal.keys, (DOC,))


def test_a_step_left_to_sign_again_is_not_marked_while_signing_is_off(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    with killed_at(monkeypatch, "append"):
        migrate(old_store, seal)
    migrate(old_store, None)  # a start with signing off: the pending document stays pending
    assert "agent-uris-source" not in steps_done(handle_of(old_store))
    migrate(old_store, seal)
    assert steps_done(handle_of(old_store)) == ALL
    assert_verified(handle_of(old_store), seal.keys, (DOC,))


async def test_the_store_processor_migrates_again_when_asked(tmp_path: Path) -> None:
    with store_before_start(tmp_path) as (stores, seal, settings):
        write_batch(stores, [msg(with_old_agents(), "doc")], seal)
    async with running(settings) as state:
        assert await state.read(lambda s: steps_done(handle_of(s))) == ALL
        await state.write(lambda s: write_batch(s, [msg(with_old_agents(), "late")], seal))
    async with running(settings) as state:
        assert await state.read(old_agents) > 0
    async with running(settings.model_copy(update={"migrate_again": True})) as state:
        assert await state.read(old_agents) == 0
