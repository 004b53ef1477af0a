"""TrustGraph's collection management (``POST /api/v1/collection-management``) over our
per-user collections.

- ``list-collections`` (``tag_filter``: keep those with any of these tags): the caller's
  collections, those described with ``update-collection``, those holding documents (the
  librarian's) and those holding triples or traces (the store's); a key limited to some
  collections sees only those. A sharded store with a shard down lists the others', and
  ``unreachable`` names the shard (a line each).
- ``update-collection`` (``collection``, ``name``, ``description``, ``tags``): describe one.
- ``delete-collection`` (``collection``): remove it and everything in it, by the one path
  that does (the store's ``delete-collection``, which tells the librarian and the vector
  index to drop theirs).

Everything acts for the caller's user (``Principal.scope``), whatever the request names.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import EXPLAIN, LIBRARIAN
from trustgraph_base.schema import DEFAULT_COLLECTION
from trustgraph_flow.gateway.auth import Principal, authenticate
from trustgraph_flow.gateway.body import json_body
from trustgraph_flow.gateway.dispatch import DISPATCHER
from trustgraph_flow.gateway.failure import as_failure, rest_response

log = logging.getLogger(__name__)

SERVICE = "collection-management"  # the REST path's name, and the socket service's
OPERATIONS = ("list-collections", "update-collection", "delete-collection")


async def collection_management_handler(request: web.Request) -> web.Response:

    try:
        principal = authenticate(request)
        body = await json_body(request)
        if not isinstance(body, dict):
            raise ServiceError(
                ErrorType.BAD_REQUEST, "collection-management: the body must be a JSON object"
            )
        ask = Asker(request.app[DISPATCHER], principal)
        return web.json_response(await answer(ask, body))
    except web.HTTPRequestEntityTooLarge as exc:
        return rest_response(
            ServiceError(ErrorType.FRAME_TOO_LARGE, exc.text or "request body too large")
        )
    except Exception as exc:
        failure = as_failure(exc)
        log.info("collection-management failed: %s", failure)
        return rest_response(failure)


class Asker:
    """One request to a service as ``principal`` may make it; the final reply's JSON."""

    def __init__(self, dispatcher: Any, principal: Principal) -> None:
        self.dispatcher = dispatcher
        self.principal = principal

    async def __call__(self, service: str, request: dict[str, Any]) -> dict[str, Any]:
        spec, req = self.dispatcher.parse(service, request, self.principal)
        final: dict[str, Any] = {}
        async for reply, _last in self.dispatcher.stream(spec, req):
            final = reply
        return final


async def answer(ask: Asker, body: dict[str, Any]) -> dict[str, Any]:
    operation = body.get("operation")
    scope = {k: body[k] for k in ("user",) if k in body}
    if operation == "list-collections":
        wanted = set(_strings(body.get("tag_filter", body.get("tag-filter")), "tag_filter"))
        found, down = await _collections(ask, scope)
        listed = [c for c in found if not wanted or wanted & set(c.get("tags", []))]
        return {"collections": listed, **({"unreachable": down} if down else {})}
    if operation not in OPERATIONS:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"collection-management: unknown operation {operation!r} "
            f"(this gateway offers: {', '.join(OPERATIONS)})",
        )
    collection = body.get("collection")
    if not isinstance(collection, str) or not collection:
        raise ServiceError(ErrorType.BAD_REQUEST, f"{operation} needs a collection")
    scope["collection"] = collection
    if operation == "delete-collection":
        # A name the user has no collection of is a typo or someone else's: say so, not "done".
        found, down = await _collections(ask, scope)
        if all(c["collection"] != collection for c in found) and down:
            raise ServiceError(  # it may be on the shard that is down: never "not found"
                ErrorType.STORE_UNAVAILABLE,
                f"{'; '.join(down)}: collection {collection!r} is on no other shard and may be "
                "on that one; try again when it answers",
            )
        if all(c["collection"] != collection for c in found):
            raise ServiceError(
                ErrorType.NOT_FOUND,
                f"no collection {collection!r} to delete: tg-list-collections lists them",
            )
        await ask(EXPLAIN.name, {**scope, "operation": "delete-collection"})
        return {}
    fields = {k: body[k] for k in ("name", "description", "tags") if body.get(k) is not None}
    reply = await ask(LIBRARIAN.name, {**scope, **fields, "operation": operation})
    return {"collections": reply.get("collections", [])}


async def _collections(ask: Asker, scope: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The caller's collections (those a limited key may see): described, or holding
    documents, triples or traces; and a line naming each store shard that did not answer
    (its collections are not among them)."""
    allowed = ask.principal.collections
    # A key limited to some collections asks within one of them (it may not name others).
    where = sorted(allowed)[0] if allowed is not None else DEFAULT_COLLECTION
    reply = await ask("librarian", {**scope, "operation": "list-collections", "collection": where})
    stored = await ask(
        EXPLAIN.name, {**scope, "operation": "list-collections", "collection": where}
    )
    described = {c["collection"] for c in reply.get("collections", [])}
    found = [
        {"collection": c, "name": c, "description": "", "tags": []}
        for c in stored.get("collections", [])
        if c not in described
    ]
    everyone = sorted([*reply.get("collections", []), *found], key=lambda c: c["collection"])
    seen = [c for c in everyone if allowed is None or c["collection"] in allowed]
    return seen, [str(line) for line in stored.get("unreachable", [])]


def _strings(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ServiceError(ErrorType.BAD_REQUEST, f"{what} must be a list of strings")
    return value
