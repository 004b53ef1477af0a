"""One exception hierarchy for the whole system; lower-layer errors are mapped into it.

``TrustGraphError`` is the root. ``ServiceError`` is a request that failed, typed by an
``ErrorType`` (its wire string and the HTTP status a REST answer carries); the gateway
answers with it and the CLI raises it when the gateway answers with an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class ErrorType(StrEnum):
    """Each error type a reply carries on the wire, with its HTTP status.

    The value is the wire string clients read. A type this enum does not name (a
    service of someone else's, e.g. a tool) still reads: ``ErrorType("its-type")`` is a
    member of its own with status 400, a request refused as it stands.
    """

    status: int

    def __new__(cls, wire: str, status: int = 400) -> ErrorType:
        member = str.__new__(cls, wire)
        member._value_ = wire
        member.status = status
        return member

    @classmethod
    def _missing_(cls, value: object) -> ErrorType | None:
        if not isinstance(value, str) or not value:
            return None
        member = str.__new__(cls, value)
        member._name_ = value.upper().replace("-", "_")
        member._value_ = value
        member.status = 400
        return member

    # the request as sent
    BAD_REQUEST = "bad-request", 400
    BAD_FRAME = "bad-frame", 400
    UNAUTHORIZED = "unauthorized", 401
    AUTH_FAILED = "auth-failed", 401
    FORBIDDEN = "forbidden", 403
    UNKNOWN_SERVICE = "unknown-service", 404
    NOT_FOUND = "not-found", 404
    REQUEST_TIMEOUT = "request-timeout", 408
    FRAME_TOO_LARGE = "frame-too-large", 413
    TOO_MANY_REQUESTS = "too-many-requests", 429
    SESSION_EXISTS = "session-exists", 400
    ALREADY_EXISTS = "already-exists", 400
    NOT_READY = "not-ready", 400
    RESULT_TOO_LARGE = "result-too-large", 400
    NO_DATA = "no-data", 400
    # SPARQL
    SPARQL_SYNTAX = "sparql-syntax", 400
    SPARQL_UNSUPPORTED = "sparql-unsupported", 400
    SPARQL_UPDATE_REFUSED = "sparql-update-refused", 400
    SPARQL_SERVICE_REFUSED = "sparql-service-refused", 400
    SPARQL_RESULT = "sparql-result", 400
    SPARQL_ERROR = "sparql-error", 400
    # models
    LLM_ERROR = "llm-error", 400
    LLM_BAD_OUTPUT = "llm-bad-output", 400
    EMBEDDINGS_ERROR = "embeddings-error", 400
    # the system
    INTERNAL_ERROR = "internal-error", 500
    UNAVAILABLE = "unavailable", 503
    EMBEDDINGS_UNAVAILABLE = "embeddings-unavailable", 503
    STORE_UNAVAILABLE = "store-unavailable", 503
    BROKER_UNAVAILABLE = "broker-unavailable", 503
    TIMEOUT = "timeout", 504
    # the CLI's side of the connection
    CONNECTION_CLOSED = "connection-closed", 502


class TrustGraphError(Exception):
    """Base of every error this package raises on purpose."""


class WireError(TrustGraphError, ValueError):
    """A payload that is not valid JSON or does not match its message schema."""


class ServiceError(TrustGraphError):
    """A request failed: ``type`` is machine-readable, ``message`` human.

    A handler raises it to answer with that ``Error``; a requester gets it raised when a
    service answers with one; the gateway answers REST with ``status`` and ``body()``.
    """

    def __init__(self, type: ErrorType, message: str) -> None:
        self.type = ErrorType(type)
        super().__init__(f"{self.type}: {message}")
        self.message = message

    @property
    def status(self) -> int:
        """The HTTP status for REST (the body's ``type`` is what clients should read)."""
        return self.type.status

    def body(self) -> dict[str, Any]:
        """The wire form: ``{"error": {"type", "message"}}``."""
        return {"error": {"type": str(self.type), "message": self.message}}

    @classmethod
    def from_body(cls, error: Mapping[str, Any]) -> ServiceError:
        """The error an answer's ``"error"`` object names (``body()`` read back)."""
        return cls(ErrorType(str(error.get("type") or "error")), str(error.get("message", error)))


class RequestTimeout(TrustGraphError, TimeoutError):
    """No (further) response from a service within the timeout."""


class BrokerUnavailable(TrustGraphError, ConnectionError):
    """The Pulsar broker cannot be reached."""


class MessageTooLarge(ServiceError):
    """A message larger than the broker takes, refused before it is sent: it would fail the
    same way on every retry, so it is not retried (``frame-too-large``)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorType.FRAME_TOO_LARGE, message)
