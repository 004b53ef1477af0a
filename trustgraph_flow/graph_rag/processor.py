"""GraphRAG: find the question's entities, walk the knowledge graph, let the LLM pick the
edges that matter (with a reason each), add an edge of each passage nearest the question
that none of those was read from (``graph_rag.passages``), then answer from them.

Trace (graph ``urn:graph:retrieval``): Question ← Exploration (edges retrieved) ← Focus
(edges selected, each ``tg:edge << s p o >>`` with ``tg:reasoning``) ← Synthesis (with
``tg:cites`` for the focus edges the answer cites).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import GRAPH_RAG, Context, Processor
from trustgraph_base.provenance import (
    SelectedEdge,
    graph_rag_exploration_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
)
from trustgraph_base.provenance.uris import (
    exploration_uri,
    focus_edge_uri,
    focus_uri,
    graph_rag_question_uri,
    grounding_uri,
)
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import GraphRagRequest, GraphRagResponse, TextCompletionRequest
from trustgraph_flow.graph_rag.evidence import edge_evidence
from trustgraph_flow.graph_rag.passages import (
    PASSAGES,
    bare_passages,
    nearest_passages,
    passage_candidates,
    passage_edges,
    passage_patterns,
    with_passages,
)
from trustgraph_flow.graph_rag.select import (
    ANSWER_SYSTEM,
    MAX_SELECT_TOKENS,
    SELECT_SYSTEM,
    Selection,
    answer_variables,
    chosen_edges,
    recorded_edges,
    render_answer,
    render_select,
    select_schema,
    select_variables,
)
from trustgraph_flow.graph_rag.subgraph import Subgraph, resolve_labels, retrieve
from trustgraph_flow.prompts.book import prompted
from trustgraph_flow.rag_common import (
    Cost,
    RagContext,
    RagSettings,
    RagState,
    Timer,
    Trace,
    add_cost,
    nearest_kinds,
    nothing_found_error,
    open_rag_state,
    refuse_unknown_collection,
    traced,
)
from trustgraph_flow.structured import BadReply, ask

SELECT_ATTEMPTS = 2  # a malformed selection is retried once, then the request fails

proc: Processor[RagSettings, RagState] = Processor("graph-rag", RagSettings)
proc.lifespan(open_rag_state)


async def explore(
    req: GraphRagRequest, ctx: Context[RagSettings], cost: Cost
) -> tuple[Subgraph, list[list[Triple]], list[str]]:
    """The entities nearest the question and the subgraph around them, with the edges read
    from each of the passages nearest it (``nearest_passages``; one embedding for both
    look-ups, and one store request for the walk's first hop and those edges), the labels
    of both sets of edges (one look-up: a store request less than one per set), and the
    passages that gave no edge (``bare_passages``: read as text)."""
    wanted = passage_candidates(ctx.settings)
    matches, chunks = await nearest_kinds(  # texts only for the passages' fused order
        ctx,
        req,
        [("entity", req.entity_limit), ("chunk", wanted)],
        cost,
        texts={"chunk"} if wanted > PASSAGES else set(),
    )
    if not matches:
        raise await nothing_found_error(ctx, req, "edges")
    timer = Timer()
    near = await nearest_passages(ctx, req, chunks)
    graph, read = await retrieve(ctx, req, [m.id for m in matches], passage_patterns(near))
    passages = passage_edges(near, read, graph)
    await resolve_labels(ctx, req, graph, [t for edges in passages for t in edges])
    cost.latency_ms += timer.ms()
    return graph, passages, bare_passages(near, passages)


async def select(
    req: GraphRagRequest, ctx: Context[RagSettings], graph: Subgraph, cost: Cost
) -> list[SelectedEdge]:
    """Ask the LLM which edges matter; a malformed answer is retried once."""
    if not graph.edges:
        return []
    variables = select_variables(req.query, graph, req.max_edges_selected)
    request = TextCompletionRequest(
        system=SELECT_SYSTEM,
        prompt=render_select(variables),
        prompt_type="graph-rag-select",
        variables=variables,
        temperature=ctx.settings.llm_temperature,
        max_tokens=MAX_SELECT_TOKENS,
    )
    request, cost.prompt = await prompted(ctx, req.user, request)
    schema = select_schema(len(graph.edges), req.max_edges_selected)
    problem = ""
    for _ in range(SELECT_ATTEMPTS):
        try:
            reply = await ask(ctx, request, Selection, schema=schema)
        except BadReply as exc:
            if exc.response is not None:
                add_cost(cost, exc.response, exc.latency_ms)
            problem = f"not a list of {{id, reasoning}}: {exc}"
            continue
        add_cost(cost, reply.response, reply.latency_ms)
        return chosen_edges(reply.value, graph, req.max_edges_selected)
    raise ServiceError(
        ErrorType.LLM_BAD_OUTPUT, f"the LLM's edge selection was malformed twice: {problem}"
    )


async def run(
    req: GraphRagRequest, ctx: Context[RagSettings], trace: Trace[GraphRagResponse]
) -> AsyncIterator[GraphRagResponse]:
    """The stages after the question: grounding, exploration, focus, synthesis."""
    question = trace.question_uri
    explore_uri, focus = exploration_uri(question), focus_uri(question)
    explore_cost, focus_cost = Cost(), Cost()
    graph, passages, bare = await explore(req, ctx, explore_cost)
    grounding = grounding_uri(question)
    for event in await trace.ground(
        explore_uri,
        graph_rag_exploration_triples(explore_uri, question, len(graph.edges), grounding, bare),
        explore_cost,
        hold=True,  # to the broker with the focus
    ):
        yield event
    kept = trace.writer.recorded.get(focus)  # a rerun of a run cut short after its focus
    edges = (
        recorded_edges(kept, question)
        if kept is not None
        else with_passages(await select(req, ctx, graph, focus_cost), passages, graph)
    )
    yield await trace.stage(
        focus, graph_rag_focus_triples(focus, explore_uri, question, edges), focus_cost
    )
    evidence = await edge_evidence(ctx, req, graph, edges, bare)
    read = evidence.passages  # the bare passages as text, numbered after the edges
    variables = answer_variables(
        req.query, graph, edges, evidence.quotes, evidence.excerpts, list(read.values())
    )
    request = TextCompletionRequest(
        system=ANSWER_SYSTEM,
        prompt=render_answer(variables),
        prompt_type="graph-rag-answer",
        variables=variables,
        streaming=req.streaming,
        temperature=ctx.settings.llm_temperature,
    )
    cites = [focus_edge_uri(question, n) for n in range(1, len(edges) + 1)]  # fact [n] is e{n}
    async for resp in trace.synthesize(
        request,
        focus,
        [*cites, *read],  # then a passage's fact is its chunk
        "facts",
        checked_against=[*evidence.texts, *read.values()],
        chunks=[*evidence.chunks, *({c: t} for c, t in read.items())],
    ):
        yield resp


@proc.service(GRAPH_RAG, once=True)
async def answer(req: GraphRagRequest, ctx: RagContext) -> AsyncIterator[GraphRagResponse]:
    """Answer one question, streaming explain events (and answer pieces when asked)."""
    await refuse_unknown_collection(ctx, req)  # before its trace: a typo leaves no collection
    async for resp in traced(
        req, ctx, GraphRagResponse, graph_rag_question_uri, graph_rag_question_triples, run
    ):
        yield resp


main = proc.main

if __name__ == "__main__":
    main()
