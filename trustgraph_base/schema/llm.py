"""Text completion, embeddings and the vector index."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from trustgraph_base import bounds
from trustgraph_base.schema.core import Message, Response, Scoped


class TextCompletionRequest(Message):
    """A prompt for the LLM.

    ``prompt_type`` names the kind of prompt (``extract-edges``, ``graph-rag-select``,
    ``graph-rag-answer``, ``document-rag-answer``, ``agent-react``, ``text``) and
    ``variables`` carries its inputs, so the offline engine can answer it without
    parsing ``prompt``; an HTTP LLM sees only ``system`` and ``prompt``.
    ``response_schema`` is the JSON Schema the reply must match (structured output;
    ``None``: free text); the text-completion service asks the server to enforce it.
    ``operation`` ``list-models`` (the reference's) asks which model answers instead.
    """

    operation: Literal["complete", "list-models"] = "complete"
    system: str = ""
    prompt: str = ""  # required by a completion (``_prompt_given``)
    prompt_type: str = "text"
    variables: dict[str, Any] = {}
    streaming: bool = False
    temperature: float | None = None
    max_tokens: int | None = None
    response_schema: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _prompt_given(cls, data: Any) -> Any:
        if (
            isinstance(data, dict)
            and data.get("operation", "complete") == "complete"
            and "prompt" not in data
        ):
            raise PydanticCustomError("missing", "prompt: a completion needs a 'prompt'")
        return data


class ModelInfo(Message):
    """A model the text-completion service answers with (the reference's ``list-models``)."""

    id: str


class TextCompletionResponse(Response):
    """A completion (or one streamed piece of it) with its cost; or, for ``list-models``,
    the models."""

    response: str = ""
    model: str = ""
    in_token: int = 0
    out_token: int = 0
    latency_ms: float = 0.0
    models: list[ModelInfo] | None = None


class EmbeddingsRequest(Message):
    texts: list[str] = Field(min_length=1, max_length=2048)


class EmbeddingsResponse(Response):
    vectors: list[list[float]] = []
    model: str = ""


RERANK_ITEMS_MAX = 1000  # queries, or documents, in one rerank request


class RerankQuery(Message):
    query_id: str = Field(max_length=200)
    query_text: str


class RerankDocument(Message):
    document_id: str = Field(max_length=200)
    document_text: str


class RerankRequest(Message):
    """The reference's ``reranker``: score each document against each query."""

    queries: list[RerankQuery] = Field(min_length=1, max_length=RERANK_ITEMS_MAX)
    documents: list[RerankDocument] = Field(min_length=1, max_length=RERANK_ITEMS_MAX)
    limit: int = Field(default=10, ge=1, le=RERANK_ITEMS_MAX)


class RerankResult(Message):
    query_id: str
    document_id: str
    score: float


class RerankResponse(Response):
    """Each query's best ``limit`` documents, best first (queries in the order asked)."""

    results: list[RerankResult] = []
    model: str = ""


VectorKind = Literal["chunk", "entity"]


class VectorItem(Message):
    """One indexed item: its id (a chunk or entity URI), vector and display text."""

    id: str
    vector: list[float]
    text: str = ""
    document: str = ""  # the document URI it came from, for removal


def vector_of(given: Any) -> list[float] | None:
    """A vector as the reference's cores and sockets carry it: a non-empty list of numbers,
    or (as older ones had it) a list of such lists, of which the first is kept; None if it
    is neither."""
    if isinstance(given, list) and given and isinstance(given[0], list):
        given = given[0]
    if (
        not isinstance(given, list)
        or not given
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in given)
    ):
        return None
    return [float(x) for x in given]


class VectorMatch(Message):
    id: str
    score: float
    text: str = ""


class VectorQuery(Message):
    """Another index searched with a query's vector (``VectorRequest.also``), or with its
    ``words`` (``by_words``: full-text BM25 over the whole index, each match scored by its
    cosine to the query's vector all the same; an index made before has no word search and
    answers none)."""

    kind: VectorKind
    limit: int = Field(default=10, ge=1, le=1000)
    texts: bool | None = None  # this search's ``VectorRequest.texts``; unset: the request's
    by_words: bool = False


class VectorRequest(Scoped):
    """Upsert items, query by vector, list a page, or delete by document, within one user's
    collection. ``list`` (internal: the gateway's export, never a client's) answers up to
    ``limit`` items after the cursor ``after`` (empty: from the start) and the next cursor.
    A query's ``also`` searches more indexes with the same vector, in the same request
    (GraphRAG's entities and chunks: one request, not one per kind)."""

    operation: Literal["upsert", "query", "list", "delete-document", "delete-collection"]
    kind: VectorKind = "chunk"
    items: list[VectorItem] = []
    vector: list[float] = []
    limit: int = Field(default=10, ge=1, le=1000)
    document: str = ""
    after: str = ""
    also: list[VectorQuery] = Field(default=[], max_length=3)  # a query's other searches
    texts: bool = True  # a query's: False answers matches without their text (ids and scores)
    words: str = Field(default="", max_length=bounds.QUESTION_MAX)  # for ``by_words`` searches
    load: int | None = Field(default=None, ge=0)  # an upsert's: the load it is from (if any)
    upto: int | None = Field(default=None, ge=0)  # delete-document: its loads up to this go


class VectorResponse(Response):
    matches: list[VectorMatch] = []
    also: list[list[VectorMatch]] = []  # a query's: the matches of each of ``also``, in order
    count: int = 0
    items: list[VectorItem] = []  # a ``list`` page
    after: str = ""  # the cursor of the next ``list`` page (empty: this was the last)
