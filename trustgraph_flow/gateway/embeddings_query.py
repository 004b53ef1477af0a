"""The reference's embeddings queries, answered from our vector index.

TrustGraph's ``graph-embeddings`` (``{"vector", "limit", "collection"}`` → ``{"entities":
[{"entity": term, "score"}]}``) and ``document-embeddings`` (→ ``{"chunks": [{"chunk_id",
"score"}]}``), which the official ``tg-invoke-graph-embeddings`` and
``tg-invoke-document-embeddings`` call, are our ``vectors`` service's ``query`` of entity
or chunk vectors in the caller's collection. Their filters (``rdf_type``, ``attributes``)
are not kept in our index: a request naming one is refused, never answered unfiltered.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.rdf.terms import IriTerm, check_iri
from trustgraph_base.schema import Response
from trustgraph_base.schema.llm import VectorResponse

KINDS = {"graph-embeddings": "entity", "document-embeddings": "chunk"}
KEPT = ("vector", "limit", "user", "collection")


class EntityMatch(BaseModel):
    entity: IriTerm
    score: float


class ChunkMatch(BaseModel):
    chunk_id: str
    score: float


class GraphEmbeddingsResponse(Response):
    entities: list[EntityMatch] = []


class DocumentEmbeddingsResponse(Response):
    chunks: list[ChunkMatch] = []


def translate(service: Any, request: Any) -> tuple[Any, Any]:
    """The ``vectors`` request a reference embeddings query is; anything else as it came."""
    if service not in KINDS or not isinstance(request, dict):
        return service, request
    for name in ("rdf_type", "attributes"):
        if request.get(name):
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"{service}: {name} filters are not offered here (the index keeps no "
                "types or attributes); ask without it",
            )
    kept = {k: request[k] for k in KEPT if k in request}
    return "vectors", {**kept, "operation": "query", "kind": KINDS[service]}


def answer(service: Any, reply: Response) -> Response:
    """The reply in the reference's shape for ``service`` (as it came for other services)."""
    if service not in KINDS or not isinstance(reply, VectorResponse):
        return reply
    if service == "graph-embeddings":
        entities = [
            EntityMatch(entity=IriTerm(i=m.id), score=m.score)
            for m in reply.matches
            if is_iri(m.id)
        ]
        return GraphEmbeddingsResponse(entities=entities, end_of_stream=reply.end_of_stream)
    chunks = [ChunkMatch(chunk_id=m.id, score=m.score) for m in reply.matches]
    return DocumentEmbeddingsResponse(chunks=chunks, end_of_stream=reply.end_of_stream)


def is_iri(value: str) -> bool:
    try:
        check_iri(value)
    except ValueError:
        return False
    return True
