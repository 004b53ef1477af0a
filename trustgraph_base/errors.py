"""One exception hierarchy for the whole system; lower-layer errors are mapped into it."""

from __future__ import annotations


class TrustGraphError(Exception):
    """Base of every error this package raises on purpose."""


class WireError(TrustGraphError, ValueError):
    """A payload that is not valid JSON or does not match its message schema."""


class ServiceError(TrustGraphError):
    """A request failed: ``type`` is machine-readable, ``message`` human.

    A handler raises it to answer with that ``Error``; a requester gets it raised when a
    service answers with one.
    """

    def __init__(self, type: str, message: str) -> None:
        super().__init__(f"{type}: {message}")
        self.type = type
        self.message = message


class RequestTimeout(TrustGraphError, TimeoutError):
    """No (further) response from a service within the timeout."""


class BrokerUnavailable(TrustGraphError, ConnectionError):
    """The Pulsar broker cannot be reached."""
