"""What the migration tests share (docs/conformance.md, "Adopted"): a store's seal, our
software agents' IRIs as written before, and a migration killed where it would sign again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from trustgraph_base.provenance.document_uris import COMPONENT_PREFIX, OLD_COMPONENT_PREFIX
from trustgraph_base.rdf.terms import IriTerm
from trustgraph_flow.store.governance.seal import Seal, open_seal


def seal_fixture() -> Any:
    """A ``seal`` fixture: a deployment's keyring and chain in the test's directory."""

    @pytest.fixture
    def seal(tmp_path: Path) -> Seal:
        return open_seal(
            data_dir=str(tmp_path / "data"), key_file="", public_dir="", chain="", server=False
        )

    return seal


def old_agent_iri(term: Any) -> Any:
    """``term`` with a software agent's IRI as it was before (``urn:trustgraph:component:``)."""
    if isinstance(term, IriTerm) and term.i.startswith(COMPONENT_PREFIX):
        return IriTerm(i=OLD_COMPONENT_PREFIX + term.i[len(COMPONENT_PREFIX) :])
    return term


@contextmanager
def killed_at(monkeypatch: pytest.MonkeyPatch, step: str) -> Iterator[None]:
    """The block's migration killed when it reaches ``Seal.<step>`` (before signing again)."""

    def killed(*args: object, **kwargs: object) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(Seal, step, killed)
        with pytest.raises(SystemExit):
            yield
