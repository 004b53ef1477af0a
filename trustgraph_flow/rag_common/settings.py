"""Settings and state of both RAG processors (GraphRAG, DocumentRAG)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from trustgraph_base.messaging import CONFIG, Context
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.config.cache import ConfigCache
from trustgraph_flow.run_journal import RunJournal
from trustgraph_flow.run_recovery import journal_open


class RagSettings(ProcessorSettings):
    """Settings of both RAG processors."""

    llm_temperature: float | None = None
    """Sampling temperature for answers (empty: the model's default)."""

    llm_structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    """As text-completion's: json_schema/json_object ask the answer with the evidence it cites
    (one non-streamed reply); none streams plain text that cites nothing (docs/rag.md)."""

    doc_retrieval: Literal["hybrid", "vector"] = "hybrid"
    """DocumentRAG: hybrid asks the vector index for doc-candidates chunks and keeps the
    doc-limit first of the vector order fused with a lexical one (the question's words,
    weighed by their rarity among the candidates); vector keeps the vector order alone
    (docs/rag.md)."""

    doc_candidates: int = Field(default=20, ge=1, le=100)
    """DocumentRAG, hybrid: how many chunks the vector search returns to be re-ranked (never
    fewer than the request's doc-limit)."""

    unsupported_answers: Literal["abstain", "keep"] = "abstain"
    """An answer no cited evidence supports (each claim is verified, docs/rag.md): abstain
    answers that the documents do not say; keep answers it anyway, marked unsupported in the trace."""


@dataclass(frozen=True)
class RagState:
    """A RAG processor's state: its run journal."""

    journal: RunJournal


RagContext = Context[RagSettings, RagState]


async def open_rag_state(ctx: Context[RagSettings]) -> AsyncIterator[RagState]:
    """Lifespan of both RAG processors: traces a killed predecessor left open end as
    interrupted; configuration changes are listened for from the start (``config.cache``)."""
    ConfigCache.of(ctx, CONFIG)
    async with journal_open(ctx) as book:
        yield RagState(book)
