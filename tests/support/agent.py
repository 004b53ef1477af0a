"""What the agent tests share: a watcher on the explain-store topic, the trace rows the
agent must publish, and the GraphRAG stand-in's sub-trace question."""

from __future__ import annotations

import asyncio
from typing import Any

from trustgraph_base.messaging import EXPLAIN_STORE, Bus, Context, Topics
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    agent_error_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    failure_triples,
    graph_rag_question_triples,
    uris,
)
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Term
from trustgraph_base.schema import GraphRagRequest, Metadata, Triples
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.wire import decode

PROV = "http://www.w3.org/ns/prov#"
TG = "https://trustgraph.ai/ns/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
G = GRAPH_RETRIEVAL
STARTED = "2026-01-02T03:04:05Z"  # canonical xsd:dateTime, as the store keeps it
PARIS = "Paris is the capital of France."
SUB1 = "urn:trustgraph:question:sub1"  # the first GraphRAG sub-trace a stand-in publishes

Row = tuple[str, str, str, str | None]
METRICS = {TG + "llmModel", TG + "inToken", TG + "outToken", TG + "llmDurationMs"}


def row(t: Any) -> Row:
    """A triple as plain text: subject, predicate, object (IRI or literal value), graph."""
    o: Term = t.o
    value = o.i if isinstance(o, IriTerm) else o.v if isinstance(o, LiteralTerm) else repr(o)
    return (t.s.i, t.p.i, value, t.g)


def entities(batches: list[Triples]) -> list[str]:
    """The entities the batches hold, in order of publication: each batch's subjects in the
    order they first appear in it (a step's message holds its analysis, then its observation)."""
    ids: list[str] = []
    for batch in batches:
        ids += dict.fromkeys(s for t in batch.triples if not is_prompt(s := row(t)[0]))
    return ids


def prompt_links(batches: list[Triples]) -> dict[str, str]:
    """Each step → the id of the prompt it names (``tg:prompt``, docs/provenance.md)."""
    ids = {r[0]: r[2] for b in batches for t in b.triples if (r := row(t))[1] == TG + "promptId"}
    return {
        r[0]: ids.get(r[2], r[2])
        for b in batches
        for t in b.triples
        if (r := row(t))[1] == TG + "prompt"
    }


def is_prompt(uri: str) -> bool:
    """A prompt node (``tg:prompt``, docs/provenance.md): what a step was made from, not a
    stage; it travels in the message of the first step that names it."""
    return "/prompt/" in uri


def by_entity(batches: list[Triples]) -> dict[str, list[Row]]:
    """Every row of the batches, grouped by subject (each entity's rows in order)."""
    rows: dict[str, list[Row]] = {}
    for batch in batches:
        for t in batch.triples:
            r = row(t)
            if r[1] == TG + "prompt" or is_prompt(r[0]):
                continue  # which prompt a step was made from: see ``prompt_links``
            rows.setdefault(r[0], []).append(r)
    return rows


