"""The server backend's trace list (time buckets in the graph index) against the embedded
sqlite index on the same traces: the same pages in the same order, in a few requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.sparql_server import Counting, oxigraph_server
from tests.support.store import msg
from trustgraph_base.provenance import (
    agent_iteration_triples,
    agent_session_triples,
    graph_rag_question_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import ExplainRequest
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.server.graph_list import PROBE
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.writer import write_batch


def question(sid: str, when: str, parent: str | None = None, done: bool = True) -> list[Triple]:
    q = uris.graph_rag_question_uri(sid)
    out = graph_rag_question_triples(q, f"question {sid}", when, parent)
    return out + (synthesis_triples(uris.synthesis_uri(q), q, "answer") if done else [])


def traces() -> list[Triple]:
    """Buckets of every shape: a second with more than PROBE traces (newest), a minute of
    sparse seconds that is more than PROBE in all, a small hour read whole, an older day, and
    agents whose sub-traces share their second (never listed)."""
    out: list[Triple] = []
    for n in range(PROBE + 40):  # one second, newest
        out += question(f"dense{n}", f"2026-01-02T10:05:07.{n:06d}Z", done=n % 3 != 0)
    for n in range(PROBE + 20):  # one minute, ~5 a second
        out += question(f"minute{n}", f"2026-01-02T10:04:{n // 5:02d}.{n:06d}Z")
    for n in range(30):  # a small hour: read whole at the hour
        out += question(f"hour{n}", f"2026-01-02T08:{n:02d}:00.000Z")
    for n in range(12):  # an older day, some agents with a sub-trace in the same second
        when = f"2026-01-01T{n:02d}:00:00.000Z"
        if n % 3:
            out += question(f"old{n}", when)
            continue
        a = uris.agent_session_uri(f"agent{n}")
        step = uris.agent_iteration_uri(a, 1)
        out += agent_session_triples(a, f"agent {n}", when)
        out += agent_iteration_triples(step, a, "look", "knowledge-query", {}, "seen")
        out += question(f"sub{n}", when, parent=step)
    return out


@pytest.fixture
def backends(tmp_path: Path) -> Iterator[tuple[Stores, RemoteStores, Counting]]:
    with oxigraph_server() as url:
        embedded, server = Stores(tmp_path / "store"), Counting(url)
        remote = RemoteStores(server)
        batch = [msg(traces())]
        write_batch(embedded, batch)
        write_batch(remote, batch)
        yield embedded, remote, server
        remote.close()
        embedded.close()


def pages(backend: Backend, limit: int, **fields: Any) -> list[list[str]]:
    """Every page of the list, walked by cursor: each page's ids."""
    out: list[list[str]] = []
    cursor: str | None = None
    while True:
        req = ExplainRequest(
            operation="list-traces", user="alice", limit=limit, cursor=cursor, **fields
        )
        resp = explain_op(backend, req)
        out.append([t.id for t in resp.traces])
        cursor = resp.cursor
        if cursor is None:
            return out


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"search": "question dense1"},
        {"status": "in-progress"},
        {"since": "2026-01-02T08:10:00Z", "until": "2026-01-02T10:04:30Z"},
        {"until": "2026-01-02T09:00:00Z"},
    ],
)
def test_the_server_lists_the_pages_the_sqlite_index_lists(
    backends: tuple[Stores, RemoteStores, Counting], fields: dict[str, str]
) -> None:
    embedded, remote, _ = backends
    expect = pages(embedded, 50, **fields)
    assert sum(map(len, expect)) > 0
    assert pages(remote, 50, **fields) == expect


def test_every_trace_is_listed_once_newest_first_without_sub_traces(
    backends: tuple[Stores, RemoteStores, Counting],
) -> None:
    _, remote, _ = backends
    ids = [i for page in pages(remote, 97) for i in page]
    assert len(ids) == len(set(ids)) == (PROBE + 40) + (PROBE + 20) + 30 + 12
    assert ids[0] == uris.graph_rag_question_uri(f"dense{PROBE + 39}")
    assert not any(":sub" in i for i in ids)


def test_the_newest_50_take_one_request_per_bucket_level(
    backends: tuple[Stores, RemoteStores, Counting],
) -> None:
    _, remote, server = backends
    req = ExplainRequest(operation="list-traces", user="alice", limit=50)
    server.requests = 0
    listed = explain_op(remote, req).traces
    assert [t.id for t in listed][:2] == [
        uris.graph_rag_question_uri(f"dense{PROBE + 39}"),
        uris.graph_rag_question_uri(f"dense{PROBE + 38}"),
    ]
    # the days, the day's and the hour's and the minute's probes, the second's members and
    # keys, the facts of the page's members: no registry lookup (an absent collection reads
    # as an empty one), no sort-key lookup apart from the members'
    assert server.requests == 6


def test_an_absent_collection_lists_nothing_and_has_no_traces(
    backends: tuple[Stores, RemoteStores, Counting],
) -> None:
    for backend in backends[:2]:
        req = ExplainRequest(operation="list-traces", user="nobody", limit=50)
        assert explain_op(backend, req).traces == []
        with pytest.raises(Exception, match="no trace"):
            explain_op(backend, ExplainRequest(operation="get-trace", user="nobody", id="dense1"))
        assert ("nobody", "default") not in backend.scopes()
