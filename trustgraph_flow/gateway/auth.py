"""The gateway's one authentication and authorisation point.

Every way in (REST, the WebSocket, and any page or endpoint added to the gateway) calls:

- ``authenticate(request)`` — who the HTTP request is (``Authorization: Bearer`` or
  ``?token=``), as a ``Principal``; ``ServiceError("unauthorized")`` when auth is on and the
  token is missing or unknown (the holder of a revoked or expired key is told so:
  ``Auth.refused``). ``principal_for(app, token)`` does the same for a token
  read elsewhere (the socket's auth frame).
- ``admit(principal, service, request)`` — the request as it may be forwarded: the
  service and operation must be on the outside allow-list (``edge.py``), processor-only
  fields are dropped, and the user/collection are the principal's (a request naming
  another user, or a collection outside the key's list, is ``ServiceError("forbidden")``).

Modes:

- **open** (no token configured): loopback only, one trust domain; a request's ``user``
  is taken as written (default ``trustgraph``).
- **auth on** (a token configured): that token is the **admin** token — it manages API
  keys (``/api/v1/iam``) and may act for any user named in a request. Every other caller
  needs a per-user API key (``keys.py``); the key fixes the user, and optionally the
  collections, of everything it sends.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import DEFAULT_COLLECTION, Response
from trustgraph_base.schema.knowledge import KNOWLEDGE_LOADS
from trustgraph_flow.gateway.edge import check_operation, named_collections, strip_internal
from trustgraph_flow.gateway.keys import KeyStore
from trustgraph_flow.gateway.viewer import cookie_key


def check_names(request: dict[str, Any]) -> None:
    """``bad-request`` unless the request's ``user`` and ``collection``, when given, are strings."""
    for name in ("user", "collection"):
        if request.get(name) is not None and not isinstance(request[name], str):
            found = type(request[name]).__name__
            raise ServiceError(
                ErrorType.BAD_REQUEST, f"{name}: must be a string (a name), not a {found}"
            )


@dataclass(frozen=True)
class Principal:
    """Who a request comes from and what it may name."""

    user: str | None  # None: may name any user (open gateway, admin token)
    collections: frozenset[str] | None = None  # None: any collection of ``user``
    admin: bool = False
    key_id: str | None = None

    def scope(self, request: dict[str, Any]) -> dict[str, Any]:
        """``request`` with this principal's user and collection; ``forbidden`` if it names others."""
        check_names(request)
        if self.user is None:
            return request
        named = request.get("user")
        if named is not None and named != self.user:
            raise ServiceError(
                ErrorType.FORBIDDEN,
                f"this API key belongs to user {self.user!r}; it cannot act as user {named!r}",
            )
        scoped = {**request, "user": self.user}
        if self.collections is not None:
            collection = request.get("collection")
            if collection is None:
                collection = DEFAULT_COLLECTION
            if collection not in self.collections:
                allowed = ", ".join(sorted(self.collections))
                raise ServiceError(
                    ErrorType.FORBIDDEN,
                    f"this API key may not use collection {collection!r} (allowed: {allowed})",
                )
            scoped["collection"] = collection
        return scoped


OPEN = Principal(user=None)
USER_WIDE = ("config", "flow")  # services acting on the user's own, not a collection


def user_wide(service: str, request: dict[str, Any]) -> bool:
    """Whether the request acts on the user's own, in no collection: configuration, flows,
    and knowledge cores except a load (which writes into the collection it names)."""
    if service == "knowledge":
        return request.get("operation") not in KNOWLEDGE_LOADS
    return service in USER_WIDE


ADMIN = Principal(user=None, admin=True)
REFUSED = "missing, unknown or revoked token (an API key or the admin token)"
NEW_KEY = "ask the gateway's admin for a new one (tg-create-api-key)"


