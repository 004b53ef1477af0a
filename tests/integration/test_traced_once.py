"""Each request is traced once, across kill -9 (issue 36, item 3).

Real broker (a private pulsar-lite, restarted after each kill as tg-start does), real store,
embeddings, vectors and LLM processors; the killed service is a real subprocess on its own
data folder, started again on the same folder.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.agent import publish_sub_question
from tests.support.launcher import start_module
from tests.support.poll import eventually
from tests.support.rag import COLLECTION, USER, World, stored_trace, world_fixture
from trustgraph_base.messaging import (
    AGENT,
    EXPLAIN,
    GRAPH_RAG,
    Context,
    EmbeddedBroker,
    Processor,
)
from trustgraph_base.provenance import GRAPH_RETRIEVAL
from trustgraph_base.provenance.uris import grounding_uri
from trustgraph_base.rdf.terms import IriTerm
from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
    ExplainRequest,
    GraphRagRequest,
    GraphRagResponse,
)
from trustgraph_base.settings import ProcessorSettings

world = world_fixture
TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
DOCRAG = "urn:trustgraph:docrag:"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[EmbeddedBroker]:
    """A broker of this test's own: it is restarted after a kill, as tg-start does."""
    b = EmbeddedBroker(tmp_path / "broker").start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def pulsar_url(broker: EmbeddedBroker) -> str:
    return broker.url


@pytest.fixture
async def children() -> AsyncIterator[list[asyncio.subprocess.Process]]:
    """The service processes a test starts: killed (if still running) and reaped after it."""
    started: list[asyncio.subprocess.Process] = []
    yield started
    for child in started:
        if child.returncode is None:
            child.kill()
        await child.wait()


async def start_service(
    module: str, settings: ProcessorSettings, data: Path, started: list[Any]
) -> Any:
    """A real service process on ``data`` (kept in ``started``, for the teardown)."""
    child = await start_module(
        module,
        "--pulsar-url", settings.pulsar_url, "--topic-prefix", settings.topic_prefix,
        "--data-dir", str(data), "--log-level", "WARNING",
        ready=data.parent / f"{data.name}.ready{len(started)}",
    )  # fmt: skip
    started.append(child)
    return child


async def kill(child: asyncio.subprocess.Process) -> None:
    child.send_signal(signal.SIGKILL)
    await child.wait()


async def traces(world: World) -> list[tuple[str, str]]:
    """Every top-level trace of the test's collection: (id, status)."""
    req = ExplainRequest(operation="list-traces", user=USER, collection=COLLECTION)
    found = await world.client(EXPLAIN).request(req, timeout=10)
    return sorted((t.id, t.status) for t in found.traces)


async def start_backends(
    processors: RunningProcessors, settings: ProcessorSettings, llm_latency: float = 0.0
) -> None:
    """Store, offline LLM (answering after ``llm_latency`` s), embeddings and vectors."""
    from trustgraph_flow.embeddings.processor import Settings as EmbeddingsSettings
    from trustgraph_flow.embeddings.processor import proc as embeddings
    from trustgraph_flow.llm.processor import Settings as LlmSettings
    from trustgraph_flow.llm.processor import proc as llm
    from trustgraph_flow.store.processor import StoreSettings
    from trustgraph_flow.store.processor import proc as store
    from trustgraph_flow.vectors.processor import Settings as VectorsSettings
    from trustgraph_flow.vectors.processor import proc as vectors

    base = settings.model_dump()
    await processors.start(store, StoreSettings(**base))
    await processors.start(llm, LlmSettings(**base, llm_base_url="", offline_latency=llm_latency))
    await processors.start(embeddings, EmbeddingsSettings(**base))
    await processors.start(vectors, VectorsSettings(**base))


