"""A store written before the reference's forms were adopted (docs/conformance.md: extraction
activities' ``prov:used``, label and URIs, the software agents' type and URIs) is migrated at
start, on both backends: the facts added and renamed, a signed document signed again and still
verified, idempotent, and resumed when killed half way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from tests.support.migration import (
    killed_at,
    old_activities,
    old_agent_iri,
    seal_fixture,
    store_before_start,
)
from tests.support.store import DOC, document, handle_of, msg
from trustgraph_base.provenance.document_uris import (
    COMPONENT_PREFIX,
    OLD_COMPONENT_PREFIX,
    is_activity_uri,
    reference_activity_uri,
)
from trustgraph_base.provenance.namespaces import PROV, RDF, RDFS, TG
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.core.convert import quad_of
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.documents import seal_document
from trustgraph_flow.store.governance.migrate import GRAPH, PENDING, migrate
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.governance.verify import verify_document
from trustgraph_flow.store.service.lifespan import running
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.lookup import SOURCE, n

ADOPTED = {PROV.used.i, RDFS.label.i, TG.componentVersion.i}
# d1's activities as ours were named: one decode, a chunking per page (2), an extraction per chunk (3)
BEFORE = {
    f"{DOC}/activity/decode": (DOC, "decoder extraction"),
    f"{DOC}/p1/activity/chunk": (f"{DOC}/p1", "chunker extraction"),
    f"{DOC}/p2/activity/chunk": (f"{DOC}/p2", "chunker extraction"),
    f"{DOC}/p1/c0/activity/extract": (f"{DOC}/p1/c0", "extractor extraction"),
    f"{DOC}/p1/c1/activity/extract": (f"{DOC}/p1/c1", "extractor extraction"),
    f"{DOC}/p2/c0/activity/extract": (f"{DOC}/p2/c0", "extractor extraction"),
}
ACTIVITIES = {reference_activity_uri(old): facts for old, facts in BEFORE.items()}  # renamed


def before_the_change() -> list[Triple]:
    """d1 as the builders wrote it before: its activities without the adopted facts, its
    software agents not yet prov:Agent, both under our old URIs."""
    return [
        t.model_copy(update={"s": old_agent_iri(t.s), "o": old_agent_iri(t.o)})
        for t in old_activities(document())
        if not (is_activity_uri(t.s.i) and t.p.i in ADOPTED)  # type: ignore[union-attr]
        and getattr(t.o, "i", None) != PROV.Agent.i
    ]


def agents(stores: Backend) -> set[str]:
    h = handle_of(stores)
    typed = h.store.quads_for_pattern(None, n(RDF.type), n(PROV.Agent), SOURCE)
    return {str(q.subject) for q in typed}


seal = seal_fixture()


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
    assert migrate(old_store, seal) > 0
    assert facts(old_store) == ACTIVITIES
    names = ("decoder", "chunker", "extractor")
    assert agents(old_store) == {f"<{COMPONENT_PREFIX}{name}>" for name in names}
    h = handle_of(old_store)
    for name in names:  # nothing names the old URIs any more
        old = ox.NamedNode(OLD_COMPONENT_PREFIX + name)
        assert not list(h.store.quads_for_pattern(old, None, None, SOURCE))
        assert not list(h.store.quads_for_pattern(None, None, old, SOURCE))
    checked = verify_document(handle_of(old_store), seal.keys, DOC)
    assert checked.verified, checked.problems
    h = handle_of(old_store)
    assert not list(h.store.quads_for_pattern(None, PENDING, None, GRAPH))  # no pending mark left


def test_the_migrated_document_is_what_the_builders_write_now(
    old_store: Backend, seal: Seal
) -> None:
    """Each activity renamed as the builders name it now, wherever it was named; only what
    is not known of an old activity (which version made it) stays missing."""
    migrate(old_store, seal)
    now = {quad_of(t) for t in document() if t.g == SOURCE.value}
    now = {q for q in now if q.predicate != n(TG.componentVersion)}
    migrated = set(handle_of(old_store).store.quads_for_pattern(None, None, None, SOURCE))
    assert migrated == now
    assert not any(
        is_activity_uri(x.value) and x.value.startswith(DOC)
        for q in migrated
        for x in (q.subject, q.object)
        if isinstance(x, ox.NamedNode)
    )


def test_a_store_of_the_code_before_the_rename_gets_the_builders_form(
    make_backend: Callable[[], Backend], seal: Seal
) -> None:
    """A signed document as the builders wrote it just before the activities' URIs were the
    reference's: after the migration, its source graph is what they write now, and it verifies."""
    stores = make_backend()
    write_batch(stores, [msg(old_activities(document()), "doc")], seal)
    assert seal_document(handle_of(stores), seal, DOC) is not None
    migrate(stores, seal)
    now = {quad_of(t) for t in document() if t.g == SOURCE.value}
    assert set(handle_of(stores).store.quads_for_pattern(None, None, None, SOURCE)) == now
    checked = verify_document(handle_of(stores), seal.keys, DOC)
    assert checked.verified, checked.problems
    reasons = [e.entry.reason for _, e in log.of_subject(handle_of(stores).store, DOC)]
    assert sorted(reasons) == ["", "migrated: the reference's URIs of extraction activities"]


def test_a_migration_killed_before_signing_renamed_activities_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed where it would sign the document over its renamed activities (the last step):
    the next start signs it (the pending mark), and the old names are gone."""
    append = Seal.append

    def killed_at_the_rename(self: Seal, *args: Any, **kwargs: Any) -> Any:
        if "URIs of extraction activities" in args[2]:  # the reason names the step
            raise SystemExit("killed")
        return append(self, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(Seal, "append", killed_at_the_rename)
        with pytest.raises(SystemExit):
            migrate(old_store, seal)
    assert facts(old_store) == ACTIVITIES  # renamed, but not yet signed again
    assert not verify_document(handle_of(old_store), seal.keys, DOC).verified
    migrate(old_store, seal)
    checked = verify_document(handle_of(old_store), seal.keys, DOC)
    assert checked.verified, checked.problems
    assert facts(old_store) == ACTIVITIES


def test_migrating_twice_changes_nothing(old_store: Backend, seal: Seal) -> None:
    migrate(old_store, seal)
    entries = len(log.of_subject(handle_of(old_store).store, DOC))
    assert migrate(old_store, seal) == 0
    assert len(log.of_subject(handle_of(old_store).store, DOC)) == entries
    assert verify_document(handle_of(old_store), seal.keys, DOC).verified


def test_a_migration_killed_before_signing_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    with killed_at(monkeypatch, "sign_all"):
        migrate(old_store, seal)
    assert facts(old_store) == BEFORE  # written, but not yet signed again
    assert not verify_document(handle_of(old_store), seal.keys, DOC).verified
    migrate(old_store, seal)  # the marks say what to sign again
    checked = verify_document(handle_of(old_store), seal.keys, DOC)
    assert checked.verified, checked.problems
    assert facts(old_store) == ACTIVITIES


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
    with store_before_start(tmp_path) as (stores, seal, settings):
        write_batch(stores, [msg(before_the_change(), "doc")], seal)
        assert seal_document(handle_of(stores), seal, DOC) is not None
    async with running(settings) as state:
        assert await state.read(facts) == ACTIVITIES
        checked = await state.read(lambda s: verify_document(handle_of(s), seal.keys, DOC))
        assert checked.verified, checked.problems
