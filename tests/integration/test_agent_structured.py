"""The agent on structured JSON steps (the default): the real text-completion service against
the scripted OpenAI stub, the text-completion tool as the one tool, the trace read off the
explain-store topic."""

from __future__ import annotations

from typing import Any

from tests.conftest import RunningProcessors
from tests.support.agent import TraceWatcher
from tests.support.agent_stub import Client, ask_on_stub, step
from tests.support.clients import client_fixture
from tests.support.openai_stub import OpenAIStub
from trustgraph_base.messaging import AGENT
from trustgraph_base.schema import AgentResponse
from trustgraph_base.settings import ProcessorSettings


def branches(fmt: dict[str, Any]) -> list[str]:
    """The actions a step's schema offers one at a time (not the list of several at once)."""
    alternatives = fmt["json_schema"]["schema"]["properties"]["next"]["anyOf"]
    return [b["properties"]["action"]["enum"][0] for b in alternatives if b["type"] == "object"]


client = client_fixture(AGENT, "agent-tester")


async def run_session(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    stub: OpenAIStub,
    *,
    watcher: TraceWatcher,
    client: Client,
    session: str,
    max_iterations: int | None = None,
) -> tuple[AgentResponse, dict[str, dict[str, str]]]:
    """Ask once on ``stub``; the answer and the trace (entity URI → predicate local name →
    value)."""
    answer, facts = await ask_on_stub(
        processors,
        settings,
        stub,
        watcher=watcher,
        client=client,
        session=session,
        max_iterations=max_iterations,
    )
    trace = {entity: {p: values[-1] for p, values in f.items()} for entity, f in facts.items()}
    return answer, trace


async def test_json_steps_carry_the_tool_schema_and_a_bad_step_is_recorded(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    script = [
        step("Ask the model.", "text-completion", arguments={"question": "capital?"}),
        "Paris is the capital.",  # the tool's own (free text) completion
        '{"thought": "I forgot the rest"}',
        step("It said Paris.", "final-answer", answer="Paris"),
    ]
    async with OpenAIStub(script) as stub:
        answer, trace = await run_session(
            processors, settings, stub, watcher=watcher, client=client, session="js1"
        )
    assert (answer.content, answer.finish_reason, answer.model) == ("Paris", "answer", "stub-model")
    s = "urn:trustgraph:agent:js1"
    assert trace[f"{s}/i1"]["action"] == "text-completion"
    assert trace[f"{s}/i1"]["arguments"] == '{"question": "capital?"}'
    assert trace[f"{s}/i1"]["observation"] == "Paris is the capital."
    assert trace[f"{s}/i2"]["action"] == ""
    assert trace[f"{s}/i2"]["thought"] == '{"thought": "I forgot the rest"}'
    assert trace[f"{s}/i2"]["observation"].startswith(
        "Error: could not parse your reply: does not match the schema (next: Field required)"
    )
    assert trace[f"{s}/final"]["answer"] == "Paris"

    formats = stub.formats()
    assert formats[1] is None  # the tool's free-text call asks for no format
    steps = [f for f in formats if f is not None]
    assert len(steps) == 3 and {f["type"] for f in steps} == {"json_schema"}
    assert branches(steps[0]) == [
        "text-completion",
        "final-answer",
    ]  # the group's tools, the answer
    assert '"next"' in stub.requests[0]["messages"][0]["content"]  # the JSON system prompt
    assert "could not parse your reply" in stub.prompts()[3]  # the LLM saw why


async def test_a_server_refusing_json_schema_gets_json_object_and_the_agent_still_answers(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    # As llama-cpp-python's server: json_object with a schema only, HTTP 500 for json_schema.
    async with OpenAIStub(
        [step("Known.", "final-answer", answer="Paris")], accepts={"json_object"}, refuse_status=500
    ) as stub:
        answer, trace = await run_session(
            processors, settings, stub, watcher=watcher, client=client, session="js2"
        )
    assert answer.content == "Paris"
    assert trace["urn:trustgraph:agent:js2/final"]["answer"] == "Paris"
    assert [f["type"] for f in stub.formats()] == ["json_schema", "json_object"]
    assert stub.formats()[1]["schema"]["properties"]["next"]["anyOf"]


async def test_the_last_step_may_only_answer(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    again = step("Ask again.", "text-completion", arguments={"question": "capital?"})
    async with OpenAIStub([again, "Maybe Paris.", again]) as stub:
        answer, trace = await run_session(
            processors,
            settings,
            stub,
            watcher=watcher,
            client=client,
            session="js3",
            max_iterations=2,
        )
    # The model called a tool on its last step anyway: the step is refused, the loop stops.
    assert (answer.content, answer.finish_reason) == (
        "Stopped after 2 iterations without a final answer.",
        "iteration-limit",
    )
    s = "urn:trustgraph:agent:js3"
    assert trace[f"{s}/i2"]["observation"].startswith(
        "Error: could not parse your reply: the last step must be the final answer"
    )
    first, _, last = stub.formats()
    assert branches(first) == ["text-completion", "final-answer"]
    assert branches(last) == ["final-answer"]  # the last step's schema offers no tool
    assert "This is your last step" in stub.prompts()[2]