async def test_graph_rag_killed_between_its_answer_and_the_ack_does_not_run_the_request_again(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    broker: EmbeddedBroker,
    world: World,
    tmp_path: Path,
    children: list[asyncio.subprocess.Process],
) -> None:
    await start_backends(processors, settings)
    await world.seed()
    data = tmp_path / "graph-rag"
    module = "trustgraph_flow.graph_rag.processor"
    child = await start_service(module, settings, data, children)
    first = GraphRagRequest(query="Where does the fox live?", user=USER, collection=COLLECTION)
    answer = await world.client(GRAPH_RAG).request(first, timeout=60)
    # The reply is persisted; the ack goes in the client's next ack group (up to 100 ms on).
    await kill(child)
    assert answer.explain_id
    broker.stop()  # what tg-start does when a processor dies: pulsar-lite then redelivers
    broker.start()
    await start_service(module, settings, data, children)
    second = GraphRagRequest(query="What colour is the cat?", user=USER, collection=COLLECTION)
    again = await world.client(GRAPH_RAG).request(second, timeout=60)
    await stored_trace(world, again.explain_id or "")
    # The first request, delivered again, was acked without running: two traces, not three.
    found = await eventually(lambda: traces(world), lambda ts: len(ts) >= 2)
    assert [t for t, _ in found] == sorted([answer.explain_id, again.explain_id]), found
    assert {status for _, status in found} == {"complete"}


async def test_graph_rag_killed_mid_run_continues_the_same_trace_when_the_request_comes_again(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    broker: EmbeddedBroker,
    world: World,
    tmp_path: Path,
    children: list[asyncio.subprocess.Process],
) -> None:
    await start_backends(processors, settings, llm_latency=2.0)  # each LLM call takes 2 s
    await world.seed()
    data = tmp_path / "graph-rag"
    module = "trustgraph_flow.graph_rag.processor"
    child = await start_service(module, settings, data, children)
    req = GraphRagRequest(
        query="Where does the fox live?", user=USER, collection=COLLECTION, streaming=True
    )

    told: list[GraphRagResponse] = []

    async def replies() -> None:
        async for r in world.client(GRAPH_RAG).stream(req, timeout=90):
            told.append(r)

    def focus_of(triples: list[Any]) -> str:
        return next((t.s.i for t in triples if str(getattr(t.s, "i", "")).endswith("/focus")), "")

    def named() -> list[str]:
        return [r.explain_id or "" for r in told if r.message_type == "explain"]

    async def heard() -> list[str]:
        return named()

    asking = asyncio.ensure_future(replies())
    # The caller has the focus stage, its synthesis is being asked of the LLM (2 s): kill it
    # once the focus is stored.
    await eventually(heard, lambda ids: any(i.endswith("/focus") for i in ids), 30)
    stored = await eventually(
        lambda: world.query(g=GRAPH_RETRIEVAL), lambda ts: bool(focus_of(ts)), 30
    )
    await kill(child)
    broker.stop()
    broker.start()
    await start_service(module, settings, data, children)
    await asyncio.wait_for(asking, 90)
    answer = told[-1]
    assert answer.explain_id and focus_of(stored) == f"{answer.explain_id}/focus"
    # The caller heard of each stage once: the rerun did not tell again what the killed run
    # had told (its question, grounding, exploration, focus) and told the rest. Only the
    # focus may come twice: a kill between the broker's receipt of its reply and the journal
    # line saying so (docs/provenance.md, "Interrupted runs").
    q = answer.explain_id
    stages = [q, grounding_uri(q), f"{q}/exploration", f"{q}/focus", f"{q}/synthesis"]
    assert list(dict.fromkeys(named())) == [*stages, f"{q}/synthesis/verification"], named()
    again = [u for i, u in enumerate(named()) if u in named()[:i]]
    assert again in ([], [f"{q}/focus"]), "\n".join(named())
    trace = await stored_trace(world, answer.explain_id)
    assert await traces(world) == [(answer.explain_id, "complete")]
    assert not any(t.p.i == TG + "interrupted" for t in trace)
    # The rerun kept the recorded selection: each selected edge holds one quoted edge.
    edges = Counter(t.s.i for t in trace if t.p.i == TG + "edge" and isinstance(t.s, IriTerm))
    assert edges and set(edges.values()) == {1}


