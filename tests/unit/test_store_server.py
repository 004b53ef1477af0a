"""The server backend on a real ``oxigraph serve``: isolation, logical graph names, idempotent
writes (replayed, and raced by two replicas), blank nodes, an unreachable server, the setting."""

from __future__ import annotations

import gc
import http.client
import threading
import time
from collections.abc import Iterator

import pydantic
import pytest

from tests.support.hung_server import hung_server
from tests.support.sparql_server import Counting, oxigraph_server
from tests.support.store import (
    DOC,
    EDGE_FOX,
    TIME,
    Layout,
    document,
    graph_rag,
    labels,
    long_agent,
    msg,
    paged_document,
)
from trustgraph_base.messaging import free_port
from trustgraph_base.rdf.terms import BlankTerm, Triple, iri, lit
from trustgraph_base.schema import ExplainRequest, TriplesQueryRequest
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_flow.store.backends.server.remote import RemoteStore
from trustgraph_flow.store.backends.server.scope import rename_graphs, scope_iri
from trustgraph_flow.store.backends.server.stores import RemoteStores, open_server
from trustgraph_flow.store.governance import retention
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.settings import StoreSettings
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.sparql.check import check_query
from trustgraph_flow.store.sparql.client import SparqlServer, StoreTimeout, StoreUnavailable
from trustgraph_flow.store.views import query


@pytest.fixture
def url() -> Iterator[str]:
    with oxigraph_server() as found:
        yield found


@pytest.fixture
def stores(url: str) -> Iterator[RemoteStores]:
    backend = RemoteStores(SparqlServer(url))
    yield backend
    backend.close()


def ask(stores: RemoteStores, user: str, text: str) -> SparqlQueryResponse:
    with stores.lease(user, "default") as handle:
        assert handle is not None and isinstance(handle.store, RemoteStore)
        return handle.store.sparql(text, check_query(text), 10)


def count(stores: RemoteStores) -> int:
    """Every quad on the server but the registry's."""
    rows = stores.server.rows(
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(?g != <urn:tg:store:registry>) }"
    )
    return int(rows[0]["n"].value)


