"""``POST /api/v1/iam``: API key management, for the admin token only.

The operations and field names are the TrustGraph IAM ones that ``tg-create-api-key``,
``tg-list-api-keys`` and ``tg-revoke-api-key`` send:

- ``{"operation": "create-api-key", "key": {"user_id", "name", "expires"?, "collections"?}}``
  → ``{"api_key_plaintext": KEY, "api_key": {id, user_id, name, prefix, created, expires, collections}}``
- ``{"operation": "list-api-keys", "user_id"?}`` → ``{"api_keys": [...]}``
- ``{"operation": "revoke-api-key", "key_id"}`` → ``{"revoked": KEY_ID}``
- ``{"operation": "list-users"}`` → ``{"users": [{id, username, name, roles, enabled}]}``: the
  users the keys act for (a user is whom a key acts for), enabled while one of their keys
  has not expired

and, for any caller, ``{"operation": "whoami"}`` → ``{"user": {id, username, name, roles,
enabled, …}}``: whom the caller's token acts for (``tg-whoami``). There are no accounts: an
API key's user is the user; the admin token is the operator (``admin``), acting for the user
each request names; an open gateway acts for the user each request names (``trustgraph``
unless one is named).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import DEFAULT_USER
from trustgraph_flow.gateway.auth import AUTH, Principal, authenticate
from trustgraph_flow.gateway.body import json_body
from trustgraph_flow.gateway.failure import rest_response
from trustgraph_flow.gateway.keys import ApiKey, KeyRequestError, KeyStore

log = logging.getLogger("trustgraph_flow.gateway")


KEY_OPERATIONS = ("create-api-key", "list-api-keys", "revoke-api-key", "list-users")
NOT_IAM = (
    ": there are no accounts, passwords or workspaces; a user is whom an API key acts for "
    f"(iam offers {', '.join(KEY_OPERATIONS)} and whoami)"
)
# Said in open mode, where an operator most likely runs the official tg-*-api-key commands.
OPEN_MODE = (
    "iam: API keys need auth on, and this gateway is open (started without an admin token): "
    "restart it with one (TG_GATEWAY_TOKEN=SECRET tg-start, or tg-gateway --token SECRET), "
    "then manage keys with that token (TRUSTGRAPH_TOKEN=SECRET)"
)


def _text(value: Any, field: str, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise ServiceError(ErrorType.BAD_REQUEST, f"iam: '{field}' must be a non-empty string")
    return value


def _create(keys: KeyStore, body: dict[str, Any]) -> dict[str, Any]:
    spec = body.get("key")
    if not isinstance(spec, dict):
        raise ServiceError(
            ErrorType.BAD_REQUEST, "iam: create-api-key needs 'key': {user_id, name}"
        )
    user = _text(spec.get("user_id"), "key.user_id")
    name = _text(spec.get("name"), "key.name")
    expires = _text(spec.get("expires"), "key.expires", required=False)
    collections = spec.get("collections")
    if collections is not None and (
        not isinstance(collections, list) or not all(isinstance(c, str) for c in collections)
    ):
        raise ServiceError(ErrorType.BAD_REQUEST, "iam: 'key.collections' must be a list of names")
    assert user is not None and name is not None
    key, plaintext = keys.create(user, name, collections=collections, expires=expires)
    log.info("created API key %s for user %r (%s)", key.id, user, name)
    return {"api_key_plaintext": plaintext, "api_key": key.public()}


def users(keys: KeyStore) -> dict[str, Any]:
    """The users the API keys act for, in the reference's user records."""
    now = datetime.now(UTC)
    held: dict[str, list[ApiKey]] = {}
    for key in keys.list():
        held.setdefault(key.user, []).append(key)
    return {
        "users": [
            {
                "id": user, "username": user, "name": f"{len(own)} API key(s)", "email": "",
                "roles": ["user"], "enabled": any(not k.expired(now) for k in own),
                "must_change_password": False,
            }
            for user, own in sorted(held.items())
        ]
    }  # fmt: skip


def run(keys: KeyStore, body: dict[str, Any]) -> dict[str, Any]:
    """Carry out one IAM operation; ``ServiceError`` naming what is wrong."""
    operation = body.get("operation")
    try:
        if operation == "create-api-key":
            return _create(keys, body)
        if operation == "list-api-keys":
            user = _text(body.get("user_id"), "user_id", required=False)
            return {"api_keys": [k.public() for k in keys.list(user)]}
        if operation == "list-users":
            return users(keys)
        if operation == "revoke-api-key":
            key_id = _text(body.get("key_id"), "key_id")
            assert key_id is not None
            if not keys.revoke(key_id):
                raise ServiceError(ErrorType.NOT_FOUND, f"no API key with id {key_id!r}")
            log.info("revoked API key %s", key_id)
            return {"revoked": key_id}
    except KeyRequestError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"iam: {exc}") from None
    raise ServiceError(ErrorType.BAD_REQUEST, f"iam: {operation!r} is not offered here{NOT_IAM}")


def whoami(principal: Principal) -> dict[str, Any]:
    """The reference's user record of whom ``principal`` acts for."""
    if principal.user is not None:
        user = principal.user
        name, roles = f"user {user!r} (API key {principal.key_id})", ["user"]
    elif principal.admin:
        user, name, roles = "admin", "the operator (admin token): acts for any user", ["admin"]
    else:
        user = DEFAULT_USER
        name, roles = "open gateway: acts for the user each request names", ["open"]
    return {
        "user": {
            "id": user, "username": user, "name": name, "email": "", "workspace": "",
            "roles": roles, "enabled": True, "must_change_password": False, "created": "",
        }
    }  # fmt: skip


async def iam_handler(request: web.Request) -> web.Response:
    try:
        auth = request.app[AUTH]
        body = await json_body(request)
        if isinstance(body, dict) and body.get("operation") == "whoami":
            return web.json_response(whoami(authenticate(request)))
        if auth.on and not authenticate(request).admin:
            raise ServiceError(ErrorType.FORBIDDEN, "managing API keys needs the admin token")
        if not isinstance(body, dict):
            raise ServiceError(ErrorType.BAD_REQUEST, "iam: the body must be a JSON object")
        operation = body.get("operation")
        if operation not in KEY_OPERATIONS:
            raise ServiceError(
                ErrorType.BAD_REQUEST, f"iam: {operation!r} is not offered here{NOT_IAM}"
            )
        if not auth.on:
            raise ServiceError(ErrorType.BAD_REQUEST, OPEN_MODE)
        return web.json_response(await asyncio.to_thread(run, auth.keys, body))
    except ServiceError as failure:
        return rest_response(failure)