class TraceWatcher:
    """Reads the explain-store topic: each message is one published step, in order."""

    def __init__(self, bus: Bus, topics: Topics) -> None:
        self.bus, self.topics = bus, topics
        self.batches: asyncio.Queue[Triples] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Subscribe now (what is published from here on is seen), then read in the background."""
        consumer = await self.bus.subscribe(self.topics.topic(EXPLAIN_STORE), "test-watch")

        async def pump() -> None:
            while True:
                msg = await consumer.receive()
                await self.batches.put(decode(Triples, msg.data()))
                await consumer.acknowledge(msg)

        self.task = asyncio.create_task(pump())

    async def until(self, entity_id: str) -> list[Triples]:
        """Every batch up to and including the one whose metadata id is ``entity_id``."""
        seen: list[Triples] = []
        while not seen or seen[-1].metadata.id != entity_id:
            seen.append(await asyncio.wait_for(self.batches.get(), 15))
        return seen

    async def before_sentinel(self, sentinel: str) -> list[str]:
        """The entities published before a sentinel batch we publish now (so every earlier
        send is in), in order (``entities``)."""
        meta = Metadata(id=sentinel, user="u", collection="c")
        await self.bus.publish(self.topics.topic(EXPLAIN_STORE), Triples(metadata=meta, triples=[]))
        return entities((await self.until(sentinel))[:-1])

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


def published(session: str, steps: int, *, sub: bool = True, final: bool = True) -> list[str]:
    """The entity ids a session publishes, in order: its question, the first step's GraphRAG
    sub-trace (``sub``), each step and its observation, then the conclusion (``final``)."""
    ids = [session, SUB1] if sub else [session]
    for n in range(1, steps + 1):
        ids += [f"{session}/i{n}", f"{session}/i{n}/observation"]
    return [*ids, f"{session}/final"] if final else ids


def messages(session: str, steps: int, *, sub: bool = True, final: bool = True) -> list[str]:
    """The metadata ids of the trace messages a session publishes, in order: one per step
    (an analysis and its Observation entity travel together, under the analysis's id)."""
    return [
        i for i in published(session, steps, sub=sub, final=final) if not i.endswith("/observation")
    ]


async def publish_sub_question(
    req: GraphRagRequest, ctx: Context[ProcessorSettings], question: str
) -> None:
    """What a GraphRAG stand-in publishes of its sub-trace: the question, under the caller."""
    triples = graph_rag_question_triples(question, req.query, STARTED, req.parent_uri)
    meta = Metadata(id=question, user=req.user, collection=req.collection)
    await ctx.publish(EXPLAIN_STORE, Triples(metadata=meta, triples=triples))


def question_rows(uri: str, query: str) -> list[Row]:
    return [
        (uri, RDF_TYPE, PROV + "Activity", G),
        (uri, RDF_TYPE, TG + "Question", G),
        (uri, RDF_TYPE, TG + "AgentQuestion", G),
        (uri, TG + "query", query, G),
        (uri, PROV + "startedAtTime", STARTED, G),
        (
            uri,
            RDFS_LABEL,
            "Agent Question",
            G,
        ),  # the reference's, beside SPEC's (docs/provenance.md)
    ]


DEFAULT_TOOLS = ("knowledge-query", "document-query", "text-completion")


def analysis_rows(
    uri: str,
    parent: str,
    thought: str,
    action: str,
    args: str,
    obs: str,
    tools: tuple[str, ...] = DEFAULT_TOOLS,
) -> list[Row]:
    """An analysis's rows: SPEC's, TrustGraph's beside them, and the reference's tools offered
    (``tools``) and step number (from the URI's ``…/i{n}``)."""
    step = uri.rsplit("/i", 1)[1]
    return [
        (uri, RDF_TYPE, PROV + "Entity", G),
        (uri, RDF_TYPE, TG + "Analysis", G),
        (uri, PROV + "wasDerivedFrom", parent, G),
        (uri, TG + "thought", thought, G),
        (uri, TG + "action", action, G),
        (uri, TG + "arguments", args, G),
        (uri, TG + "observation", obs, G),
        (uri, RDF_TYPE, TG + "ToolUse", G),  # TrustGraph's, beside SPEC's
        (uri, RDFS_LABEL, f"Analysis: {action}", G),
        *((uri, TG + "toolCandidate", tool, G) for tool in tools),
        (uri, TG + "stepNumber", step, G),
    ]


def observation_rows(analysis: str) -> list[Row]:
    """TrustGraph's Observation entity of an analysis: its text is the analysis's document."""
    uri = analysis + "/observation"
    return [
        (uri, RDF_TYPE, PROV + "Entity", G),
        (uri, RDF_TYPE, TG + "Observation", G),
        (uri, RDFS_LABEL, "Observation", G),
        (uri, PROV + "wasDerivedFrom", analysis, G),
        (uri, TG + "document", uri + "/document", G),
    ]


def conclusion_rows(uri: str, parent: str, answer: str, reason: str = "final-answer") -> list[Row]:
    return [
        (uri, RDF_TYPE, PROV + "Entity", G),
        (uri, RDF_TYPE, TG + "Conclusion", G),
        (uri, PROV + "wasDerivedFrom", parent, G),
        (uri, TG + "answer", answer, G),
        (uri, RDF_TYPE, TG + "Answer", G),  # TrustGraph's, beside SPEC's
        (uri, RDFS_LABEL, "Conclusion", G),
        (uri, TG + "document", uri + "/document", G),
        (uri, TG + "terminationReason", reason, G),
    ]


FAILED_WHY = "the LLM failed: HTTP 500"


def failed_run(session: str, user: str = "trustgraph") -> Triples:
    """An agent run whose LLM failed at step 2, as one message for the store: its question,
    step 1 and the conclusion that says the run failed (docs/provenance.md, "A run that
    failed"), with the question's own tg:error."""
    a = uris.agent_session_uri(session)
    i1, final = uris.agent_iteration_uri(a, 1), uris.agent_final_uri(a)
    triples = agent_session_triples(a, "Why did it stop?", "2026-01-01T10:00:00.000Z")
    triples += agent_iteration_triples(i1, a, "Look it up.", "knowledge-query", {}, "Nothing.")
    triples += agent_observation_triples(uris.agent_observation_uri(i1), i1)
    triples += failure_triples(a, G, FAILED_WHY)
    triples += agent_error_triples(final, i1, FAILED_WHY, "llm-error")
    return Triples(metadata=Metadata(id=session, user=user, collection="default"), triples=triples)
