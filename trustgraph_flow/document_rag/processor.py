"""DocumentRAG: embed the question, take the nearest chunks, let the LLM answer from them.

Trace (graph ``urn:graph:retrieval``): Question ← Exploration (the chunks) ← Synthesis
(the answer, with ``tg:cites`` for the chunks it cites), each stage published the moment it completes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from trustgraph_base.messaging import DOCUMENT_RAG, Context, Processor
from trustgraph_base.provenance import (
    docrag_exploration_triples,
    docrag_question_triples,
)
from trustgraph_base.provenance.uris import (
    docrag_question_uri,
    exploration_uri,
    grounding_uri,
)
from trustgraph_base.schema import (
    DocumentRagRequest,
    DocumentRagResponse,
    TextCompletionRequest,
    VectorMatch,
)
from trustgraph_flow.document_rag.hybrid import Ranked, fuse, joined
from trustgraph_flow.document_rag.prompt import SYSTEM, render_prompt
from trustgraph_flow.rag_common import (
    Cost,
    RagContext,
    RagSettings,
    RagState,
    Trace,
    chunk_texts,
    nearest_kinds,
    nothing_found_error,
    open_rag_state,
    refuse_unknown_collection,
    traced,
)

proc: Processor[RagSettings, RagState] = Processor("document-rag", RagSettings)
proc.lifespan(open_rag_state)


async def retrieve(
    ctx: Context[RagSettings], req: DocumentRagRequest, cost: Cost
) -> tuple[list[VectorMatch], list[str], list[Ranked] | None]:
    """The ``doc_limit`` chunks to answer from and their texts: the nearest by vector, or
    (hybrid, the default) the first in the fused order of the ``doc_candidates`` nearest
    and as many found by the question's words, with that order's details
    (``document_rag.hybrid``)."""
    hybrid = ctx.settings.doc_retrieval == "hybrid"
    wanted = max(req.doc_limit, ctx.settings.doc_candidates)
    matches, *worded = await nearest_kinds(
        ctx,
        req,
        [("chunk", wanted), ("chunk", wanted, True)] if hybrid else [("chunk", req.doc_limit)],
        cost,
    )
    if not matches:
        raise await nothing_found_error(ctx, req, "chunks")
    if not hybrid:
        return matches, await chunk_texts(ctx, req, matches), None
    vector, (matches, found) = len(matches), joined(matches, worded[0])
    texts = await chunk_texts(ctx, req, matches)
    ranked = fuse(req.query, texts, vector, found)[: req.doc_limit]
    return [matches[r.index] for r in ranked], [texts[r.index] for r in ranked], ranked


async def run(
    req: DocumentRagRequest, ctx: Context[RagSettings], trace: Trace[DocumentRagResponse]
) -> AsyncIterator[DocumentRagResponse]:
    """The stages after the question: grounding, exploration, then synthesis."""
    question = trace.question_uri
    explore_cost = Cost()
    matches, texts, ranked = await retrieve(ctx, req, explore_cost)
    explore = exploration_uri(question)
    for event in await trace.ground(
        explore,
        docrag_exploration_triples(
            explore,
            question,
            [m.id for m in matches],
            [m.score for m in matches],
            grounding=grounding_uri(question),
            reranked=None if ranked is None else [(r.vector_rank, r.lexical) for r in ranked],
        ),
        explore_cost,
        hold=False,
    ):
        yield event
    request = TextCompletionRequest(
        system=SYSTEM,
        prompt=render_prompt(req.query, texts),
        prompt_type="document-rag-answer",
        variables={"question": req.query, "chunks": texts},
        streaming=req.streaming,
        temperature=ctx.settings.llm_temperature,
    )
    ids = [m.id for m in matches]
    async for resp in trace.synthesize(request, explore, ids, "excerpts", texts):
        yield resp


@proc.service(DOCUMENT_RAG, once=True)
async def answer(req: DocumentRagRequest, ctx: RagContext) -> AsyncIterator[DocumentRagResponse]:
    """Answer one question, streaming explain events (and answer pieces when asked)."""
    await refuse_unknown_collection(ctx, req)  # before its trace: a typo leaves no collection
    async for resp in traced(
        req, ctx, DocumentRagResponse, docrag_question_uri, docrag_question_triples, run
    ):
        yield resp


main = proc.main

if __name__ == "__main__":
    main()
