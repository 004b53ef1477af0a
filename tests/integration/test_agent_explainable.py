"""The agent's ``explainable`` setting on the real broker: off publishes no trace and no
explain events, yet answers; on (the default) publishes the question, analysis and
conclusion. The offline engine drives the loop; a stand-in GraphRAG answers at once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.agent import PARIS, TraceWatcher, published
from tests.support.clients import client_fixture
from trustgraph_base.messaging import (
    AGENT,
    GRAPH_RAG,
    Bus,
    Context,
    Processor,
    RequestClient,
    Topics,
)
from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
    GraphRagRequest,
    GraphRagResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import decode, decode_pack
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.llm import processor as llm

SENTINEL = "urn:test:sentinel"


def standin_graph_rag(seen: list[GraphRagRequest]) -> Processor[ProcessorSettings]:
    """GraphRAG that answers at once and publishes nothing."""
    proc: Processor[ProcessorSettings] = Processor("standin-graph-rag")

    @proc.service(GRAPH_RAG)
    async def answer(req: GraphRagRequest, ctx: Context[ProcessorSettings]) -> GraphRagResponse:
        seen.append(req)
        return GraphRagResponse(response=PARIS)

    return proc


client = client_fixture(AGENT, "explainable-tester")


async def start_agent(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    seen: list[GraphRagRequest],
    **agent_settings: Any,
) -> None:
    """The offline LLM (no base URL), the stand-in GraphRAG and the agent."""
    base = settings.model_dump()
    await processors.start(llm.proc, llm.Settings(**base))
    await processors.start(standin_graph_rag(seen), settings)
    await processors.start(agent.proc, agent.Settings(**base, **agent_settings))


@pytest.mark.parametrize("explainable", [False, True])
async def test_explainable_setting_controls_the_trace(
    explainable: bool,
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
) -> None:
    seen: list[GraphRagRequest] = []
    await start_agent(processors, settings, seen, explainable=explainable)

    req = AgentRequest(question="What is the capital of France?", streaming=True, session_id="s1")
    events = [e async for e in client.stream(req, timeout=30)]
    ids = await watcher.before_sentinel(SENTINEL)

    s = "urn:trustgraph:agent:s1"
    answer = events[-1]
    assert answer.message_type == "answer"
    assert answer.content == PARIS
    assert [e.message_type for e in events if e.message_type != "thought"] == (
        ["explain", "action", "observation", "explain", "explain", "explain", "answer"]
        if explainable
        else ["action", "observation", "answer"]
    )
    if explainable:
        assert ids == published(s, 1, sub=False)
        assert (answer.explain_id, seen[0].parent_uri) == (s, f"{s}/i1")
    else:
        assert ids == []
        assert (answer.explain_id, answer.explain_graph, seen[0].parent_uri) == (None, None, "")


async def test_each_step_is_in_the_trace_before_the_caller_hears_of_it(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
) -> None:
    """The agent does not wait for the broker inside a step, yet every entity an event
    names (and the analysis an observation ends) is already on explain-store when the
    caller receives that event: not held back to the end of the session."""
    await start_agent(processors, settings, [])
    s = "urn:trustgraph:agent:s2"
    req = AgentRequest(question="What is the capital of France?", streaming=True, session_id="s2")
    seen: list[str] = []
    checked: list[tuple[str, str]] = []
    async for event in client.stream(req, timeout=30):
        named = {"explain": event.explain_id, "observation": f"{s}/i1"}.get(event.message_type)
        if named is None:
            continue
        sentinel = f"{SENTINEL}{len(checked)}"
        seen += await watcher.before_sentinel(sentinel)
        assert named in seen, (event.message_type, named, seen)
        checked.append((event.message_type, str(named)))
    assert checked == [
        ("explain", s), ("observation", f"{s}/i1"), ("explain", f"{s}/i1"),
        ("explain", f"{s}/i1/observation"), ("explain", f"{s}/final"),
    ]  # fmt: skip
    assert seen == published(s, 1, sub=False)


async def test_the_question_and_the_conclusion_explain_go_with_a_step_in_one_reply_message(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    """On its own the question's explain event would be one more reply message per session
    than with explainability off; it waits for the first thought and travels with it (and the
    action), in order; the last thought travels with the conclusion's explain event and the
    answer. Every reply message of the session is read off the reply topic."""
    await start_agent(processors, settings, [])
    reply_topic = topics.topic("agent-replies")
    replies = await bus.subscribe(reply_topic, "inspect")
    req = AgentRequest(question="What is the capital of France?", streaming=True, session_id="s3")
    await bus.publish(topics.request(AGENT), req, {"id": "r3", "reply-to": reply_topic})
    sent: list[list[AgentResponse]] = []
    while not sent or not sent[-1][-1].end_of_stream:
        msg = await asyncio.wait_for(replies.receive(), 30)
        await replies.acknowledge(msg)
        if msg.properties().get("pack"):
            sent.append(decode_pack(AgentResponse, msg.data()))
        else:
            sent.append([decode(AgentResponse, msg.data())])
    s = "urn:trustgraph:agent:s3"
    first = [(e.message_type, e.explain_id) for e in sent[0]]
    assert first[:2] == [("explain", s), ("thought", None)] and ("action", None) in first
    assert not any(len(m) == 1 and m[0].message_type == "explain" for m in sent)
    # The last step's thought waits for the conclusion's receipt with the answer, and goes
    # with them: alone it would be one more message than with explainability off.
    assert [e.message_type for e in sent[-1]] == ["thought", "explain", "answer"]
    assert sent[-1][1].explain_id == f"{s}/final"
