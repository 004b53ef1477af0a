"""Text completion, embeddings and the vector index."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from trustgraph_base.schema.core import Message, Response, Scoped


class TextCompletionRequest(Message):
    """A prompt for the LLM.

    ``prompt_type`` names the kind of prompt (``extract-edges``, ``graph-rag-select``,
    ``graph-rag-answer``, ``document-rag-answer``, ``agent-react``, ``text``) and
    ``variables`` carries its inputs, so the offline engine can answer it without
    parsing ``prompt``; an HTTP LLM sees only ``system`` and ``prompt``.
    ``response_schema`` is the JSON Schema the reply must match (structured output;
    ``None``: free text); the text-completion service asks the server to enforce it.
    """

    system: str = ""
    prompt: str
    prompt_type: str = "text"
    variables: dict[str, Any] = {}
    streaming: bool = False
    temperature: float | None = None
    max_tokens: int | None = None
    response_schema: dict[str, Any] | None = None


class TextCompletionResponse(Response):
    """A completion (or one streamed piece of it) with its cost."""

    response: str = ""
    model: str = ""
    in_token: int = 0
    out_token: int = 0
    latency_ms: float = 0.0


class EmbeddingsRequest(Message):
    texts: list[str] = Field(min_length=1, max_length=2048)


class EmbeddingsResponse(Response):
    vectors: list[list[float]] = []
    model: str = ""


VectorKind = Literal["chunk", "entity"]


class VectorItem(Message):
    """One indexed item: its id (a chunk or entity URI), vector and display text."""

    id: str
    vector: list[float]
    text: str = ""
    document: str = ""  # the document URI it came from, for removal


class VectorMatch(Message):
    id: str
    score: float
    text: str = ""


class VectorRequest(Scoped):
    """Upsert items, query by vector, list a page, or delete by document, within one user's
    collection. ``list`` (internal: the gateway's export, never a client's) answers up to
    ``limit`` items after the cursor ``after`` (empty: from the start) and the next cursor."""

    operation: Literal["upsert", "query", "list", "delete-document", "delete-collection"]
    kind: VectorKind = "chunk"
    items: list[VectorItem] = []
    vector: list[float] = []
    limit: int = Field(default=10, ge=1, le=1000)
    document: str = ""
    after: str = ""


class VectorResponse(Response):
    matches: list[VectorMatch] = []
    count: int = 0
    items: list[VectorItem] = []  # a ``list`` page
    after: str = ""  # the cursor of the next ``list`` page (empty: this was the last)
