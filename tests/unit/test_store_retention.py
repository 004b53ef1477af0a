"""Retention on a real store (on disk, or the test's SPARQL server): delete-trace, purge by age (dry run and real), durations."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sparql_server import embedded_only, store_backend
from tests.support.store import agent, document, graph_rag, handle_of, msg, recent
from trustgraph_base.durations import parse_duration
from trustgraph_base.provenance import grounding_triples, uris
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_flow.store.backends.embedded.trace_index import TraceIndex
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.governance import retention
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.settings import StoreSettings
from trustgraph_flow.store.service.writer import write_batch


@pytest.fixture
def stores(tmp_path: Path) -> Backend:
    s = store_backend(tmp_path / "store")
    for user in ("alice", "bob"):
        write_batch(s, [msg(document(), "doc", user=user)])
        write_batch(
            s,
            [
                msg(graph_rag("old", 1), user=user),
                msg(agent("a1", 3, "g-sub"), user=user),
                msg(recent("new"), user=user),
            ],
        )
    return s


def op(stores: Backend, operation: str, user: str = "alice", **extra: object) -> ExplainResponse:
    return explain_op(stores, ExplainRequest(operation=operation, user=user, **extra))


def listed(stores: Backend, user: str = "alice") -> list[str]:
    return [t.id.rsplit(":", 1)[1] for t in op(stores, "list-traces", user).traces]


def test_durations() -> None:
    assert parse_duration("30d") == 30 * 86400
    assert parse_duration(" 1d12h ") == 36 * 3600
    assert parse_duration("2W") == 14 * 86400
    for bad in ("", "30", "d", "3x", "-1d", "1.5d"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_delete_trace_takes_its_subtraces(stores: Backend) -> None:
    resp = op(stores, "delete-trace", id="a1")
    assert [t.id for t in resp.deleted] == [uris.agent_session_uri("a1")]
    assert handle_of(stores).index.get(uris.graph_rag_question_uri("g-sub")) is None
    assert listed(stores) == ["new", "old"]


def test_purge_by_age_dry_run_then_real_in_one_collection_only(stores: Backend) -> None:
    dry = op(stores, "purge-traces", older_than=30 * 86400, dry_run=True)
    assert dry.count == 2 and [t.id.rsplit(":", 1)[1] for t in dry.deleted] == [
        "old",
        "a1",
    ]  # oldest first
    assert listed(stores) == ["new", "a1", "old"]
    assert op(stores, "purge-traces", older_than=30 * 86400, limit=1).count == 2
    assert listed(stores) == ["new"]
    assert listed(stores, "bob") == ["new", "a1", "old"]


def test_retention_pass_covers_every_collection_stored(stores: Backend, tmp_path: Path) -> None:
    stores.close()
    reopened = store_backend(tmp_path / "store")  # a fresh process's view
    assert sorted(reopened.scopes()) == [("alice", "default"), ("bob", "default")]
    assert retention.purge_all(reopened, 30 * 86400) == 4
    assert listed(reopened) == ["new"] and listed(reopened, "bob") == ["new"]


def test_a_bad_retention_setting_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="bad duration '30 days'"):
        StoreSettings(retention="30 days")
    assert StoreSettings(retention="30d").retention == "30d"


@embedded_only("an index written before a grounding was known to be its trace's")
def test_a_grounding_indexed_as_a_trace_of_its_own_goes_with_its_trace(stores: Backend) -> None:
    q = uris.graph_rag_question_uri("old")
    grounding = uris.grounding_uri(q)
    write_batch(stores, [msg(grounding_triples(grounding, q, ["the fox"]), user="alice")])
    handle = handle_of(stores)
    assert grounding in handle.index.entities(q)
    # As an index written before kept it: the grounding its own trace's root.
    assert isinstance(handle.index, TraceIndex)
    with handle.index.db:
        handle.index.db.execute("UPDATE entities SET root = uri WHERE uri = ?", (grounding,))
    assert grounding not in handle.index.entities(q)
    assert [t.id for t in op(stores, "delete-trace", id=q).deleted] == [q]
    assert not list(handle.store.quads_for_pattern(named(grounding), None, None, None))
    assert handle.index.entities(grounding) == []
