"""A structured step that calls several tools at once: they run concurrently (at most
``tool_concurrency`` at a time), each with its own call and Observation in the trace, each
streamed as it returns; a failing or timed-out call is its own observation and cancels none
of the others; the next step names what it used. Stand-in GraphRAG (a query "slow" never
answers) and DocumentRAG (always fails) as the tools, the scripted OpenAI stub as the model."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import RunningProcessors
from tests.support.agent import PARIS, PROV, STARTED, TG, TraceWatcher, by_entity
from tests.support.agent_stub import Client, step
from tests.support.clients import client_fixture
from tests.support.openai_stub import OpenAIStub
from tests.support.rag_standins import start_stack
from trustgraph_base.messaging import AGENT
from trustgraph_base.schema import AgentRequest
from trustgraph_base.settings import ProcessorSettings

client = client_fixture(AGENT, "agent-tester")
SLOW = {"action": "knowledge-query", "arguments": {"question": "slow"}}
FAST = {"action": "knowledge-query", "arguments": {"question": "capital?"}}
DOCS = {"action": "document-query", "arguments": {"question": "capital?"}}
TIMED_OUT = "Error: tool 'knowledge-query' did not answer within 0.5s."
FAILED = "Error: tool 'document-query' failed: the document index is unavailable [no-index]."


def calls(thought: str, *chosen: dict[str, Any], uses: list[str] | None = None) -> str:
    """A step that calls ``chosen`` at once (``next`` a list)."""
    body: dict[str, Any] = {"thought": thought, "next": list(chosen)}
    if uses is not None:
        body["uses"] = uses
    return json.dumps(body)


async def test_a_step_calls_three_tools_at_once_and_each_is_its_own_observation(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    script = [
        calls("Ask the graph twice and the documents, at once.", SLOW, FAST, DOCS, uses=[]),
        step("The graph's quick answer holds.", "final-answer", ["i1/c2/observation"],
             answer="Paris"),
    ]  # fmt: skip
    async with OpenAIStub(script) as stub:
        stand = await start_stack(
            processors, settings, stub, llm_structured="json_schema", tool_timeout=0.5
        )
        try:
            req = AgentRequest(
                question="Capital?", session_id="par1", started_at=STARTED, streaming=True
            )
            events = [r async for r in client.stream(req, timeout=30)]
        finally:
            stand.release.set()
    assert events[-1].content == "Paris"
    kinds = [(e.message_type, e.content) for e in events if e.message_type != "explain"]
    assert [k for k in kinds if k[0] == "action"] == [
        ("action", 'knowledge-query {"question": "slow"}'),
        ("action", 'knowledge-query {"question": "capital?"}'),
        ("action", 'document-query {"question": "capital?"}'),
    ]
    seen = [content for kind, content in kinds if kind == "observation"]
    # Each as it returned: the quick two first, the call that never answered when it timed out.
    assert sorted(seen[:2]) == sorted([PARIS, FAILED]) and seen[2] == TIMED_OUT
    s = "urn:trustgraph:agent:par1"
    every = by_entity(await watcher.until(f"{s}/final"))
    facts = {e: [(r[1], r[2]) for r in rs] for e, rs in every.items()}
    analysis = dict(facts[f"{s}/i1"])
    assert analysis[TG + "action"] == "knowledge-query, knowledge-query, document-query"
    assert analysis[TG + "observation"] == (
        f"[c1] knowledge-query: {TIMED_OUT}\n[c2] knowledge-query: {PARIS}\n"
        f"[c3] document-query: {FAILED}"
    )
    assert f"{s}/i1/observation" not in facts  # one Observation per call instead
    for k, (chosen, result) in enumerate([(SLOW, TIMED_OUT), (FAST, PARIS), (DOCS, FAILED)], 1):
        call, observation = f"{s}/i1/c{k}", f"{s}/i1/c{k}/observation"
        assert (PROV + "wasDerivedFrom", f"{s}/i1") in facts[call]
        assert (TG + "action", chosen["action"]) in facts[call]
        assert (TG + "observation", result) in facts[observation]
        derived = {o for p, o in facts[observation] if p == PROV + "wasDerivedFrom"}
        assert derived == {call, f"{s}/i1"}
    # The GraphRAG call that answered ran its sub-trace under its own call.
    sub = next(e for e, rs in facts.items() if e.startswith("urn:trustgraph:question:"))
    assert (PROV + "wasDerivedFrom", f"{s}/i1/c2") in facts[sub]
    assert (PROV + "wasDerivedFrom", f"{s}/i1") in facts[sub]  # SPEC: the analysis that called it
    assert dict(facts[f"{s}/final"])[PROV + "wasDerivedFrom"] == f"{s}/i1/c2/observation"
    # The model saw every call's result, each under the id it can name.
    assert f"Observation [i1/c2/observation]: {PARIS}" in stub.prompts()[-1]
    uses = stub.formats()[-1]["json_schema"]["schema"]["properties"]["uses"]["items"]["enum"]
    assert uses == [
        "question",
        "i1",
        *(f"i1/c{k}{o}" for k in (1, 2, 3) for o in ("", "/observation")),
    ]


async def test_calls_wait_for_a_free_slot(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    # One slot: the quick call waits until the one that never answers has timed out.
    script = [
        calls("Both at once.", SLOW, FAST),
        step("Done.", "final-answer", answer="Paris"),
    ]
    async with OpenAIStub(script) as stub:
        stand = await start_stack(
            processors,
            settings,
            stub,
            llm_structured="json_schema",
            tool_timeout=0.5,
            tool_concurrency=1,
        )
        try:
            req = AgentRequest(question="Capital?", session_id="par2", streaming=True)
            events = [r async for r in client.stream(req, timeout=30)]
        finally:
            stand.release.set()
    seen = [e.content for e in events if e.message_type == "observation"]
    assert seen == [TIMED_OUT, PARIS]
    assert [r.query for r in stand.graph_requests] == ["slow", "capital?"]


async def test_too_many_calls_at_once_are_refused_with_the_bound(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    script = [
        calls("Fifty at once.", *([FAST] * 50)),
        step("Fine, one.", "final-answer", answer="Paris"),
    ]
    async with OpenAIStub(script) as stub:
        stand = await start_stack(processors, settings, stub, llm_structured="json_schema")
        answer = await client.request(
            AgentRequest(question="Capital?", session_id="par3"), timeout=30
        )
    assert answer.content == "Paris"
    assert stand.graph_requests == []  # none ran
    s = "urn:trustgraph:agent:par3"
    every = by_entity(await watcher.until(f"{s}/final"))
    observed = dict((r[1], r[2]) for r in every[f"{s}/i1"])[TG + "observation"]
    assert observed.startswith(
        "Error: could not parse your reply: 'next' asks for 50 tool calls at once; at most 8 per step"
    )
    assert "at most 8 per step" in stub.prompts()[-1]  # the model was told the bound