class Auth:
    """The admin token (None: the gateway is open) and the per-user key store."""

    def __init__(self, admin_token: str | None, keys: KeyStore) -> None:
        self.admin_token = admin_token or None
        self.keys = keys

    @property
    def on(self) -> bool:
        return self.admin_token is not None

    def principal(self, token: str | None) -> Principal | None:
        """Who ``token`` is; None when auth is on and it is missing, unknown or expired."""
        if self.admin_token is None:
            return OPEN
        if token is None:
            return None
        if hmac.compare_digest(token.encode(), self.admin_token.encode()):
            return ADMIN
        key = self.keys.verify(token)
        if key is None:
            return None
        collections = frozenset(key.collections) if key.collections is not None else None
        return Principal(user=key.user, collections=collections, key_id=key.id)

    def lapsed(self, token: str | None) -> str | None:
        """To the holder of a revoked or expired key (the whole key proves they hold it), what
        became of it and what to do; None for any other token (no oracle for key ids)."""
        said = self.keys.refusal(token) if token and self.on else None
        return f"{said}; {NEW_KEY}" if said is not None else None

    def refused(self, token: str | None) -> ServiceError:
        """Why ``token`` is refused: ``lapsed``, else the one generic message."""
        return ServiceError(ErrorType.UNAUTHORIZED, self.lapsed(token) or REFUSED)


AUTH = web.AppKey("auth", Auth)


def key_file(data_dir: str, configured: str = "") -> Path:
    """Where the gateway keeps API keys: the setting, else ``<data_dir>/gateway/api-keys.json``."""
    return Path(configured) if configured else Path(data_dir) / "gateway" / "api-keys.json"


def offered_token(request: web.Request, *, cookie: bool = True) -> str | None:
    """The token an HTTP request carries: ``Authorization: Bearer T``, else ``?token=T``,
    else (with ``cookie``) the web viewer's sign-in cookie (``viewer.cookie_key``)."""
    header = request.headers.get("Authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip()
    if "token" in request.query:
        return request.query["token"]
    return cookie_key(request) if cookie else None


def principal_for(app: web.Application, token: str | None) -> Principal | None:
    """Who ``token`` is on this gateway (None: refused)."""
    return app[AUTH].principal(token)


def accepts(app: web.Application, key: str | None) -> bool:
    """Whether ``key`` signs in to this gateway (the viewer's check): always when auth is off."""
    return principal_for(app, key) is not None


def lapsed(app: web.Application, key: str) -> str | None:
    """What became of ``key`` if it was revoked or has expired (the viewer's sign-in says so)."""
    return app[AUTH].lapsed(key)


def identity(app: web.Application, key: str | None) -> dict[str, object] | None:
    """What the viewer shows of who ``key`` is (from the same check): user, collections, admin."""
    principal = principal_for(app, key)
    if principal is None:
        return None
    collections = sorted(principal.collections) if principal.collections is not None else None
    return {"user": principal.user, "collections": collections, "admin": principal.admin}


def authenticate(request: web.Request) -> Principal:
    """Who this HTTP request is; ``ServiceError("unauthorized")`` if auth is on and it has no valid token."""
    token = offered_token(request)
    principal = principal_for(request.app, token)
    if principal is None:
        raise request.app[AUTH].refused(token)
    return principal


def lists_collections(principal: Principal, request: object) -> bool:
    """Whether ``request`` lists the user's collections for a key limited to some of them:
    its reply must pass ``only_visible`` (so it is read, not only forwarded)."""
    return principal.collections is not None and (
        getattr(request, "operation", None) == "list-collections"
    )


def only_visible(principal: Principal, reply: Response) -> Response:
    """A ``list-collections`` reply (explain's names, the librarian's descriptions) as a key
    limited to some collections may read it: those only, as collection management lists."""
    allowed, listed = principal.collections, getattr(reply, "collections", None)
    if allowed is None or not listed:
        return reply
    kept = [c for c in listed if (c if isinstance(c, str) else c.collection) in allowed]
    return reply.model_copy(update={"collections": kept})


def admit(principal: Principal, service: str, request: dict[str, Any]) -> dict[str, Any]:
    """The outside request as it may be forwarded (see the module docstring)."""
    check_operation(service, request)
    check_names(request)  # before a user-wide service's collection is replaced below
    if user_wide(service, request) and principal.collections is not None:
        # The user's own, in no collection: a key limited to some collections may use it.
        request = {**request, "collection": sorted(principal.collections)[0]}
    for collection in named_collections(service, request):
        principal.scope({"collection": collection})
    return principal.scope(strip_internal(service, request, operator=principal.user is None))
