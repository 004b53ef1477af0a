"""The agent on the real broker: the real text-completion service against the scripted
OpenAI stub, stand-in GraphRAG/DocumentRAG services, and a watcher on the explain-store
topic that sees every trace entity in the order it is published.

These sessions use ReAct text (``llm_structured="none"``); test_agent_structured.py
runs the same loop on structured JSON steps."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.agent import (
    METRICS,
    PARIS,
    PROV,
    STARTED,
    SUB1,
    TG,
    G,
    TraceWatcher,
    analysis_rows,
    by_entity,
    conclusion_rows,
    entities,
    messages,
    observation_rows,
    prompt_links,
    published,
    question_rows,
    row,
)
from tests.support.clients import client_fixture
from tests.support.openai_stub import OpenAIStub
from tests.support.rag_standins import start_stack
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import (
    AGENT,
    RequestClient,
)
from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
)
from trustgraph_base.settings import ProcessorSettings

client = client_fixture(AGENT, "agent-tester")


def act(thought: str, tool: str, args: dict[str, Any]) -> str:
    return f"Thought: {thought}\nAction: {tool}\nArgs: {json.dumps(args)}"


SCRIPT = [
    act(
        "I should look this up in the graph.", "knowledge-query", {"question": "capital of France?"}
    ),
    "I am not sure what to do.",
    act("Check the documents too.", "document-query", {"question": "capital of France?"}),
    act("Search the web.", "web-search", {"query": "capital of France"}),
    "Thought: The graph said Paris.\nFinal Answer: Paris",
]


async def test_multi_iteration_session_is_traced_step_by_step(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
) -> None:
    async with OpenAIStub(SCRIPT) as stub:
        stand = await start_stack(processors, settings, stub)
        req = AgentRequest(
            question="What is the capital of France?",
            user="alice",
            collection="geo",
            streaming=True,
            session_id="s1",
            started_at=STARTED,
        )
        events = [r async for r in client.stream(req, timeout=30)]
    s = "urn:trustgraph:agent:s1"
    batches = await watcher.until(f"{s}/final")

    # Published one step at a time, the GraphRAG sub-trace before the analysis that called it:
    # each analysis and TrustGraph's Observation entity of it in one message, in that order.
    assert [b.metadata.id for b in batches] == messages(s, 4)
    assert entities(batches) == published(s, 4)
    assert {(b.metadata.user, b.metadata.collection) for b in batches} == {("alice", "geo")}
    # … and name the prompt it was made from (docs/provenance.md, "Which prompt")
    links = prompt_links(batches)
    assert {f"{s}/i{n}" for n in range(1, 5)} <= set(links) and set(links.values()) == {
        "agent-react"
    }
    # … a node whose triples travel once a trace: with the first step, message and event.
    mine = f"{s}/prompt/"
    carry = [b.metadata.id for b in batches if any(row(t)[0].startswith(mine) for t in b.triples)]
    assert carry == [f"{s}/i1"]
    told = [
        e.explain_id for e in events if any(row(t)[0].startswith(mine) for t in e.explain_triples)
    ]
    assert told == [f"{s}/i1"]
    # Each step and the conclusion carry the figures of the LLM call that produced them.
    every = by_entity(batches)
    figures = {e: {r[1]: r[2] for r in rs if r[1] in METRICS} for e, rs in every.items()}
    assert figures[f"{s}/i1"][TG + "llmModel"] == "stub-model"
    assert (
        int(figures[f"{s}/i1"][TG + "inToken"]) > 0 and TG + "llmDurationMs" in figures[f"{s}/i1"]
    )
    assert figures[f"{s}/final"][TG + "outToken"] == "8"  # the stub counts the reply's words
    assert figures[s] == {} and figures[f"{s}/i1/observation"] == {}
    rows = {e: [r for r in rs if r[1] not in METRICS] for e, rs in every.items()}
    assert rows[s] == question_rows(s, "What is the capital of France?")
    assert (SUB1, PROV + "wasDerivedFrom", f"{s}/i1", G) in rows[SUB1]
    q = '{"question": "capital of France?"}'
    parse_error = (
        "Error: could not parse your reply: found neither 'Action:' nor 'Final Answer:'; "
        "reply with Thought/Action/Args or Thought/Final Answer."
    )
    assert rows[f"{s}/i1"] == analysis_rows(
        f"{s}/i1", s, "I should look this up in the graph.", "knowledge-query", q, PARIS
    )
    assert rows[f"{s}/i2"] == analysis_rows(
        f"{s}/i2", f"{s}/i1", "I am not sure what to do.", "", "{}", parse_error
    )
    assert rows[f"{s}/i3"] == analysis_rows(
        f"{s}/i3",
        f"{s}/i2",
        "Check the documents too.",
        "document-query",
        q,
        "Error: tool 'document-query' failed: the document index is unavailable [no-index].",
    )
    assert rows[f"{s}/i4"] == analysis_rows(
        f"{s}/i4",
        f"{s}/i3",
        "Search the web.",
        "web-search",
        '{"query": "capital of France"}',
        "Error: unknown tool 'web-search'; the available tools are: "
        "knowledge-query, document-query, text-completion.",
    )
    assert rows[f"{s}/final"] == conclusion_rows(f"{s}/final", f"{s}/i4", "Paris")
    for n in range(1, 5):
        assert rows[f"{s}/i{n}/observation"] == observation_rows(f"{s}/i{n}")

    # The tool got the user's scope and the calling analysis; the LLM saw each observation.
    assert [(r.user, r.collection, r.parent_uri, r.query) for r in stand.graph_requests] == [
        ("alice", "geo", f"{s}/i1", "capital of France?")
    ]
    prompts = stub.prompts()
    assert len(prompts) == 5
    assert f"Observation: {PARIS}" in prompts[1]
    assert parse_error in prompts[2]
    assert "Observation: Error: unknown tool 'web-search'" in prompts[4]

    # The client saw every step as it happened, then the answer naming the trace.
    kinds = [(e.message_type, e.explain_id) for e in events]
    assert kinds[0] == ("explain", s)
    assert [k for k, _ in kinds].count("observation") == 4
    assert ("action", None) in kinds and ("explain", f"{s}/i4") in kinds
    assert (
        kinds.index(("explain", f"{s}/i4/observation")) == kinds.index(("explain", f"{s}/i4")) + 1
    )
    assert [e.content for e in events if e.message_type == "action"] == [
        f"knowledge-query {q}",
        f"document-query {q}",
        'web-search {"query": "capital of France"}',
    ]
    final = events[-1]
    assert (final.message_type, final.content, final.explain_id, final.explain_graph) == (
        "answer",
        "Paris",
        s,
        G,
    )
    assert (final.finish_reason, final.model) == ("answer", "stub-model")
    assert not any("response_format" in r for r in stub.requests)  # "none": ReAct text only
    assert final.end_of_stream and not any(e.end_of_stream for e in events[:-1])


async def test_iteration_limit_ends_with_a_conclusion_saying_why(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
) -> None:
    again = act("Ask the model again.", "text-completion", {"question": "capital?"})
    async with OpenAIStub([again, "Maybe Lyon.", again, "Maybe Paris."]) as stub:
        await start_stack(processors, settings, stub, max_iterations=5)
        req = AgentRequest(question="Capital?", group=["text-completion"], max_iterations=2)
        replies = [r async for r in client.stream(req, timeout=30)]
    assert len(replies) == 1  # not streaming: the final answer only
    answer = replies[0]
    assert answer.content == "Stopped after 2 iterations without a final answer."
    assert (answer.finish_reason, answer.model) == ("iteration-limit", "stub-model")
    s = answer.explain_id
    assert s is not None and s.startswith("urn:trustgraph:agent:") and len(s) > 30
    batches = await watcher.until(f"{s}/final")
    assert [b.metadata.id for b in batches] == messages(s, 2, sub=False)
    assert [row(t) for t in batches[2].triples][6][2] == "Maybe Paris."
    assert [row(t) for t in batches[-1].triples] == conclusion_rows(  # no figures: no LLM answer
        f"{s}/final",
        f"{s}/i2",
        "Stopped after 2 iterations without a final answer.",
        "max-iterations",
    )
    # group restricted the tools the LLM was offered
    agent_prompts = [p for p in stub.prompts() if p.startswith("Tools:")]
    assert len(agent_prompts) == 2
    assert "- text-completion:" in agent_prompts[0] and "knowledge-query" not in agent_prompts[0]


async def test_bad_requests_and_a_failing_llm(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
) -> None:
    async with OpenAIStub([500]) as stub:
        await start_stack(processors, settings, stub)
        with pytest.raises(ServiceError) as bad_id:
            await client.request(
                AgentRequest(question="q", session_id="no spaces/allowed"), timeout=10
            )
        assert bad_id.value.type == "bad-request" and "bad session id" in bad_id.value.message
        with pytest.raises(ServiceError) as bad_time:
            # Built unchecked: the model refuses the time itself, so only the wire carries it.
            bad = AgentRequest.model_construct(question="q", started_at="2026-01-02")
            await client.request(bad, timeout=10)
        assert bad_time.value.type == "bad-request" and "bad started_at" in bad_time.value.message
        with pytest.raises(ServiceError) as bad_group:
            await client.request(AgentRequest(question="q", group=["nope"]), timeout=10)
        assert (
            bad_group.value.type == "bad-request" and "no tool matches" in bad_group.value.message
        )
        with pytest.raises(ServiceError) as llm_down:
            await client.request(AgentRequest(question="q", session_id="down"), timeout=10)
    assert "the LLM failed" in llm_down.value.message
    s = "urn:trustgraph:agent:down"
    batches = await watcher.until(s)
    batches.append(await asyncio.wait_for(watcher.batches.get(), 15))
    assert batches[-1].metadata.id == s
    marks = [row(t) for t in batches[-1].triples]
    assert marks[0][:2] == (s, TG + "error") and "the LLM failed" in marks[0][2]


async def test_slow_tool_and_missing_argument_become_observations(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
) -> None:
    script = [
        act("Ask the graph.", "knowledge-query", {"question": "slow"}),
        act("Ask again, differently.", "knowledge-query", {"q": "capital?"}),
        "Thought: Nothing works.\nFinal Answer: I could not find out.",
    ]
    async with OpenAIStub(script) as stub:
        stand = await start_stack(processors, settings, stub, tool_timeout=0.5)
        try:
            req = AgentRequest(question="Capital?", session_id="slow1", started_at=STARTED)
            answer = await client.request(req, timeout=30)
        finally:
            stand.release.set()
    assert answer.content == "I could not find out."
    s = "urn:trustgraph:agent:slow1"
    batches = await watcher.until(f"{s}/final")
    observed = {
        e: next(r for r in rs if r[1] == TG + "observation")
        for e, rs in by_entity(batches).items()
        if e.startswith(s + "/i") and not e.endswith("/observation")
    }
    assert observed == {
        f"{s}/i1": (f"{s}/i1", TG + "observation",
                    "Error: tool 'knowledge-query' did not answer within 0.5s.", G),
        f"{s}/i2": (f"{s}/i2", TG + "observation",
                    "Error: tool 'knowledge-query' needs the argument 'question', "
                    'e.g. Args: {"question": "..."}.', G),
    }  # fmt: skip
