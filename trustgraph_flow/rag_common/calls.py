"""Calls to other services with their cost: the LLM (streamed or not), embeddings and
vector search; ``Cost`` is what a stage records of them (``tg:llmModel``, tokens, duration)."""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import EMBEDDINGS, LIBRARIAN, TEXT_COMPLETION, VECTORS, Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, metrics_triples
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import (
    EmbeddingsRequest,
    LibrarianRequest,
    TextCompletionRequest,
    TextCompletionResponse,
    VectorMatch,
    VectorQuery,
    VectorRequest,
)
from trustgraph_base.schema.llm import VectorKind
from trustgraph_base.schema.rag import RagRequest
from trustgraph_flow.prompts.book import PromptUse


@dataclass
class Cost:
    """What one stage cost: the LLM's model, tokens and wall time (summed over its calls), or
    the embeddings model of a stage that searched instead (``metrics_triples``)."""

    model: str = ""
    embedding: bool = False  # ``model`` is the embeddings model of a search, not an LLM
    in_token: int | None = None
    out_token: int | None = None
    latency_ms: float = 0.0
    prompt: PromptUse | None = None  # the prompt of its LLM call (``tg:prompt``)

    def add(self, model: str, in_token: int, out_token: int, latency_ms: float) -> None:
        self.model = self.model or model
        self.in_token = (self.in_token or 0) + in_token
        self.out_token = (self.out_token or 0) + out_token
        self.latency_ms += latency_ms

    def triples(self, stage_uri: str) -> list[Triple]:
        used = self.prompt.triples(stage_uri, GRAPH_RETRIEVAL) if self.prompt else []
        return [
            *metrics_triples(
                stage_uri,
                GRAPH_RETRIEVAL,
                model=self.model or None,
                embedding=self.embedding,
                in_token=self.in_token,
                out_token=self.out_token,
                latency_ms=self.latency_ms,
            ),
            *used,
        ]


@dataclass
class Spent:
    """The tokens every LLM call of a run took (its final response's ``in_token``/``out_token``,
    as TrustGraph's are: what ``--show-usage`` prints)."""

    in_token: int = 0
    out_token: int = 0

    def add(self, in_token: int | None, out_token: int | None) -> None:
        self.in_token += in_token or 0
        self.out_token += out_token or 0


class Timer:
    """Milliseconds since creation (monotonic)."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def ms(self) -> float:
        return (time.monotonic() - self.start) * 1000.0


@dataclass
class Completion:
    """One LLM call: iterate ``pieces()`` (streamed or not), then read ``text`` and ``cost``."""

    ctx: Context[Any]
    request: TextCompletionRequest
    text: str = ""
    cost: Cost = field(default_factory=Cost)

    async def pieces(self) -> AsyncIterator[str]:
        """Yield the answer as it arrives; a non-streaming call yields it once."""
        timer = Timer()
        client = self.ctx.client(TEXT_COMPLETION)
        parts: list[str] = []
        model, in_token, out_token = "", 0, 0
        timeout = self.ctx.settings.request_timeout
        async for resp in client.stream(self.request, timeout=timeout):
            model = resp.model or model
            in_token = max(in_token, resp.in_token)
            out_token = max(out_token, resp.out_token)
            if resp.response:
                parts.append(resp.response)
                yield resp.response
        self.text = "".join(parts)
        self.cost.add(model, in_token, out_token, timer.ms())


def add_cost(cost: Cost, response: TextCompletionResponse, latency_ms: float) -> None:
    """Add one finished LLM call (its response and wall time) to a stage's cost."""
    cost.add(response.model, response.in_token, response.out_token, latency_ms)


async def chunk_contents(ctx: Context[Any], req: RagRequest, ids: list[str]) -> dict[str, str]:
    """The texts of chunks ``ids`` (by id) from the librarian."""
    if not ids:
        return {}
    resp = await ctx.client(LIBRARIAN).request(
        LibrarianRequest(
            operation="get-content", ids=ids, user=req.user, collection=req.collection
        ),
        timeout=ctx.settings.request_timeout,
    )
    return {k: base64.b64decode(v).decode("utf-8", "replace") for k, v in resp.contents.items()}


async def chunk_texts(ctx: Context[Any], req: RagRequest, matches: list[VectorMatch]) -> list[str]:
    """Each chunk match's text: from the index when it carries it, else from the librarian."""
    fetched = await chunk_contents(ctx, req, [m.id for m in matches if not m.text])
    return [m.text or fetched.get(m.id, "") for m in matches]


async def nearest_kinds(
    ctx: Context[Any],
    req: RagRequest,
    wanted: Sequence[tuple[VectorKind, int] | tuple[VectorKind, int, bool]],
    cost: Cost,
    *,
    texts: Collection[VectorKind] = ("chunk", "entity"),
) -> list[list[VectorMatch]]:
    """The question embedded once, and for each ``(kind, limit)`` of ``wanted`` the
    ``limit`` nearest items of that kind in the collection (one vector request for all);
    of a kind not in ``texts``, the matches' ids and scores only (``VectorRequest.texts``).
    A ``(kind, limit, True)`` after the first asks instead the items whose texts best match
    the question's words (``VectorQuery.by_words``: full-text search over the whole index)."""
    timer = Timer()
    timeout = ctx.settings.request_timeout
    emb = await ctx.client(EMBEDDINGS).request(
        EmbeddingsRequest(texts=[req.query]), timeout=timeout
    )
    if not emb.vectors:
        raise ServiceError(ErrorType.EMBEDDINGS_ERROR, "the embeddings service returned no vector")
    (kind, limit, *_), *also = wanted
    queries = [VectorQuery(kind=k, limit=n, texts=k in texts, by_words=any(w)) for k, n, *w in also]
    found = await ctx.client(VECTORS).request(
        VectorRequest(
            operation="query",
            kind=kind,
            vector=emb.vectors[0],
            limit=limit,
            also=queries,
            texts=kind in texts,
            words=req.query if any(q.by_words for q in queries) else "",
            user=req.user,
            collection=req.collection,
        ),
        timeout=timeout,
    )
    if len(found.also) != len(also):
        raise ServiceError(ErrorType.INTERNAL_ERROR, "the vector index answered another query")
    out = [list(found.matches), *(list(m) for m in found.also)]
    cost.model, cost.embedding = cost.model or emb.model, True
    cost.latency_ms += timer.ms()
    return out
