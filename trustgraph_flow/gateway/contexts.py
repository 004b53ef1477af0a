"""TrustGraph's ``/api/v1/flow/{flow}/import/entity-contexts`` socket (``tg-load-knowledge``).

Each text frame is ``{"metadata": {"id", "collection", …}, "entities": [{"entity": {"t": "i",
"i": IRI}, "context": text, "rdf_type": [...]}, …]}``. An entity context is text describing a
graph entity; GraphRAG finds its starting entities by the vectors of their text
(``trustgraph_flow/graph_rag``: the ``entity`` vectors the extractor writes from entity labels).
So each context is stored the same way: embedded, and upserted as the entity's vector in the
caller's collection (``document`` = the frame's metadata id, so it goes with that document).
The contexts of one entity in one frame are joined into one text (one vector per entity: a
later frame's contexts for the same entity replace the earlier ones). ``rdf_type`` is not
stored: the types arrive as triples through ``import/triples``. A bad frame is answered with
an error frame; the socket stays open.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import EMBEDDINGS, VECTORS
from trustgraph_base.rdf.terms import check_iri
from trustgraph_base.schema import (
    DEFAULT_COLLECTION,
    DEFAULT_USER,
    EmbeddingsRequest,
    EmbeddingsResponse,
    VectorItem,
    VectorRequest,
)
from trustgraph_flow.gateway.auth import Principal
from trustgraph_flow.gateway.bulk import serve_import
from trustgraph_flow.gateway.dispatch import DISPATCHER

BATCH = 256  # texts per embeddings request (its limit is 2048)


def _entity_iri(item: Any) -> str:
    """The IRI an entity-context item names (TrustGraph's ``{"t": "i", "i": …}`` or the older
    ``{"v": …, "e": true}``); ``ServiceError`` for anything else."""
    entity = item.get("entity") if isinstance(item, dict) else None
    iri: Any = None
    if isinstance(entity, dict):
        if entity.get("t") == "i":
            iri = entity.get("i")
        elif entity.get("e") is True:
            iri = entity.get("v")
    if not isinstance(iri, str):
        raise ServiceError(
            ErrorType.BAD_FRAME,
            "import/entity-contexts: each entity is an IRI term {'t': 'i', 'i': ...}",
        )
    try:
        check_iri(iri)
    except ValueError as exc:
        raise ServiceError(ErrorType.BAD_FRAME, f"import/entity-contexts: {exc}") from None
    return iri


def read_frame(frame: Any) -> tuple[dict[str, str], str, dict[str, str]]:
    """The frame's scope, document id and one context text per entity (in first-seen order)."""
    if not isinstance(frame, dict) or not isinstance(frame.get("entities"), list):
        raise ServiceError(
            ErrorType.BAD_FRAME,
            "an entity-contexts frame is {'metadata': {...}, 'entities': [...]}",
        )
    given = frame.get("metadata")
    meta: dict[str, Any] = given if isinstance(given, dict) else {}
    scope = {k: meta[k] for k in ("user", "collection") if isinstance(meta.get(k), str) and meta[k]}
    texts: dict[str, list[str]] = {}
    for item in frame["entities"]:
        iri = _entity_iri(item)
        context = item.get("context")
        if not isinstance(context, str):
            raise ServiceError(
                ErrorType.BAD_FRAME, "import/entity-contexts: each 'context' is a string"
            )
        if context.strip() and context not in texts.setdefault(iri, []):
            texts[iri].append(context)
    joined = {iri: "\n".join(parts) for iri, parts in texts.items() if parts}
    return scope, str(meta.get("id") or ""), joined


class ContextWriter:
    """Embeds entity contexts and upserts them as entity vectors (through the dispatcher's clients)."""

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher

    async def write(self, principal: Principal, frame: Any) -> int:
        """Store one frame's contexts; how many entities it held. ``ServiceError`` when refused."""
        scope, document, contexts = read_frame(frame)
        scoped = principal.scope(scope)
        user = scoped.get("user", DEFAULT_USER)
        collection = scoped.get("collection", DEFAULT_COLLECTION)
        entities = list(contexts.items())
        for start in range(0, len(entities), BATCH):
            part = entities[start : start + BATCH]
            emb = await self.dispatcher.call(
                EMBEDDINGS, EmbeddingsRequest(texts=[t for _, t in part])
            )
            assert isinstance(emb, EmbeddingsResponse)
            if len(emb.vectors) != len(part):
                raise ServiceError(
                    ErrorType.EMBEDDINGS_ERROR,
                    f"embeddings returned {len(emb.vectors)} vectors for {len(part)} texts",
                )
            items = [
                VectorItem(id=iri, vector=vec, text=text, document=document)
                for (iri, text), vec in zip(part, emb.vectors, strict=True)
            ]
            await self.dispatcher.call(
                VECTORS,
                VectorRequest(
                    operation="upsert", kind="entity", items=items, user=user, collection=collection
                ),
            )
        return len(entities)


async def import_entity_contexts_handler(request: web.Request) -> web.StreamResponse:

    writer = ContextWriter(request.app[DISPATCHER])
    return await serve_import(request, writer.write, "entity contexts")