def test_a_query_sees_only_its_own_collection_in_logical_graph_names(
    stores: RemoteStores,
) -> None:
    write_batch(stores, [msg(graph_rag("a1", 1), user="alice"), msg(labels(), user="bob")])
    mine = ask(stores, "alice", "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert [b.values[0].i for b in mine.bindings] == ["urn:graph:retrieval"]  # type: ignore[union-attr]
    q = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:graph:retrieval> { ?s ?p ?o } }"
    assert int(ask(stores, "alice", q).bindings[0].values[0].v) > 10  # type: ignore[union-attr]
    assert ask(stores, "bob", q).bindings[0].values[0].v == "0"  # type: ignore[union-attr]
    # Naming alice's physical graphs, or asking for them with FROM, still sees only bob's.
    theirs = f"{scope_iri('alice', 'default')}:g:urn:graph:retrieval"
    for text in (
        f"SELECT * WHERE {{ GRAPH <{theirs}> {{ ?s ?p ?o }} }}",
        f"SELECT * FROM <{theirs}> FROM NAMED <{theirs}> WHERE {{ {{ ?s ?p ?o }} UNION {{ GRAPH ?g {{ ?s ?p ?o }} }} FILTER(isIRI(?s) && CONTAINS(STR(?s), 'question')) }}",
    ):
        assert ask(stores, "bob", text).bindings == []
    # The default graph is the collection's own; the index graph is never visible.
    labelled = ask(stores, "bob", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert labelled.bindings[0].values[0].v == str(len(labels()))  # type: ignore[union-attr]


def test_replayed_and_raced_batches_leave_one_copy(url: str, stores: RemoteStores) -> None:
    batch = [msg(graph_rag(f"g{n}", n)) for n in range(5)]
    write_batch(stores, batch)
    once = count(stores)
    replicas = [RemoteStores(SparqlServer(url)) for _ in range(2)]
    threads = [threading.Thread(target=write_batch, args=(r, batch)) for r in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert count(stores) == once
    listed = explain_op(stores, ExplainRequest(operation="list-traces", user="alice"))
    assert [t.id.rsplit(":", 1)[1] for t in listed.traces] == ["g4", "g3", "g2", "g1", "g0"]
    for r in replicas:
        r.close()


def test_blank_nodes_keep_their_identity(stores: RemoteStores) -> None:
    node = BlankTerm(d="b1")
    triples = [
        Triple(s=node, p=iri("urn:p"), o=lit("x")),
        Triple(s=iri("urn:s"), p=iri("urn:q"), o=node),
    ]
    write_batch(stores, [msg(triples)])
    write_batch(stores, [msg(triples)])  # redelivered
    assert count(stores) == 2
    with stores.lease("alice", "default") as handle:
        assert handle is not None
        found = query.triples_query(handle.store, TriplesQueryRequest(s=node, user="alice"))
    assert [(t.s, t.o) for t in found.triples] == [(node, lit("x"))]


def test_renaming_touches_only_graph_iris_outside_strings_and_comments() -> None:
    names = {"urn:graph:source": "urn:x:g:urn:graph:source"}
    text = (
        "SELECT ?s WHERE { GRAPH <urn:graph:source> { ?s ?p '<urn:graph:source>' } "
        '# <urn:graph:source>\n FILTER(?s != """<urn:graph:source>""") }'
    )
    assert rename_graphs(text, names) == text.replace(
        "GRAPH <urn:graph:source>", "GRAPH <urn:x:g:urn:graph:source>", 1
    )


def test_an_unreachable_server_leaves_the_batch_unwritten_to_be_held() -> None:
    # Held by the processor until the server answers (test_store_replicas), not redelivered.
    down = RemoteStores(SparqlServer(f"http://127.0.0.1:{free_port()}", timeout=2))
    batch = [msg(graph_rag("g1", 1))]
    report = write_batch(down, batch)
    assert report.unavailable == batch and report.retry == [] and report.written == 0
    with pytest.raises(StoreUnavailable, match="unreachable"), down.lease("alice", "default"):
        pass


def test_an_outage_keeps_no_connection_per_failed_request() -> None:
    # The held writes' probe asks a down shard every few seconds for as long as it is down:
    # each refused request closed its connection but kept it in the client's list (~35,000 a day).
    port = free_port()
    down = SparqlServer(f"http://127.0.0.1:{port}", timeout=2)
    for _ in range(20):
        with pytest.raises(StoreUnavailable, match="unreachable"):
            down.ask("ASK {}")
    gc.collect()
    kept = [
        o for o in gc.get_objects() if isinstance(o, http.client.HTTPConnection) and o.port == port
    ]
    assert kept == []


def test_a_hung_server_is_waited_for_once_then_failed_at_once_until_it_answers() -> None:
    # A single server that hangs (a SIGSTOP-ed oxigraph serve) held a reader thread for the
    # whole timeout on every read; as a sharded store's shard does (sparql/stalls.py), it is
    # stalled after its first timeout: its requests fail at once while a probe asks it.
    port = free_port()
    with oxigraph_server(port=port) as url:
        backend = open_server(url, 1.0)
    with hung_server(port) as hung:  # the same port, now taking requests and never answering
        try:
            with pytest.raises(StoreTimeout, match="did not answer within 1 s"):
                backend.scopes()
            for _ in range(3):
                with pytest.raises(StoreTimeout, match="did not answer within 1 s"):
                    with backend.lease("alice", "default"):
                        pass
            assert hung.queries() == 1  # the rest never reached it: only its probes did
        except BaseException:
            backend.close()
            raise
    with oxigraph_server(port=port):  # it answers again: its probe lets its requests go
        try:
            deadline = time.monotonic() + 15
            while (found := _scopes_or_none(backend)) is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert found == []
        finally:
            backend.close()


def _scopes_or_none(backend: RemoteStores) -> list[tuple[str, str]] | None:
    try:
        return backend.scopes()
    except StoreUnavailable:  # still stalled (a StoreTimeout), or the probe not yet answered
        return None


def test_the_setting_must_be_an_http_url() -> None:
    with pytest.raises(pydantic.ValidationError, match="not an http"):
        StoreSettings(store_uri="ftp://example.org/sparql")
    assert StoreSettings(store_uri=" http://oxigraph:7878 ").store_uri == "http://oxigraph:7878"


def test_a_deleted_trace_leaves_nothing_behind(stores: RemoteStores) -> None:
    write_batch(stores, [msg(graph_rag("g1", 1)), msg(graph_rag("g2", 2))])
    before = count(stores)
    gone = explain_op(stores, ExplainRequest(operation="delete-trace", id="g1", user="alice"))
    assert [t.id.rsplit(":", 1)[1] for t in gone.deleted] == ["g1"]
    listed = explain_op(stores, ExplainRequest(operation="list-traces", user="alice"))
    assert [t.id.rsplit(":", 1)[1] for t in listed.traces] == ["g2"]
    left = ask(stores, "alice", "ASK { GRAPH ?g { ?s ?p ?o FILTER(CONTAINS(STR(?s), 'g1')) } }")
    assert left.ask_result is False and count(stores) < before


def test_a_long_trace_is_read_in_a_few_requests_not_one_per_entity(url: str) -> None:
    # One request per entity was 20,000 for a 20,000-step trace: oxigraph serve started with
    # --timeout-s keeps a thread per query for that long, and ran out (500, EAGAIN).
    server = Counting(url)
    backend = RemoteStores(server)
    write_batch(backend, [msg(long_agent("long", 1_500, 500)), msg(labels())])
    server.requests = 0
    req = ExplainRequest(operation="get-trace", id="long", user="alice", include_provenance=True)
    view = explain_op(backend, req).trace
    assert view is not None
    assert [s.index for s in view.steps] == list(range(1, 1_501))
    assert [s.observation for s in view.steps[-2:]] == ["saw 1499", "saw 1500"]
    subs = {s.index: s.subtraces for s in view.steps if s.subtraces}
    assert sorted(subs) == [500, 1000, 1500]
    edge = subs[1500][0].edges[0]
    assert (edge.reasoning, edge.s_label, edge.o_label) == ("the fox acts", "fox", "dog")
    assert view.answer == "done"
    assert server.requests < 40  # one per entity and per link followed before: over 4,500
    backend.close()


def test_the_hierarchy_and_lineage_of_a_much_used_document_take_a_few_requests(url: str) -> None:
    server = Counting(url)
    backend = RemoteStores(server)
    write_batch(backend, [msg(document()), msg(labels())])
    write_batch(backend, [msg(graph_rag(f"g{i}", i % 60)) for i in range(60)])
    server.requests = 0
    doc = explain_op(backend, ExplainRequest(operation="document-hierarchy", id=DOC, user="alice"))
    assert doc.document is not None
    page1 = doc.document.pages[0]
    assert [c.used_by for c in page1.chunks] == [60, 0] and page1.used_by == 60
    assert page1.chunks[0].edges[0].s_label == "fox"
    hierarchy = server.requests
    server.requests = 0
    req = ExplainRequest(operation="source-usage", id=DOC, user="alice", limit=100)
    usage = explain_op(backend, req).usage
    assert usage is not None and len(usage.traces) == 60
    assert all(
        p.edge is not None and p.edge.o_label == "dog" for t in usage.traces for p in t.paths
    )
    assert hierarchy < 20 and server.requests < 20  # one request per lookup was hundreds
    backend.close()


def test_a_large_document_is_removed_in_a_few_requests_not_several_per_chunk(url: str) -> None:
    # Several lookups and a delete per entity were ~200,000 requests for a 12,000-chunk text:
    # oxigraph serve started with --timeout-s keeps a thread per query for that long, ran out
    # (500, EAGAIN) and then refused every user's requests.
    server = Counting(url)
    backend = RemoteStores(server)
    layout: Layout = {
        p: [(c, [EDGE_FOX] if c == 0 else []) for c in range(60)] for p in range(1, 11)
    }
    write_batch(backend, [msg(paged_document(DOC, "Big", layout, TIME.format(0))), msg(labels())])
    shared = count(backend)  # the labels and the fox edge's own statement stay only if shared
    server.requests = 0
    req = ExplainRequest(operation="delete-document", id=DOC, user="alice")
    explain_op(backend, req)  # 10 pages, 600 chunks
    assert server.requests < 60  # 8,507 before
    left = ask(backend, "alice", "ASK { GRAPH ?g { ?s ?p ?o FILTER(CONTAINS(STR(?s), 'd1')) } }")
    assert left.ask_result is False and count(backend) < shared
    backend.close()


def test_two_replicas_running_retention_at_once_both_finish_and_leave_nothing(
    url: str, stores: RemoteStores
) -> None:
    # Every replica started with --retention runs its passes on the same clock, over the same
    # expired traces: one finds a trace gone that it listed a moment ago (the other removed
    # it), and that must not end its pass (it skipped every collection after this one).
    write_batch(stores, [msg(graph_rag(f"g{n}", n % 60), f"m{n}") for n in range(80)])
    write_batch(stores, [msg(graph_rag("b", 1), "b", user="bob")])
    replicas = [RemoteStores(SparqlServer(url)) for _ in range(2)]
    failures: list[BaseException] = []
    removed: list[int] = []

    def run(replica: RemoteStores) -> None:
        try:
            removed.append(retention.purge_all(replica, 86_400))
        except BaseException as exc:  # reported by the assert below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(r,)) for r in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in replicas:
        r.close()
    assert failures == []
    assert sum(removed) >= 81  # each trace by one replica at least (both may count one)
    for user in ("alice", "bob"):
        listed = explain_op(stores, ExplainRequest(operation="list-traces", user=user))
        assert listed.traces == []
