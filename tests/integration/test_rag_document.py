"""DocumentRAG on the real broker and store, with the offline engine and the OpenAI stub."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.openai_stub import OpenAIStub
from tests.support.rag import (
    CHUNKS,
    COLLECTION,
    DOC,
    USER,
    World,
    by_subject,
    costs,
    prompts,
    spo,
    start_stack,
    stored_trace,
    verification_of,
    world_fixture,  # noqa: F401
)
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import DOCUMENT_RAG, EXPLAIN_STORE
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    GRAPH_SOURCE,
    PROV,
    RDF,
    TG,
    docrag_exploration_triples,
    docrag_question_triples,
    failure_triples,
    grounding_triples,
    synthesis_triples,
)
from trustgraph_base.provenance.uris import SELECTION_PREFIX, is_exploration_chunk_uri
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, TripleTerm, iri
from trustgraph_base.schema import DocumentRagRequest, DocumentRagResponse, Metadata, Triples
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.prompts.catalogue import PROMPTS

START = "2026-03-01T10:00:00Z"  # the store keeps this canonical form
Q = "urn:trustgraph:docrag:"


async def ask(world: World, **fields: Any) -> list[DocumentRagResponse]:
    client = world.client(DOCUMENT_RAG)
    req = DocumentRagRequest(user=USER, collection=COLLECTION, started_at=START, **fields)
    return [r async for r in client.stream(req, timeout=20)]


async def test_streamed_answer_and_trace_match_spec(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    await start_stack(processors, settings)
    await world.seed()
    began = time.monotonic()
    replies = await ask(
        world, query="Where does the fox live?", streaming=True, doc_limit=2, session_id="d1"
    )
    asked_ms = (time.monotonic() - began) * 1000  # the LLM call was inside this request
    question = Q + "d1"
    explains = [r.explain_id for r in replies if r.message_type == "explain"]
    assert explains == [
        question,
        question + "/grounding",
        question + "/exploration",
        question + "/synthesis",
        question + "/synthesis/verification",
    ]
    assert all(r.explain_graph == GRAPH_RETRIEVAL for r in replies if r.explain_id)
    final = replies[-1]
    assert final.end_of_stream and final.explain_id == question and final.response == ""
    answer = "".join(r.response for r in replies if r.message_type == "chunk")
    assert "forest" in answer
    # the answer comes once it is verified: after the verification was announced
    kinds = [r.message_type for r in replies]
    assert kinds.index("chunk") == len(kinds) - 2 and kinds[-3] == "explain"

    explore, synth = question + "/exploration", question + "/synthesis"
    expected = (
        docrag_question_triples(question, "Where does the fox live?", START)
        + grounding_triples(question + "/grounding", question, ["Where does the fox live?"])
        + docrag_exploration_triples(
            explore, question, list(CHUNKS), grounding=question + "/grounding"
        )
        + synthesis_triples(synth, explore, answer)
    )
    trace, checked = verification_of(await stored_trace(world, question), synth)
    assert checked["answer"] == "supported" and checked["method"] == "heuristic"
    assert spec_part(trace) == spo(expected)  # SPEC's triples exactly
    answer_prompt = PROMPTS["document-rag-answer"]
    assert prompts(trace) == {synth: f"document-rag-answer {answer_prompt.digest}"}
    assert sorted(scored_chunks(trace, explore)) == sorted(CHUNKS)  # each reified, by score
    # the offline engine cites the chunk its answer sentence came from: the forest one
    cited = [
        t.o.i
        for t in trace
        if t.p == TG.cites and t.s == IriTerm(i=synth) and isinstance(t.o, IriTerm)
    ]
    forest = [c for c, text in CHUNKS.items() if "forest" in text]
    assert cited == forest
    # the answer's sentences are its claims, each citing the chunk it was taken from
    found = by_subject(trace, synth + "/claim")
    claims = {k: v for k, v in found.items() if k.removeprefix(synth + "/claim").isdigit()}
    contents = []
    for n in range(1, len(claims) + 1):
        row = claims[f"{synth}/claim{n}"]
        content, start = row[TG.content.i], row[TG.charOffset.i]
        assert isinstance(content, LiteralTerm) and isinstance(start, LiteralTerm)
        assert answer[int(start.v) :].startswith(content.v)
        contents.append(content.v)
        assert row[TG.cites.i] == IriTerm(i=forest[0])
        assert row[PROV.wasDerivedFrom.i] == IriTerm(i=synth)
    assert contents and " ".join(contents) == answer
    # and each is found in the chunk it cites, where it is (tg:ClaimSpan)
    spans = {k: v for k, v in found.items() if k not in claims}
    assert spans and set(spans) == {f"{c}/in1" for c in claims}
    for row in spans.values():
        assert row[TG.inChunk.i] == IriTerm(i=forest[0])
        quote, at = row[TG.quote.i], row[TG.charOffset.i]
        assert isinstance(quote, LiteralTerm) and isinstance(at, LiteralTerm)
        assert CHUNKS[forest[0]][int(at.v) :].startswith(quote.v)
    assert costs(trace, explore)["embeddingModel"].startswith("hashing")
    synth_cost = costs(trace, synth)
    assert synth_cost["llmModel"] == "offline" and int(synth_cost["outToken"]) > 0
    assert (
        0 <= float(synth_cost["llmDurationMs"]) <= asked_ms + 0.5 and int(synth_cost["inToken"]) > 0
    )

    # every selected chunk leads back to a page of the document
    for chunk in CHUNKS:
        up = await world.query(s=iri(chunk), p=PROV.wasDerivedFrom, g=GRAPH_SOURCE)
        page = up[0].o
        assert isinstance(page, IriTerm)
        assert await world.query(s=page, p=RDF.type, o=TG.Page, g=GRAPH_SOURCE)
        doc = await world.query(s=page, p=PROV.wasDerivedFrom, g=GRAPH_SOURCE)
        assert doc[0].o == iri(DOC)


async def test_sub_trace_with_http_llm_non_streaming(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    cited = json.dumps({"answer": "The fox lives in the forest.", "cited": [1]})
    verdicts = {"relevant": True, "claims": [{"claim": 1, "verdict": "supported", "score": 1}]}
    async with OpenAIStub([cited, json.dumps(verdicts)]) as stub:
        await start_stack(processors, settings, stub.base_url)
        await world.seed()
        parent = "urn:trustgraph:agent:a1/i1"
        replies = await ask(
            world, query="Where does the fox live?", doc_limit=1, session_id="d2", parent_uri=parent
        )
    final = replies[-1]
    assert final.response == "The fox lives in the forest."
    assert final.explain_id == Q + "d2"
    sent = stub.requests[0]["messages"]
    assert sent[0]["role"] == "system" and "Where does the fox live?" in sent[-1]["content"]
    shown = [c for c, text in CHUNKS.items() if f"[1] {text}" in sent[-1]["content"]]
    assert len(shown) == 1, "the prompt carries the retrieved chunk's text"
    question, explore = Q + "d2", Q + "d2/exploration"
    expected = (
        docrag_question_triples(question, "Where does the fox live?", START, parent)
        + grounding_triples(question + "/grounding", question, ["Where does the fox live?"])
        + docrag_exploration_triples(explore, question, shown, grounding=question + "/grounding")
        + synthesis_triples(question + "/synthesis", explore, final.response)
    )
    trace, checked = verification_of(await stored_trace(world, question), question + "/synthesis")
    assert checked["answer"] == "supported" and checked["method"] == "llm-judge"
    assert spec_part(trace) == spo(expected)
    assert scored_chunks(trace, explore) == list(shown)
    synth_cost = costs(trace, question + "/synthesis")
    # the stub counts the words of its reply
    assert (synth_cost["llmModel"], synth_cost["outToken"]) == (
        "stub-model",
        str(len(cited.split())),
    )
    assert "Evidence [1]: " + CHUNKS[shown[0]] in stub.prompts()[1]


async def test_empty_collection_is_a_clear_error_and_a_failed_trace(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    await start_stack(processors, settings)
    with pytest.raises(ServiceError) as err:
        await ask(world, query="anything?", session_id="d3")
    assert err.value.type == "no-data"
    assert f"collection '{COLLECTION}' of user '{USER}' has no documents" in err.value.message
    assert "tg-load-document" in err.value.message
    question = Q + "d3"
    expected = docrag_question_triples(question, "anything?", START) + failure_triples(
        question, GRAPH_RETRIEVAL, f"no-data: {err.value.message}"
    )
    assert spo(await stored_trace(world, question, "error")) == spo(expected)


async def test_llm_failure_keeps_the_stages_done_and_marks_the_question(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    async with OpenAIStub([500, 500, 500]) as stub:
        await start_stack(processors, settings, stub.base_url)
        await world.seed()
        with pytest.raises(ServiceError) as err:
            await ask(world, query="Where does the fox live?", doc_limit=2, session_id="d4")
    question = Q + "d4"
    trace = await stored_trace(world, question, "error")
    keys = spo(trace)
    assert any(p == f"<{TG.error.i}>" for _, p, _ in keys)
    assert (f"<{question}/exploration>", f"<{RDF.type.i}>", f"<{TG.Exploration.i}>") in keys
    assert not any(s == f"<{question}/synthesis>" for s, _, _ in keys)
    assert err.value.type == "llm-error" and "500" in err.value.message


async def test_a_bad_session_id_writes_nothing_and_a_trace_named_again_is_never_joined(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    await start_stack(processors, settings)
    await world.seed()
    with pytest.raises(ServiceError) as err:
        await ask(world, query="x", session_id="no spaces allowed")
    assert err.value.type == "bad-request" and "session id" in err.value.message
    assert await world.query(g=GRAPH_RETRIEVAL) == []
    # An agent step taken again after a kill names the sub-trace it asked for before
    # (docs/agent.md): a request naming a trace run for another question, or (``retake``)
    # one this service never ran but the store has (another replica's), gets its own.
    fox = "Where does the fox live?"
    first = (await ask(world, query=fox, session_id="d5"))[-1]
    assert first.explain_id == Q + "d5"
    other = (await ask(world, query="What colour is the cat?", session_id="d5"))[-1]
    assert other.explain_id != Q + "d5"  # another question: its own trace
    elsewhere = Triples(
        metadata=Metadata(id=Q + "d6", user=USER, collection=COLLECTION),
        triples=docrag_question_triples(Q + "d6", fox, START, "urn:trustgraph:agent:x/i2"),
    )
    await world.bus.publish(world.topics.topic(EXPLAIN_STORE), elsewhere)
    await stored_trace(world, Q + "d6", "")
    retaken = await ask(
        world, query=fox, session_id="d6", parent_uri="urn:trustgraph:agent:x/i2", retake=True
    )
    for answer in (other, retaken[-1]):
        assert answer.explain_id and answer.explain_id.startswith(Q), answer
        assert answer.explain_id not in (Q + "d5", Q + "d6")
        await stored_trace(world, answer.explain_id)
    assert f"{retaken[-1].explain_id}/exploration" in [r.explain_id for r in retaken]
    stored = await world.query(g=GRAPH_RETRIEVAL)
    for uri, query in ((Q + "d5", fox), (Q + "d6", fox)):
        said = [t.o for t in stored if t.s == IriTerm(i=uri) and t.p == TG.query]
        assert said == [LiteralTerm(v=query)], said  # one question: nothing joined it
    assert not any(t.s == IriTerm(i=Q + "d6/exploration") for t in stored)
    # Retakes of one step at once, naming a trace nobody ran: each asks the store, then
    # only one runs under that id (main: one trace, two questions).
    asked = [fox, "What colour is the cat?"]
    both = await asyncio.gather(*(ask(world, query=q, session_id="d7", retake=True) for q in asked))
    ids = {answer[-1].explain_id for answer in both}
    assert Q + "d7" in ids and len(ids) == len(asked), ids
    for retaken_id in ids:
        await stored_trace(world, str(retaken_id))
    stored = await world.query(g=GRAPH_RETRIEVAL)
    said = [t.o for t in stored if t.s == IriTerm(i=Q + "d7") and t.p == TG.query]
    assert len(said) == 1, said


def spec_part(trace: list[Triple]) -> set[tuple[str, str, str]]:
    """The trace without what we add beside SPEC: the score reifiers (the reference's chunk
    selections, ``urn:trustgraph:prov:chunk:{id}:{index}``), the citations (``tg:cites``) and
    the answer's claims (``…/synthesis/claim{n}``)."""
    return {
        t
        for t in spo(trace)
        if not t[0].startswith("<urn:trustgraph:prov:chunk:")
        and "/synthesis/claim" not in t[0]
        and t[1] != f"<{TG.cites.i}>"
    }


