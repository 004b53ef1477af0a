"""An answer's trace is never queued behind a load's backlog (docs/store.md, "Intake"): traces
travel on ``explain-store``, a subscription of the store's own, not on ``triples-store``
behind a large load's provenance and edges.

Real broker, store and GraphRAG (offline engine). The load's messages are held unwritten on
the store's ``triples-store`` subscription by a consumer that takes them and does not ack
(as a busy replica of the store would), so nothing here is timed: the trace must be complete
while part of the load is, for certain, not written; once released, the load is written
whole.
"""

from __future__ import annotations

from tests.conftest import RunningProcessors
from tests.integration.test_rag_graph import Q, ask
from tests.support.poll import until
from tests.support.rag import COLLECTION, USER, World, start_stack, world_fixture  # noqa: F401
from trustgraph_base.messaging import EXPLAIN, TRIPLES_QUERY, TRIPLES_STORE
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import ExplainRequest, Metadata, Triples, TriplesQueryRequest
from trustgraph_base.settings import ProcessorSettings

LOAD = "load"  # the collection the load goes into
MESSAGES = 60  # the load's messages, one triple each


async def test_a_question_asked_during_a_load_has_its_trace_stored_ahead_of_the_load(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    await start_stack(processors, settings)
    await world.seed()
    topic = world.topics.topic(TRIPLES_STORE)
    # Joins the store's own Shared subscription (from this process, as a second consumer of
    # it: pulsar-lite refuses a second process, docs/messaging.md): what it is handed waits
    # there unacked, never kicked on.
    holder = await world.bus.subscribe(topic, f"store.{TRIPLES_STORE}", awaited=lambda: False)
    try:
        for n in range(MESSAGES):
            fact = Triple(s=iri(f"urn:load:{n}"), p=iri("urn:load:p"), o=lit(n))
            meta = Metadata(id=f"urn:load:m{n}", user=USER, collection=LOAD)
            await world.bus.publish(topic, Triples(metadata=meta, triples=[fact]))
        await holder.receive()  # at least that one is held, unwritten, from here on
        await ask(world, query="What does the fox jump over?", session_id="during-load")
        req = ExplainRequest(
            operation="get-trace", id=Q + "during-load", user=USER, collection=COLLECTION
        )

        async def complete() -> bool:
            view = (await world.client(EXPLAIN).request(req, timeout=10)).trace
            return view is not None and view.status == "complete"

        await until(complete)
        assert len(await loaded(world)) < MESSAGES  # the load is not all written
    finally:
        await holder.close()  # closed, not unsubscribed: what it held goes back to the store

    async def whole() -> bool:
        return len(await loaded(world)) == MESSAGES

    await until(whole)  # nothing of the load was lost


async def loaded(world: World) -> list[Triple]:
    req = TriplesQueryRequest(user=USER, collection=LOAD, p=iri("urn:load:p"), limit=1000)
    return list((await world.client(TRIPLES_QUERY).request(req, timeout=10)).triples)
