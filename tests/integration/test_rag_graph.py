"""GraphRAG on the real broker and store, with the offline engine and the OpenAI stub."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.openai_stub import OpenAIStub, Reply, Scripted
from tests.support.rag import (
    COLLECTION,
    DOC,
    EDGES,
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
from trustgraph_base.messaging import GRAPH_RAG
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    GRAPH_SOURCE,
    PROV,
    RDF,
    TG,
    SelectedEdge,
    citation_triples,
    failure_triples,
    graph_rag_exploration_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    grounding_triples,
    synthesis_triples,
)
from trustgraph_base.provenance.evidence import ClaimSpec, claim_triples
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, TripleTerm, iri, lit, term_key
from trustgraph_base.schema import GraphRagRequest, GraphRagResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.agent.evidence import EXPLAIN_READ
from trustgraph_flow.prompts.catalogue import PROMPTS

START = "2026-03-01T11:00:00Z"
Q = "urn:trustgraph:question:"
ALL_EDGES = {(term_key(s), term_key(p), term_key(o)) for e in EDGES.values() for s, p, o in e}


async def ask(world: World, **fields: Any) -> list[GraphRagResponse]:
    req = GraphRagRequest(**{"user": USER, "collection": COLLECTION, "started_at": START, **fields})
    return [r async for r in world.client(GRAPH_RAG).stream(req, timeout=20)]


def focus_edges(trace: list[Triple], question: str) -> list[SelectedEdge]:
    """The selected edges as stored, in e1, e2, … order."""
    by_uri = by_subject(trace, question + "/focus/e")
    out = []
    for n in range(1, len(by_uri) + 1):
        item = by_uri[f"{question}/focus/e{n}"]
        edge, reason = item[TG.edge.i], item[TG.reasoning.i]
        assert isinstance(edge, TripleTerm) and isinstance(reason, LiteralTerm)
        out.append(SelectedEdge(edge.tr.s, edge.tr.p, edge.tr.o, reason.v))
    return out


async def source_page(world: World, edge: SelectedEdge) -> str:
    """Follow an edge through urn:graph:source: subgraph → chunk → page (must be a tg:Page)."""
    quoted = TripleTerm.model_validate({"tr": {"s": edge.s, "p": edge.p, "o": edge.o}})
    holders = await world.query(p=TG.contains, o=quoted, g=GRAPH_SOURCE)
    assert holders, f"edge {edge} is not in any extracted subgraph"
    subgraph = holders[0].s
    chunk = (await world.query(s=subgraph, p=PROV.wasDerivedFrom, g=GRAPH_SOURCE))[0].o
    assert isinstance(chunk, IriTerm)
    page = (await world.query(s=chunk, p=PROV.wasDerivedFrom, g=GRAPH_SOURCE))[0].o
    assert isinstance(page, IriTerm)
    assert await world.query(s=page, p=RDF.type, o=TG.Page, g=GRAPH_SOURCE)
    assert (await world.query(s=page, p=PROV.wasDerivedFrom, g=GRAPH_SOURCE))[0].o == iri(DOC)
    return page.i


async def test_streamed_answer_and_trace_match_spec(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    await start_stack(processors, settings)
    await world.seed()
    query = "What does the fox jump over?"
    replies = await ask(world, query=query, streaming=True, entity_limit=4, session_id="g1")
    question = Q + "g1"
    grounding = "urn:trustgraph:prov:grounding:g1"  # the reference's URI (docs/conformance.md)
    explore, focus, synth = (question + s for s in ("/exploration", "/focus", "/synthesis"))
    explains = [r.explain_id for r in replies if r.message_type == "explain"]
    assert explains == [question, grounding, explore, focus, synth, synth + "/verification"]
    inline = {r.explain_id: r.explain_triples for r in replies if r.message_type == "explain"}
    assert {t.s.i for t in inline[grounding] if isinstance(t.s, IriTerm)} == {grounding}
    final = replies[-1]
    assert final.explain_id == question and final.explain_graph == GRAPH_RETRIEVAL
    answer = "".join(r.response for r in replies if r.message_type == "chunk")
    assert "dog" in answer.lower()

    trace, checked = verification_of(await stored_trace(world, question), synth)
    # the offline engine checked the claim against the sentence that states its edge
    assert checked == {"answer": "supported", "method": "heuristic", "claim1": "supported"}
    selected = focus_edges(trace, question)
    assert (
        selected and {(term_key(e.s), term_key(e.p), term_key(e.o)) for e in selected} <= ALL_EDGES
    )
    dog = [f"{focus}/e{n}" for n, e in enumerate(selected, 1) if "dog" in term_key(e.o).lower()]
    assert len(dog) == 1 and answer.count(". ") == 0  # one sentence, from the dog edge
    expected = (
        graph_rag_question_triples(question, query, START)
        + grounding_triples(grounding, question, [query])
        + graph_rag_exploration_triples(explore, question, len(ALL_EDGES), grounding)
        + graph_rag_focus_triples(focus, explore, question, selected)
        + synthesis_triples(synth, focus, answer)
        # the offline engine cites the edges its answer was written from: here the dog edge
        + citation_triples(synth, dog)
        # each sentence of the answer is a claim citing the edge it was written from
        + claim_triples(
            synth,
            [ClaimSpec(c, answer.index(c), len(c), tuple(dog)) for c in answer.split(". ")],
        )
    )
    assert spo(trace) == spo(expected)
    select, synthesis = PROMPTS["graph-rag-select"], PROMPTS["graph-rag-answer"]
    assert prompts(trace) == {
        focus: f"graph-rag-select {select.digest}",
        synth: f"graph-rag-answer {synthesis.digest}",
    }
    assert costs(trace, focus)["llmModel"] == "offline" and int(costs(trace, focus)["inToken"]) > 0
    assert costs(trace, synth)["llmModel"] == "offline"
    assert "latencyMs" in costs(trace, explore)
    pages = {await source_page(world, e) for e in selected}
    assert pages <= {DOC + "/p1", DOC + "/p2"}

    # A caller naming what it reads (the agent: EXPLAIN_READ) gets the same events with only
    # those triples; the store has the whole trace, as above.
    again = await ask(
        world, query=query, entity_limit=4, session_id="g2", explain_read=EXPLAIN_READ
    )
    told = [r for r in again if r.message_type == "explain"]
    assert [(r.explain_id or "").replace("g2", "g1") for r in told] == explains
    carried = [t for r in told for t in r.explain_triples]
    kinds = {
        (t.p.i, t.o.i if t.p == RDF.type and isinstance(t.o, IriTerm) else "") for t in carried
    }
    assert kinds == {
        (TG.content.i, ""), (TG.answerVerdict.i, ""), (TG.reason.i, ""), (TG.verdict.i, ""),
        (RDF.type.i, TG.Claim.i),
    }  # fmt: skip
    assert again[-1].response == answer and again[-1].explain_id == Q + "g2"
    whole = await stored_trace(world, Q + "g2")
    assert len(whole) == len(await stored_trace(world, question)) > 5 * len(carried)


def select_reply(body: dict[str, Any]) -> str:
    """Pick e1 (and an id that does not exist, which must be ignored)."""
    assert "e1: " in body["messages"][-1]["content"]
    return json.dumps([{"id": "e99", "reasoning": "made up"}, {"id": "e1", "reasoning": "first"}])


async def test_bad_selection_is_retried_and_unknown_ids_ignored(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    script: list[Scripted] = ["this is not JSON", select_reply, "The fox jumps over the dog."]
    async with OpenAIStub(script) as stub:
        await start_stack(processors, settings, stub.base_url)
        await world.seed()
        parent = "urn:trustgraph:agent:a1/i2"
        replies = await ask(world, query="fox?", session_id="g2", parent_uri=parent)
    assert len(stub.requests) == 3  # a claim that cites nothing is not sent to a judge
    # the plain answer cites nothing: it is withheld, and the trace keeps it and says why
    assert replies[-1].response == "The documents do not say: the answer cites no evidence."
    # The selection asked for its schema: ids limited to those offered; the answer asked for
    # {"answer", "cited"} with numbers limited to the facts offered, and a plain-text reply
    # is taken as an answer that cites nothing.
    select_format, _, answer_format = stub.formats()
    schema = select_format["json_schema"]["schema"]
    ids = schema["properties"]["edges"]["items"]["properties"]["id"]["enum"]
    assert ids == [f"e{n}" for n in range(1, len(ids) + 1)]
    assert f"\n{ids[-1]}: " in stub.prompts()[0] and f"\ne{len(ids) + 1}: " not in stub.prompts()[0]
    question = Q + "g2"
    trace = await stored_trace(world, question)
    selected = focus_edges(trace, question)
    # the LLM's pick first, then an edge of each passage nearest the question that none of
    # the picks was read from (graph_rag.passages): every one of them is a fact to cite
    assert selected[0].reasoning == "first"
    assert all(e.reasoning.startswith("read from passage ") for e in selected[1:])
    cited = answer_format["json_schema"]["schema"]["properties"]["cited"]
    numbers = list(range(1, len(selected) + 1))
    assert cited["items"]["enum"] == numbers and f"[{numbers[-1]}] " in stub.prompts()[2]
    assert (f"<{question}>", f"<{PROV.wasDerivedFrom.i}>", f"<{parent}>") in spo(trace)
    assert costs(trace, question + "/focus")["llmModel"] == "stub-model"
    assert not [t for t in trace if t.p == TG.cites]
    rest, checked = verification_of(trace, question + "/synthesis")
    assert checked["answer"] == "unsupported" and checked["claim1"] == "not-supported"
    assert checked["abstention"] == replies[-1].response
    assert any(t.p == TG.content and t.o == lit("The fox jumps over the dog.") for t in rest)
    await source_page(world, selected[0])


async def test_subgraph_is_bounded(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    await start_stack(processors, settings)
    await world.seed()
    await ask(world, query="fox?", entity_limit=4, max_subgraph_size=2, session_id="g3")
    question = Q + "g3"
    trace = await stored_trace(world, question)
    counts = [t.o for t in trace if t.p == TG.edgeCount]
    assert counts == [LiteralTerm(v="2")]  # a plain literal, the reference's form
    # from "dog" alone: one hop reaches the fox edge, two hops the fox's other edges too
    for hops, edges in ((1, "1"), (2, "3")):
        sid = f"g3-{hops}"
        await ask(world, query="dog", entity_limit=1, max_path_length=hops, session_id=sid)
        trace = await stored_trace(world, Q + sid)
        assert [t.o.v for t in trace if t.p == TG.edgeCount] == [edges]  # type: ignore[union-attr]


async def test_malformed_twice_fails_cleanly(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    async with OpenAIStub(["nope", '{"id": 1}']) as stub:
        await start_stack(processors, settings, stub.base_url)
        await world.seed()
        with pytest.raises(ServiceError) as err:
            await ask(world, query="fox?", session_id="g4")
    assert err.value.type == "llm-bad-output"
    question = Q + "g4"
    trace = await stored_trace(world, question, "error")
    subjects = {t.s.i for t in trace if isinstance(t.s, IriTerm)}
    grounding = "urn:trustgraph:prov:grounding:g4"
    assert subjects == {question, grounding, question + "/exploration"}
    assert any(t.p == TG.error for t in trace)


async def test_llm_400_and_empty_collection(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    async with OpenAIStub([Reply(status=400, message="model 'm' does not exist")]) as stub:
        await start_stack(processors, settings, stub.base_url)
        await world.seed()
        with pytest.raises(ServiceError) as err:
            await ask(world, query="fox?", session_id="g5")
        assert err.value.type == "llm-error" and "does not exist" in err.value.message
        assert len(stub.requests) == 1
        with pytest.raises(ServiceError) as empty:
            await ask(world, query="fox?", session_id="g6", collection="empty")
    assert empty.value.type == "no-data" and "'empty' of user 'alice'" in empty.value.message
    question = Q + "g5"
    trace = await stored_trace(world, question, "error")
    assert any(t.p == TG.error and err.value.message in t.o.v for t in trace)  # type: ignore[union-attr]
    assert not any(isinstance(t.s, IriTerm) and t.s.i.endswith("/focus") for t in trace)


async def test_timeout_is_a_clear_error(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    async with OpenAIStub([Reply(text="[]", delay=3.0)]) as stub:
        await start_stack(processors, settings, stub.base_url, rag_timeout=1.0)
        await world.seed()
        with pytest.raises(ServiceError) as err:
            await ask(world, query="fox?", session_id="g7")
    assert err.value.type == "timeout" and "text-completion" in err.value.message
    expected = graph_rag_question_triples(Q + "g7", "fox?", START) + failure_triples(
        Q + "g7", GRAPH_RETRIEVAL, f"timeout: {err.value.message}"
    )
    trace = await stored_trace(world, Q + "g7", "error")
    assert spo(expected) <= spo(trace)


async def test_real_llm_answer_cites_the_facts_it_names(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    """With structured output the answer comes as {"answer", "cited"}: fact [1] is focus edge
    e1, so the synthesis cites e1; a number outside the facts offered is ignored."""
    answer = json.dumps({"answer": "The fox jumps over the dog.", "cited": [1, 7]})
    verdicts = {"relevant": True, "claims": [{"claim": 1, "verdict": "supported", "score": 0.9}]}
    async with OpenAIStub([select_reply, answer, json.dumps(verdicts)]) as stub:
        await start_stack(processors, settings, stub.base_url)
        await world.seed()
        replies = await ask(world, query="fox?", session_id="g9", streaming=True)
    pieces = [r.response for r in replies if r.message_type == "chunk"]
    assert "".join(pieces) == "The fox jumps over the dog." and replies[-1].response == ""
    question = Q + "g9"
    trace = await stored_trace(world, question)
    cites = [t.o for t in trace if t.p == TG.cites]
    assert cites == [IriTerm(i=question + "/focus/e1")]
    assert "[1] " in stub.prompts()[1] and '"cited"' in stub.requests[1]["messages"][0]["content"]
    # the judge saw the claim with the evidence the answer cites, and answered in its schema;
    # the claims cite nothing of their own, so each is checked against what the answer cites
    judged = stub.prompts()[2]
    assert "Claim 1: The fox jumps over the dog." in judged and "Evidence [1]: " in judged
    schema = stub.formats()[2]["json_schema"]["schema"]
    assert schema["properties"]["claims"]["items"]["properties"]["claim"]["enum"] == [1]
    _, checked = verification_of(trace, question + "/synthesis")
    assert checked == {"answer": "supported", "method": "llm-judge", "claim1": "supported"}


async def test_a_judge_reply_out_of_schema_is_unverified_never_supported(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    """The judge's reply is checked against its schema: one that fails it records each
    claim unverified, and an answer no claim of which could be verified is withheld."""
    answer = json.dumps(
        {
            "answer": "The fox jumps over the dog.",
            "cited": [1],
            "claims": [{"text": "The fox jumps over the dog.", "cited": [1]}],
        }
    )
    bad = json.dumps({"relevant": True, "claims": [{"claim": 1, "verdict": "probably"}]})
    async with OpenAIStub([select_reply, answer, bad]) as stub:
        await start_stack(processors, settings, stub.base_url)
        await world.seed()
        replies = await ask(world, query="fox?", session_id="g10")
    question = Q + "g10"
    _, checked = verification_of(await stored_trace(world, question), question + "/synthesis")
    assert checked["claim1"] == "unverified" and checked["method"] == "llm-judge"
    assert checked["answer"] == "unsupported"
    assert replies[-1].response == (
        "The documents do not say: no claim of the answer could be verified."
    )
    assert len(stub.requests) == 3
