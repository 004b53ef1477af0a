"""The agent trace as a graph (SPEC.md, the agent graph): each structured step names what it
relies on (``uses``) and its analysis derives from exactly that; a step naming nothing keeps
the seed's linear chain. A name that is not an earlier entity of the session is a parse error
the model sees. The real text-completion service against the scripted OpenAI stub."""

from __future__ import annotations

from tests.conftest import RunningProcessors
from tests.support.agent import TraceWatcher
from tests.support.agent_stub import Client, ask_on_stub, step
from tests.support.clients import client_fixture
from tests.support.openai_stub import OpenAIStub
from trustgraph_base.messaging import AGENT
from trustgraph_base.settings import ProcessorSettings

client = client_fixture(AGENT, "agent-tester")
ASK = {"question": "capital?"}


async def test_a_step_derives_from_exactly_what_it_names(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    script = [
        step("Ask the model.", "text-completion", [], arguments=ASK),
        "Paris.",
        step("Ask again, another way.", "text-completion", [], arguments=ASK),
        "Lyon?",
        step("Only the first answer holds.", "text-completion", ["i1/observation"], arguments=ASK),
        "Paris, surely.",
        step("Both Paris answers agree.", "final-answer", ["i1/observation", "i3/observation"],
             answer="Paris"),
    ]  # fmt: skip
    async with OpenAIStub(script) as stub:
        answer, facts = await ask_on_stub(
            processors, settings, stub, watcher=watcher, client=client, session="dag1"
        )
    assert answer.content == "Paris"
    s = "urn:trustgraph:agent:dag1"
    derived = {uri: f.get("wasDerivedFrom", []) for uri, f in facts.items()}
    assert derived[f"{s}/i1"] == [s]  # named nothing: the seed's chain
    assert derived[f"{s}/i2"] == [f"{s}/i1"]
    assert derived[f"{s}/i3"] == [f"{s}/i1/observation"]  # exactly what it used: not i2
    assert derived[f"{s}/final"] == [f"{s}/i1/observation", f"{s}/i3/observation"]
    # The reference's facts: the step number, the tools offered, why the loop ended.
    assert [facts[f"{s}/i{n}"]["stepNumber"] for n in (1, 2, 3)] == [["1"], ["2"], ["3"]]
    assert facts[f"{s}/i1"]["toolCandidate"] == ["text-completion"]
    assert facts[f"{s}/final"]["terminationReason"] == ["final-answer"]
    # The model was shown the ids it may name, and offered exactly those in the schema.
    schemas = [f["json_schema"]["schema"] for f in stub.formats() if f is not None]
    offered = [s_["properties"]["uses"]["items"]["enum"] for s_ in schemas]
    assert offered[0] == ["question"]
    assert offered[2] == ["question", "i1", "i1/observation", "i2", "i2/observation"]
    assert "Observation [i1/observation]: Paris." in stub.prompts()[-1]


async def test_a_step_naming_what_it_cannot_use_is_told_why(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    watcher: TraceWatcher,
    client: Client,
) -> None:
    script = [
        step("Ask.", "text-completion", ["question"], arguments=ASK),
        "Paris.",
        step("Use a later step.", "text-completion", ["i5"], arguments=ASK),
        step("Use myself.", "text-completion", ["i3/observation"], arguments=ASK),
        step("Use another run.", "final-answer", ["urn:trustgraph:agent:other/i1"], answer="x"),
        step("Use nothing real.", "final-answer", ["i1/thought"], answer="x"),
        step("Now properly.", "final-answer", ["urn:trustgraph:agent:dag2/i1/observation"],
             answer="Paris"),
    ]  # fmt: skip
    async with OpenAIStub(script) as stub:
        answer, facts = await ask_on_stub(
            processors, settings, stub, watcher=watcher, client=client, session="dag2"
        )
    assert answer.content == "Paris"
    s = "urn:trustgraph:agent:dag2"
    assert facts[f"{s}/i1"]["wasDerivedFrom"] == [s]
    errors = {n: facts[f"{s}/i{n}"]["observation"][0] for n in range(2, 6)}
    prefix = "Error: could not parse your reply: 'uses' names "
    assert errors == {
        2: prefix + "'i5', which is a later step (this is step 2); "
        'reply with one JSON object {"thought": ..., "next": {...}} as described.',
        3: prefix + "'i3/observation', which is this step itself: a step uses what came "
        'before it; reply with one JSON object {"thought": ..., "next": {...}} as described.',
        4: prefix + "'urn:trustgraph:agent:other/i1', which is not of this session; "
        'reply with one JSON object {"thought": ..., "next": {...}} as described.',
        5: prefix + "'i1/thought', which is not an earlier step's analysis or observation, "
        'nor the question; reply with one JSON object {"thought": ..., "next": {...}} as '
        "described.",
    }
    # A refused step keeps the chain (it used nothing), and nothing it named became a link.
    assert [facts[f"{s}/i{n}"]["wasDerivedFrom"] for n in range(2, 6)] == [
        [f"{s}/i{n - 1}"] for n in range(2, 6)
    ]
    assert facts[f"{s}/final"]["wasDerivedFrom"] == [f"{s}/i1/observation"]
    assert "which is a later step" in stub.prompts()[3]  # the model saw why
