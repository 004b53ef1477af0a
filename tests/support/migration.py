"""What the migration tests share (docs/conformance.md, "Adopted"): a store's seal, our
software agents' IRIs as written before, a migration killed where it would sign again, and
what still verifies after."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.sparql_server import store_backend
from trustgraph_base.integrity.keys import Keyring
from trustgraph_base.provenance.document_uris import (
    COMPONENT_PREFIX,
    OLD_COMPONENT_PREFIX,
    STAGES,
    reference_activity_uri,
)
from trustgraph_base.rdf.terms import IriTerm, Triple
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.governance.migrate import migrate
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.governance.verify import verify_document, verify_trace
from trustgraph_flow.store.service.settings import StoreSettings


def seal_fixture() -> Any:
    """A ``seal`` fixture: a deployment's keyring and chain in the test's directory."""

    @pytest.fixture
    def seal(tmp_path: Path) -> Seal:
        return open_seal(data_dir=str(tmp_path / "data"))

    return seal


@contextmanager
def store_before_start(tmp_path: Path) -> Iterator[tuple[Backend, Seal, StoreSettings]]:
    """A store of the suite's backend (embedded, or ``TG_STORE_URI``'s server) and its seal,
    to write what a store processor then starts on with the settings given (closed after)."""
    data, uri = tmp_path / "data", os.environ.get("TG_STORE_URI", "")
    seal = open_seal(data_dir=str(data), server=bool(uri))
    stores = store_backend(data / "store")
    try:
        yield stores, seal, StoreSettings(data_dir=str(data), store_uri=uri)
    finally:
        stores.close()


def old_agent_iri(term: Any) -> Any:
    """``term`` with a software agent's IRI as it was before (``urn:trustgraph:component:``)."""
    if isinstance(term, IriTerm) and term.i.startswith(COMPONENT_PREFIX):
        return IriTerm(i=OLD_COMPONENT_PREFIX + term.i[len(COMPONENT_PREFIX) :])
    return term


def old_activities(triples: list[Triple]) -> list[Triple]:
    """The triples with each extraction activity named as ours were before the reference's
    URIs: ``{entity}/activity/{stage}``, the entity the activity used."""
    named = {x.i for t in triples for x in (t.s, t.o) if isinstance(x, IriTerm)}
    before = {
        reference_activity_uri(old): old
        for entity in named
        for old in (f"{entity}/activity/{stage}" for stage in STAGES)
    }

    def old(term: Any) -> Any:
        return IriTerm(i=before[term.i]) if isinstance(term, IriTerm) and term.i in before else term

    return [t.model_copy(update={"s": old(t.s), "o": old(t.o)}) for t in triples]


@contextmanager
def killed_at(monkeypatch: pytest.MonkeyPatch, step: str) -> Iterator[None]:
    """The block's migration killed when it reaches ``Seal.<step>`` (before signing again)."""

    def killed(*args: object, **kwargs: object) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(Seal, step, killed)
        with pytest.raises(SystemExit):
            yield


def assert_verified(
    handle: Handle, keys: Keyring, documents: tuple[str, ...] = (), traces: tuple[str, ...] = ()
) -> None:
    """Each of ``documents`` and ``traces`` still verifies (its problems shown if not)."""
    checks = [verify_document(handle, keys, d) for d in documents]
    checks += [verify_trace(handle, keys, t) for t in traces]
    for checked in checks:
        assert checked.verified, checked.problems


def killed_then_resumed(
    monkeypatch: pytest.MonkeyPatch, stores: Backend, seal: Seal, verified: Callable[[], bool]
) -> None:
    """A migration killed where it signs again (``verified()`` is then false: the owner is
    changed and not yet signed again), then the next start's."""
    with killed_at(monkeypatch, "append"):
        migrate(stores, seal)
    assert not verified()
    migrate(stores, seal)
