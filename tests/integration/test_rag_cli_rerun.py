"""``-x`` after a service was killed mid-answer and ran the question again: the rerun
continues the same trace and tells the stages its run journal kept a second time (as
graph-rag does after kill -9: docs/messaging.md, "Answered requests"); the command names each
entity once, in the order first told. Found as a new user (every ``Explain:`` line twice)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from tests.support.stack import Stack, stack_fixture
from trustgraph_base.messaging import GRAPH_RAG, Context, Processor
from trustgraph_base.provenance import GRAPH_RETRIEVAL
from trustgraph_base.schema import GraphRagRequest, GraphRagResponse
from trustgraph_base.settings import ProcessorSettings

Q = "urn:trustgraph:question:0f3c2a9e-rerun"
STAGES = [Q, f"{Q}/exploration"]  # told by the killed run, then again by the rerun
ANSWER = "Paris is the capital of France."

rerun: Processor[ProcessorSettings] = Processor("rerun-rag")


@rerun.service(GRAPH_RAG)
async def graph_rag(
    req: GraphRagRequest, ctx: Context[ProcessorSettings]
) -> AsyncIterator[GraphRagResponse]:
    for uri in [*STAGES, *STAGES, f"{Q}/synthesis"]:
        yield GraphRagResponse(
            message_type="explain", explain_id=uri, explain_graph=GRAPH_RETRIEVAL,
            end_of_stream=False,
        )  # fmt: skip
    yield GraphRagResponse(response=ANSWER, explain_id=Q, end_of_session=True)


stack = stack_fixture([rerun])


async def test_each_trace_entity_is_named_once_when_a_rerun_tells_it_again(stack: Stack) -> None:
    result = await stack.cli("tg-invoke-graph-rag", "-x", "-q", "What is the capital of France?")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == ANSWER
    told = [line for line in result.stderr.splitlines() if line.startswith("Explain: ")]
    assert told == [f"Explain: {uri}" for uri in [*STAGES, f"{Q}/synthesis"]], result.stderr
    assert result.stderr.strip().endswith(f"trace: {Q}")
