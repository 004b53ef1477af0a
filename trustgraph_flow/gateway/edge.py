"""What the outside may call through the gateway: an allow-list per service (for the explain
service and the librarian, the `*ClientOperation` literals their request models are made of).

Processors reach every operation over Pulsar; clients reach only these. Operations a
processor calls on another (the librarian's ``put-content``, vector writes, the store's
``delete-document`` that the librarian calls on ``remove-document``) are refused with
``forbidden``, and the fields the services set for each other are dropped: ``parent_uri``
(a sub-trace's caller) always, so nobody can graft a run onto another trace; a chosen
``session_id`` or ``started_at`` for every API-key user, so such a run gets a fresh trace
id and the current time. Only the operator (open gateway, admin token) may fix those two,
for replays and tests; the services still refuse a session id that is already a trace
and a time that is not a sane ``xsd:dateTime``.
"""

from __future__ import annotations

from typing import Any, get_args

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import SERVICES
from trustgraph_base.schema.documents import LibrarianClientOperation
from trustgraph_base.schema.explain import ExplainClientOperation

# service → the operations a client may ask for (None: the service has no operations).
ALLOWED: dict[str, frozenset[str] | None] = {
    "agent": None,
    "graph-rag": None,
    "document-rag": None,
    "text-completion": None,
    "embeddings": None,
    "triples": None,
    "sparql": None,
    "vectors": frozenset({"query"}),
    "explain": frozenset(get_args(ExplainClientOperation)),
    "librarian": frozenset(get_args(LibrarianClientOperation)),
    "config": None,  # every operation acts on the caller's own configuration
    "flow": None,
    "knowledge": None,
    "prompt": None,  # the caller's own prompts, filled and sent to the LLM
    "reranker": None,  # every operation acts on the caller's own cores (a load: in a collection)
}

# service → request fields only processors set for each other (dropped for everyone) …
INTERNAL_FIELDS: dict[str, tuple[str, ...]] = {
    "graph-rag": ("parent_uri",),
    "document-rag": ("parent_uri",),
}
# … and those only the operator may also set (dropped for API-key users).
OPERATOR_FIELDS: dict[str, tuple[str, ...]] = {
    "agent": ("session_id", "started_at"),
    "graph-rag": ("session_id", "started_at"),
    "document-rag": ("session_id", "started_at"),
}


# The reference's operations on services that have none here, refused with why (without
# this the request fails validation on a field it never meant to send). None at present.
NOT_OFFERED: dict[tuple[str, str], str] = {}


def check_operation(service: str, request: dict[str, Any]) -> None:
    """``forbidden`` unless the outside may call this service (and its ``operation``);
    ``bad-request`` for an operation of the reference's that is not offered here."""
    if service not in ALLOWED:
        return  # unknown services are answered by the dispatcher (unknown-service)
    allowed = ALLOWED[service]
    operation = request.get("operation")
    if isinstance(operation, str) and (service, operation) in NOT_OFFERED:
        why = NOT_OFFERED[service, operation]
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"service '{service}': operation {operation!r}: {why}"
        )
    if allowed is None:
        return
    if (
        isinstance(operation, str)
        and operation not in allowed
        and operation in _operations(service)
    ):
        raise ServiceError(
            ErrorType.FORBIDDEN,
            f"service '{service}': operation {operation!r} is internal "
            f"(clients may use: {', '.join(sorted(allowed))})",
        )


def _operations(service: str) -> tuple[str, ...]:
    """Every operation the service's request model knows (an unknown one fails validation)."""
    field = SERVICES[service].request.model_fields.get("operation")
    return get_args(field.annotation) if field is not None else ()


def named_collections(service: str, request: dict[str, Any]) -> list[Any]:
    """Collections a request names besides its own ``collection`` (a processing record's
    target), which the caller must be allowed to use too."""
    if service != "librarian":
        return []
    record = request.get("processing-metadata", request.get("processing_metadata"))
    if isinstance(record, dict) and "collection" in record:
        return [record["collection"]]
    return []


def strip_internal(service: str, request: dict[str, Any], *, operator: bool) -> dict[str, Any]:
    """``request`` without the fields processors set for each other (see the module docstring)."""
    fields = INTERNAL_FIELDS.get(service, ())
    if not operator:
        fields += OPERATOR_FIELDS.get(service, ())
    if not any(f in request for f in fields):
        return request
    return {k: v for k, v in request.items() if k not in fields}
