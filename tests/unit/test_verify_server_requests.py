"""Verifying a trace with many sub-traces on a real ``oxigraph serve``: the log entries and
the quads of all its roots are read in batched requests, not several requests a root, and
an edit is still named through that path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import Counting, oxigraph_server
from tests.support.store import long_agent, msg
from trustgraph_base.provenance import (
    uris,
)
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.governance.verify import verify_trace
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.export import roots_of
from trustgraph_flow.store.views.lookup import RETRIEVAL

STEPS, SUB_EVERY = 60, 3  # 20 GraphRAG sub-traces: 21 roots
A = uris.agent_session_uri("long")


@pytest.fixture
def signed(tmp_path: Path) -> Iterator[tuple[Counting, RemoteStores, Seal]]:
    with oxigraph_server() as url:
        server = Counting(url)
        backend = RemoteStores(server)
        seal = open_seal(
            data_dir=str(tmp_path / "data"), key_file="", public_dir="", chain="", server=True
        )
        write_batch(backend, [msg(long_agent("long", STEPS, SUB_EVERY))], seal)
        yield server, backend, seal
        backend.close()


def test_a_trace_of_many_roots_verifies_in_batched_requests(
    signed: tuple[Counting, RemoteStores, Seal],
) -> None:
    server, backend, seal = signed
    with backend.lease("alice", "default") as handle:
        assert handle is not None
        roots = roots_of(handle, A)
        assert len(roots) == 1 + STEPS // SUB_EVERY
        server.requests = 0
        found = verify_trace(handle, seal.keys, "long")
    assert found.verified and [c.status for c in found.traces] == ["verified"] * len(roots)
    # Before: eight requests a root (its entries, records, tombstones, the next entry's,
    # its quads, the index's walk): 168 here. Now the index's two a root and a few batches.
    assert server.requests < 3 * len(roots)


def test_an_edit_is_named_through_the_batched_reads(
    signed: tuple[Counting, RemoteStores, Seal],
) -> None:
    _, backend, seal = signed
    step = ox.NamedNode(uris.agent_iteration_uri(A, 2))
    with backend.lease("alice", "default") as handle:
        assert handle is not None
        thought = next(
            q
            for q in handle.store.quads_for_pattern(step, None, None, RETRIEVAL)
            if isinstance(q.object, ox.Literal) and q.object.value == "think 2"
        )
        handle.store.remove(thought)
        handle.store.extend([ox.Quad(step, thought.predicate, ox.Literal("edited"), RETRIEVAL)])
        found = verify_trace(handle, seal.keys, "long")
    assert not found.verified
    assert [(p.code, p.subject) for p in found.problems] == [("changed", A)]
    assert f"<{step.value}> was changed" in found.problems[0].message
    assert [c.status for c in found.traces].count("tampered") == 1