def scored_chunks(trace: list[Triple], explore: str) -> list[str]:
    """The chunks the reifiers (the reference's chunk selections) name, by tg:rank; their
    scores (the vector similarity) never rise with their rank in the vector search
    (``tg:vectorRank``, hybrid retrieval), each of which is told once."""
    ranked = []
    for uri, row in by_subject(trace, SELECTION_PREFIX).items():
        assert is_exploration_chunk_uri(explore, uri), uri
        about = row[RDF.reifies.i]
        assert isinstance(about, TripleTerm) and about.tr.p == TG.selectedChunk
        assert about.tr.s == IriTerm(i=explore)
        rank, score, chunk = row[TG.rank.i], row[TG.score.i], about.tr.o
        vector_rank, lexical = row[TG.vectorRank.i], row[TG.lexicalScore.i]
        assert isinstance(rank, LiteralTerm) and isinstance(score, LiteralTerm)
        assert isinstance(vector_rank, LiteralTerm) and isinstance(lexical, LiteralTerm)
        assert isinstance(chunk, IriTerm) and float(lexical.v) >= 0
        ranked.append((int(rank.v), int(vector_rank.v), float(score.v), chunk.i))
    by_vector = sorted(ranked, key=lambda r: r[1])
    assert len({r[1] for r in ranked}) == len(ranked)
    assert [r[2] for r in by_vector] == sorted((r[2] for r in ranked), reverse=True)
    return [chunk for *_, chunk in sorted(ranked)]
