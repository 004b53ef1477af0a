"""The agent with the deterministic offline engine, the real store, and a killed agent process."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.conftest import RunningProcessors
from tests.support.agent import (
    METRICS,
    PARIS,
    PROV,
    STARTED,
    SUB1,
    TG,
    Row,
    TraceWatcher,
    analysis_rows,
    by_entity,
    conclusion_rows,
    entities,
    messages,
    observation_rows,
    publish_sub_question,
    published,
    question_rows,
    row,
)
from tests.support.clients import client_fixture
from tests.support.launcher import start_module
from tests.support.poll import eventually
from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import (
    AGENT,
    DOCUMENT_RAG,
    EXPLAIN,
    GRAPH_RAG,
    TRIPLES_QUERY,
    Bus,
    Context,
    Processor,
    RequestClient,
    Topics,
)
from trustgraph_base.provenance import GRAPH_RETRIEVAL, agent_final_triples, agent_session_triples
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
    DocumentRagRequest,
    DocumentRagResponse,
    ExplainRequest,
    GraphRagRequest,
    GraphRagResponse,
    Metadata,
    Triples,
    TriplesQueryRequest,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import encode
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.llm import processor as llm
from trustgraph_flow.run_journal import RunJournal
from trustgraph_flow.store import processor as store

client = client_fixture(AGENT, "agent-tester")
QUESTION = "What is the capital of France?"
NO_INFO = "No relevant information was found in the knowledge graph."


def rag_standins(
    graph_answer: str, docs_pending: asyncio.Event, release: asyncio.Event
) -> Processor[ProcessorSettings]:
    """GraphRAG answers ``graph_answer`` (after publishing its sub-trace question); DocRAG
    signals ``docs_pending`` and fails only once ``release`` is set."""
    proc: Processor[ProcessorSettings] = Processor("standin-rag")

    @proc.service(GRAPH_RAG)
    async def graph_rag(req: GraphRagRequest, ctx: Context[ProcessorSettings]) -> GraphRagResponse:
        await publish_sub_question(req, ctx, SUB1)
        return GraphRagResponse(response=graph_answer, explain_id=SUB1)

    @proc.service(DOCUMENT_RAG)
    async def document_rag(
        req: DocumentRagRequest, ctx: Context[ProcessorSettings]
    ) -> DocumentRagResponse:
        docs_pending.set()
        await release.wait()  # a slow tool: the agent is killed while it waits
        raise ServiceError(ErrorType("too-late"), "the caller is gone")

    return proc


async def stored_rows(bus: Bus, topics: Topics, count: int) -> set[Row]:
    """The retrieval graph as the store holds it, once it holds ``count`` triples."""
    reader = RequestClient(bus, topics, TRIPLES_QUERY, "agent-reader")
    req = TriplesQueryRequest(g=GRAPH_RETRIEVAL, user="bob", collection="atlas")
    try:  # the store writes asynchronously
        found = await eventually(
            lambda: reader.request(req, timeout=10), lambda r: len(r.triples) >= count, 20
        )
        return {row(t) for t in found.triples}
    finally:
        await reader.close()


async def test_offline_engine_answers_through_knowledge_query_and_store_keeps_the_trace(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    bus: Bus,
    topics: Topics,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
) -> None:
    base = settings.model_dump()
    await processors.start(store.proc, store.StoreSettings(**base))
    await processors.start(llm.proc, llm.Settings(**base, llm_base_url=""))
    await processors.start(rag_standins(PARIS, asyncio.Event(), asyncio.Event()), settings)
    await processors.start(agent.proc, agent.Settings(**base))
    req = AgentRequest(
        question=QUESTION, user="bob", collection="atlas", session_id="off1", started_at=STARTED
    )
    answer = await client.request(req, timeout=30)
    assert (answer.content, answer.explain_id) == (PARIS, "urn:trustgraph:agent:off1")
    s = "urn:trustgraph:agent:off1"
    batches = await watcher.until(f"{s}/final")
    assert [b.metadata.id for b in batches] == messages(s, 1)
    assert entities(batches) == published(s, 1)
    expected = [
        question_rows(s, QUESTION),
        analysis_rows(
            f"{s}/i1", s, "I should look this up in the knowledge graph.", "knowledge-query",
            '{"question": "What is the capital of France?"}', PARIS,
        ),
        observation_rows(f"{s}/i1"),
        conclusion_rows(f"{s}/final", f"{s}/i1", PARIS),
    ]  # fmt: skip
    own = {e: rs for e, rs in by_entity(batches).items() if e.startswith(s)}
    assert [[r for r in rs if r[1] not in METRICS] for rs in own.values()] == expected
    offline = {r[2] for rs in own.values() for r in rs if r[1] == TG + "llmModel"}
    assert offline == {"offline"}  # the step and the answer name the engine that chose them
    sub_link = (SUB1, PROV + "wasDerivedFrom", f"{s}/i1", GRAPH_RETRIEVAL)
    assert sub_link in [row(t) for t in batches[1].triples]
    # read back: the store holds exactly what was published, datatypes included
    # (a set: the prompt a step names travels with each step made from it)
    sent = {r for b in batches for r in map(row, b.triples)}
    held = await stored_rows(bus, topics, len(sent))
    assert held == sent


class Killable(NamedTuple):
    child: asyncio.subprocess.Process  # the agent
    docs_pending: asyncio.Event  # set when document-query is asked
    release: asyncio.Event  # lets document-query fail


@pytest.fixture
async def killable(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    pulsar_url: str,
    prefix: str,
    tmp_path: Path,
) -> AsyncIterator[Killable]:
    """Store, offline LLM and RAG stand-ins in process (document-query waits for ``release``),
    and the agent as a subprocess on ``tmp_path / "agent"``, to kill."""
    base = settings.model_dump()
    docs_pending, release = asyncio.Event(), asyncio.Event()
    await processors.start(store.proc, store.StoreSettings(**base))
    await processors.start(llm.proc, llm.Settings(**base, llm_base_url=""))
    await processors.start(rag_standins(NO_INFO, docs_pending, release), settings)
    # ready before the test asks: a request sent while it starts can outlast its timeout
    child = await start_module(
        "trustgraph_flow.agent.processor",
        "--pulsar-url", pulsar_url, "--topic-prefix", prefix,
        "--data-dir", str(tmp_path / "agent"), "--log-level", "WARNING",
        ready=tmp_path / "agent.ready",
    )  # fmt: skip
    yield Killable(child, docs_pending, release)
    release.set()
    if child.returncode is None:
        child.kill()
    await child.wait()


async def kill_at_document_query(
    child: asyncio.subprocess.Process, docs_pending: asyncio.Event
) -> None:
    """SIGKILL the agent subprocess once its document-query call is pending; reap it."""
    try:
        await asyncio.wait_for(docs_pending.wait(), 30)
        child.send_signal(signal.SIGKILL)
    finally:
        if child.returncode is None:
            child.kill()
        await child.wait()


async def test_killed_agent_leaves_the_trace_of_how_far_it_got(
    bus: Bus,
    topics: Topics,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
    killable: Killable,
) -> None:
    child, docs_pending, release = killable
    req = AgentRequest(
        question=QUESTION, user="bob", collection="atlas", session_id="k1", started_at=STARTED
    )
    asking = asyncio.create_task(client.request(req, timeout=60))
    try:
        # offline policy: knowledge-query finds nothing, so it moves on to document-query,
        # which never answers: kill the agent while that tool is pending
        await kill_at_document_query(child, docs_pending)
    finally:
        asking.cancel()
        release.set()
    s = "urn:trustgraph:agent:k1"
    batches = await watcher.until(f"{s}/i1")
    assert [b.metadata.id for b in batches] == messages(s, 1, final=False)
    assert entities(batches) == published(s, 1, final=False)
    assert watcher.batches.empty()  # nothing was published after i1: no i2, no conclusion
    i1 = dict((p, o) for _, p, o, _ in by_entity(batches)[f"{s}/i1"])
    assert (i1[TG + "action"], i1[TG + "observation"]) == ("knowledge-query", NO_INFO)
    held = await stored_rows(bus, topics, sum(len(b.triples) for b in batches))
    assert (f"{s}/i1", TG + "observation", NO_INFO, GRAPH_RETRIEVAL) in held
    assert not any(r[0] in (f"{s}/i2", f"{s}/final") for r in held)


async def test_a_run_its_agent_died_in_ends_interrupted_and_its_abandoned_request_is_not_rerun(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    bus: Bus,
    topics: Topics,
    tmp_path: Path,
    watcher: TraceWatcher,
    client: RequestClient[AgentRequest, AgentResponse],
    killable: Killable,
) -> None:
    base = settings.model_dump()
    child, docs_pending, release = killable
    req = AgentRequest(question=QUESTION, user="bob", collection="atlas", session_id="k2")
    asking = asyncio.create_task(client.request(req, timeout=5))
    await kill_at_document_query(child, docs_pending)
    with pytest.raises(RequestTimeout):
        await asking  # the caller gives up: its request is redelivered past its deadline
    docs_pending.clear()
    await processors.start(
        agent.proc, agent.Settings(**{**base, "data_dir": str(tmp_path / "agent")})
    )
    s = "urn:trustgraph:agent:k2"
    await watcher.until(f"{s}/i1")
    # The restarted agent sends again what its predecessor journaled (stored once however
    # often it comes: the broker may have had it), then marks the run interrupted.
    again = await watcher.until(f"{s}/i1")
    assert [b.metadata.id for b in again] == [s, f"{s}/i1"]
    (marked,) = await watcher.until(s)
    facts = {p: o for _, p, o, _ in map(row, marked.triples)}
    assert "process stopped before this run finished" in facts[TG + "interrupted"]
    assert PROV + "endedAtTime" in facts

    explain = RequestClient(bus, topics, EXPLAIN, "agent-explain")
    scope = {"user": "bob", "collection": "atlas"}

    async def listed() -> list[Any]:
        found = await explain.request(ExplainRequest(operation="list-traces", **scope), timeout=10)
        return found.traces

    traces = await eventually(listed, lambda ts: any(t.status == "interrupted" for t in ts))
    assert [(t.id, t.status) for t in traces] == [(s, "interrupted")]
    view = await explain.request(ExplainRequest(operation="get-trace", id=s, **scope), timeout=10)
    assert view.trace is not None and view.trace.status == "interrupted"
    assert docs_pending.is_set() is False  # the abandoned request was not run again
    release.set()
    await explain.close()


async def test_trace_messages_a_killed_agent_journaled_are_sent_by_its_next_process(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    bus: Bus,
    topics: Topics,
    tmp_path: Path,
) -> None:
    """A client hears of an entity once its message is in the agent's journal, before the
    broker's receipt: an agent killed in between leaves the message there (written here as
    the killed process would have), and its next process sends it at start-up. A run that
    had ended is then complete, not interrupted; one that had not ends interrupted."""
    base = settings.model_dump()
    await processors.start(store.proc, store.StoreSettings(**base))
    data = tmp_path / "agent"
    book = RunJournal(data / agent.proc.name / "runs")
    answered, cut = "urn:trustgraph:agent:j1", "urn:trustgraph:agent:j2"
    final = f"{answered}/final"

    def message(uri: str, triples: list[Triple]) -> bytes:
        return encode(
            Triples(metadata=Metadata(id=uri, user="bob", collection="atlas"), triples=triples)
        )

    run = book.open(answered, "bob", "atlas")
    book.record(run, message(answered, agent_session_triples(answered, QUESTION, STARTED)))
    book.record(run, message(final, agent_final_triples(final, answered, PARIS)))
    book.end(run)  # the answer went to the client; the receipts had not come
    run = book.open(cut, "bob", "atlas")
    book.record(run, message(cut, agent_session_triples(cut, QUESTION, STARTED)))

    await processors.start(agent.proc, agent.Settings(**{**base, "data_dir": str(data)}))
    explain = RequestClient(bus, topics, EXPLAIN, "agent-explain")
    scope = {"user": "bob", "collection": "atlas"}

    async def listed() -> list[tuple[str, str]]:
        found = await explain.request(ExplainRequest(operation="list-traces", **scope), timeout=10)
        return sorted((t.id, t.status) for t in found.traces)

    want = [(answered, "complete"), (cut, "interrupted")]
    assert await eventually(listed, lambda got: got == want) == want
    view = await explain.request(
        ExplainRequest(operation="get-trace", id=answered, **scope), timeout=10
    )
    assert view.trace is not None and view.trace.answer == PARIS
    assert RunJournal(data / agent.proc.name / "runs").left() == []  # nothing is sent twice
    await explain.close()