def standin_graph_rag() -> Processor[ProcessorSettings]:
    """GraphRAG finds nothing (after publishing its sub-trace question): the agent goes on
    to DocumentRAG, the real one."""
    proc: Processor[ProcessorSettings] = Processor("standin-rag")

    @proc.service(GRAPH_RAG)
    async def graph_rag(req: GraphRagRequest, ctx: Context[ProcessorSettings]) -> GraphRagResponse:
        await publish_sub_question(req, ctx, "urn:trustgraph:question:sub1")
        return GraphRagResponse(response="No relevant information was found.")

    return proc


async def test_an_agent_run_cut_short_by_kill_continues_its_trace_when_its_request_comes_again(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    broker: EmbeddedBroker,
    world: World,
    tmp_path: Path,
    children: list[asyncio.subprocess.Process],
) -> None:
    from trustgraph_flow.document_rag.processor import proc as docrag
    from trustgraph_flow.rag_common import RagSettings

    await start_backends(processors, settings, llm_latency=1.0)  # each LLM call takes 1 s
    await world.seed()
    await processors.start(standin_graph_rag(), settings)
    await processors.start(docrag, RagSettings(**settings.model_dump()))  # lives through it
    data = tmp_path / "agent"
    module = "trustgraph_flow.agent.processor"
    child = await start_service(module, settings, data, children)
    req = AgentRequest(
        question="Where does the fox live?", user=USER, collection=COLLECTION, streaming=True
    )

    async def events() -> list[AgentResponse]:
        return [e async for e in world.client(AGENT).stream(req, timeout=90)]

    asking = asyncio.ensure_future(events())

    def docrag_questions(triples: list[Any]) -> set[str]:
        return {t.s.i for t in triples if t.p.i == TG + "query" and t.s.i.startswith(DOCRAG)}

    # Step 2's document-query is under way (DocumentRAG's question and exploration are
    # stored, its answer is being asked of the LLM): kill the agent now.
    first = await eventually(
        lambda: world.query(g=GRAPH_RETRIEVAL), lambda ts: bool(docrag_questions(ts)), 30
    )
    await kill(child)
    broker.stop()
    broker.start()
    await start_service(module, settings, data, children)
    told = await asyncio.wait_for(asking, 90)  # the caller is answered by the rerun
    answer = told[-1]
    assert answer.content and answer.explain_id
    # Step 2's thought and action, which the caller had from the killed run, came once.
    shown = [(e.message_type, e.content) for e in told if e.message_type in ("thought", "action")]
    assert len(shown) == len(set(shown)) and ("action", "document-query") in [
        (kind, text.split()[0]) for kind, text in shown
    ], shown
    trace = await stored_trace(world, answer.explain_id, "/final")
    # One trace, the one the killed run began, complete; never marked interrupted.
    assert await traces(world) == [(answer.explain_id, "complete")]
    subjects = {t.s.i for t in trace if isinstance(t.s, IriTerm)}
    assert {f"{answer.explain_id}/i1", f"{answer.explain_id}/i2"} <= subjects
    assert not any(t.p.i == TG + "interrupted" for t in trace)
    # Step 1 was not taken again: its analysis has one thought (one run of it).
    i1 = f"{answer.explain_id}/i1"
    thoughts = [t for t in trace if t.p.i == TG + "thought" and t.s == IriTerm(i=i1)]
    assert len(thoughts) == 1
    assert all(t.g in (None, GRAPH_RETRIEVAL) for t in trace)
    # Step 2 was taken again and asked DocumentRAG again: the same sub-trace answered it,
    # from its record (one question, one answer), not a second one.
    (sub,) = docrag_questions(first)
    await stored_trace(world, sub)
    stored = await world.query(g=GRAPH_RETRIEVAL)
    assert docrag_questions(stored) == {sub}
    under = {t.o for t in stored if t.s == IriTerm(i=sub) and t.p.i == PROV + "wasDerivedFrom"}
    assert under == {IriTerm(i=f"{answer.explain_id}/i2")}
    answers = [
        t for t in stored if t.s == IriTerm(i=f"{sub}/synthesis") and t.p.i == TG + "content"
    ]
    assert len(answers) == 1
    i2 = IriTerm(i=f"{answer.explain_id}/i2")
    seen = [t.o for t in trace if t.s == i2 and t.p.i == TG + "observation"]
    assert len(seen) == 1 and not getattr(seen[0], "v", "Error").startswith("Error"), seen
