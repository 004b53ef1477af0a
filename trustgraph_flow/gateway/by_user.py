"""Documents found by user, as the reference's librarian finds them.

Our librarian keeps documents (and traces their answer and observation documents) per
collection; the reference's, per user. So the official client, which names no collection
when it reads a document (its explain view fetches an answer's text from ``default``),
would miss every document of another collection. Here a librarian read of one document
(``FOUND_BY_USER``) that the named collection does not have is asked again in each other
collection of the caller's user — only those the caller may read (a key limited to some
collections looks in those only), the named one first, at most ``MAX_COLLECTIONS``.

The ``sparql`` service (REST and socket: the official ``tg-invoke-sparql-query -C``) answers
as the SPARQL Protocol endpoint does: an answer that may be blank from a collection the user
does not have is ``not-found``, not a count of 0 (``sparql_protocol.known_collection``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pydantic import BaseModel

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import LIBRARIAN, SPARQL, ServiceSpec
from trustgraph_base.schema import Response
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_flow.gateway.auth import Principal, lists_collections, only_visible
from trustgraph_flow.gateway.collections import Asker, answer
from trustgraph_flow.gateway.dispatch import Dispatcher
from trustgraph_flow.gateway.sparql_protocol import known_collection

FOUND_BY_USER = frozenset({"get-document-content", "get-document-metadata", "get-content"})
MAX_COLLECTIONS = 200


def by_user(spec: ServiceSpec[BaseModel, Response], request: BaseModel) -> bool:
    return spec.name == LIBRARIAN.name and getattr(request, "operation", "") in FOUND_BY_USER


async def other_collections(
    dispatcher: Dispatcher, principal: Principal, request: BaseModel
) -> list[str]:
    """The user's other collections that ``principal`` may read."""
    named = getattr(request, "collection", "")
    listing = {"operation": "list-collections", "user": getattr(request, "user", "")}
    listed = await answer(Asker(dispatcher, principal), listing)
    found = [c["collection"] for c in listed["collections"] if c["collection"] != named]
    return found[:MAX_COLLECTIONS]


async def replies(
    dispatcher: Dispatcher,
    spec: ServiceSpec[BaseModel, Response],
    request: BaseModel,
    principal: Principal,
    *,
    forward: bool = False,
) -> AsyncIterator[Response]:
    """``dispatcher.replies``; a document read answered ``not-found`` is asked again in the
    user's other collections, and ``not-found`` from the named one if none has it; a
    ``list-collections`` (explain's, the librarian's) names only what a limited key may use;
    a SPARQL answer that may be blank needs the collection to exist (above)."""
    if spec.name == SPARQL.name:
        async for reply in dispatcher.replies(spec, request):
            if isinstance(reply, SparqlQueryResponse) and reply.may_be_blank():
                scope = {k: getattr(request, k, "") for k in ("collection", "user")}
                await known_collection(Asker(dispatcher, principal), scope)
            yield reply
        return
    if not by_user(spec, request):
        listing = lists_collections(principal, request)  # read, to keep what the key may see
        async for reply in dispatcher.replies(spec, request, forward=forward and not listing):
            yield only_visible(principal, reply) if listing else reply
        return
    try:
        async for reply in dispatcher.replies(spec, request, forward=forward):
            yield reply
        return
    except ServiceError as exc:
        if exc.type != ErrorType.NOT_FOUND:
            raise
        missing = exc
    for collection in await other_collections(dispatcher, principal, request):
        moved = request.model_copy(update={"collection": collection})
        try:
            async for reply in dispatcher.replies(spec, moved, forward=forward):
                yield reply
            return
        except ServiceError as exc:
            if exc.type != ErrorType.NOT_FOUND:
                raise
    raise missing
