"""The OTLP exporter asks the store where a GraphRAG trace's selected edges were stated
(otel/sources.py), for the ready traces together, so that a trace the store makes wait holds
no other user's export: a trace the store has not got (it waited its ``trace_wait`` for it
already) is not asked again; one whose focus it has not written yet is."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.poll import until
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance.namespaces import RDF, TG
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_flow.otel import sources
from trustgraph_flow.otel.trace import Trace

Q = "urn:trustgraph:question:g1"


class Store:
    """The explain service as the exporter asks it: each request kept, answered ``answer``."""

    def __init__(self, answer: ExplainResponse | ServiceError) -> None:
        self.answer, self.asked = answer, list[ExplainRequest]()

    async def request(self, req: ExplainRequest, timeout: float) -> ExplainResponse:
        self.asked.append(req)
        if isinstance(self.answer, ServiceError):
            raise self.answer
        return self.answer


def graph_rag_trace() -> Trace:
    """A GraphRAG trace whose focus selected an edge, as the exporter gathered it."""
    facts = {
        Q: {RDF.type.i: [TG.Question.i, TG.GraphRagQuestion.i]},
        Q + "/focus": {TG.selectedEdge.i: [Q + "/focus/e1"]},
    }
    return Trace(Q, facts=facts, user="alice", collection="default")


@pytest.fixture(autouse=True)
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "TRIES", (0.0, 0.0))  # the second ask at once, not after 1 s


async def test_a_trace_the_store_has_not_got_is_asked_once() -> None:
    store = Store(ServiceError(ErrorType.NOT_FOUND, f"no trace {Q!r} in this collection"))
    trace = graph_rag_trace()
    await sources.edge_sources(store, trace)  # type: ignore[arg-type]
    assert [r.id for r in store.asked] == [Q]  # before: asked twice, each waiting 3 s
    assert trace.edges == {}


@pytest.mark.parametrize(
    "answer",
    [
        ExplainResponse(),  # an answer with no edges: its focus not written yet
        ServiceError(ErrorType.STORE_UNAVAILABLE, "the store server is away"),
    ],
    ids=["no-edges-yet", "store-away"],
)
async def test_a_trace_without_its_edges_yet_is_asked_again(answer: Any) -> None:
    store = Store(answer)
    await sources.edge_sources(store, graph_rag_trace())  # type: ignore[arg-type]
    assert [r.id for r in store.asked] == [Q, Q]


async def test_a_trace_the_store_makes_wait_holds_no_other_trace() -> None:
    """The ready traces are asked about together: bob's is asked while alice's waits."""
    held = asyncio.Event()

    class Waiting(Store):
        async def request(self, req: ExplainRequest, timeout: float) -> ExplainResponse:
            self.asked.append(req)
            if req.user == "alice":
                await held.wait()  # the store waits for a trace it has not got yet
            raise ServiceError(ErrorType.NOT_FOUND, "no trace")

    store = Waiting(ExplainResponse())
    alice, bob = graph_rag_trace(), graph_rag_trace()
    bob.user = "bob"
    asking = asyncio.create_task(sources.all_edge_sources(store, [alice, bob]))  # type: ignore[arg-type]

    async def bob_asked() -> bool:
        return [r.user for r in store.asked] == ["alice", "bob"]

    await until(bob_asked)  # before: bob's waited behind alice's
    held.set()
    await asking
