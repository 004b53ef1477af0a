"""D6 on the real broker and store: a runaway SPARQL query is stopped at its time limit (its
worker process killed, so its memory is freed) while other tenants' reads are answered."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.conftest import RunningProcessors
from tests.support.poll import eventually
from tests.support.sparql_server import embedded_only
from tests.support.store import graph_rag, msg
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import EXPLAIN, SPARQL, TRIPLES_STORE, Bus, RequestClient, Topics
from trustgraph_base.rdf.terms import LiteralTerm, Triple, iri
from trustgraph_base.schema import ExplainRequest, SparqlQueryRequest
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.store.processor import StoreSettings, proc

HEAVY = (
    "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?a { ?s1 ?p1 ?o1 } GRAPH ?b { ?s2 ?p2 ?o2 } "
    "GRAPH ?c { ?s3 ?p3 ?o3 } GRAPH ?d { ?s4 ?p4 ?o4 } }"
)


def sparql_workers() -> set[int]:
    """This process's SPARQL worker processes (the store runs in this test's process)."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"sparql.worker" in cmd:
            found.add(int(pid))
    return found


@embedded_only("its SPARQL worker processes (a server stops a query by its own time limit)")
async def test_runaway_query_is_stopped_and_others_are_served(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    fields = {**settings.model_dump(), "sparql_timeout": 3.0, "sparql_workers": 2}
    await processors.start(proc, StoreSettings(**fields))
    sparql = RequestClient(bus, topics, SPARQL, "tester")
    explain = RequestClient(bus, topics, EXPLAIN, "tester")
    rows = [
        Triple(s=iri(f"urn:s{i}"), p=iri("urn:p"), o=LiteralTerm(v=str(i)), g="urn:g")
        for i in range(400)
    ]
    await bus.publish(topics.topic(TRIPLES_STORE), msg(rows, "big", user="bob"))
    await bus.publish(topics.topic(TRIPLES_STORE), msg(rows, "big", user="carol"))
    await bus.publish(topics.topic(TRIPLES_STORE), msg(graph_rag("alice1", 1), "a", user="alice"))

    async def alice_traces() -> list[str]:
        resp = await explain.request(
            ExplainRequest(operation="list-traces", user="alice"), timeout=10
        )
        return [t.id.rsplit(":", 1)[1] for t in resp.traces]

    assert await eventually(alice_traces, lambda v: v == ["alice1"]) == ["alice1"]
    for user in ("bob", "carol"):
        count = SparqlQueryRequest(
            user=user, query="SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
        )
        assert (
            await eventually(
                lambda: sparql.request(count, timeout=10),  # noqa: B023  # awaited in this turn
                lambda r: r.bindings[0].values[0].v == "400",  # type: ignore[union-attr]  # COUNT binds a literal
            )
        ).bindings
    before = sparql_workers()
    assert len(before) == 2

    heavy = [
        asyncio.ensure_future(
            sparql.request(SparqlQueryRequest(user=user, query=HEAVY), timeout=60)
        )
        for user in ("bob", "carol")  # two users: one user holds one worker at most
    ]
    await asyncio.sleep(0)  # both sent: they hold both workers now
    served = 0
    while not all(h.done() for h in heavy):  # meanwhile alice is answered, again and again
        assert await alice_traces() == ["alice1"]
        served += 1
    assert served > 0
    for h in heavy:
        err = h.exception()
        assert (
            isinstance(err, ServiceError) and err.type == "timeout" and "was stopped" in err.message
        )
    assert before.isdisjoint(sparql_workers())  # the workers that ran them are gone
    asked = await sparql.request(
        SparqlQueryRequest(user="alice", query="ASK { ?s ?p ?o }"), timeout=30
    )
    assert asked.ask_result is False  # alice's default graph is empty; fresh workers answer
    await sparql.close()
    await explain.close()
