"""Validate gateway requests against their service model and forward them over Pulsar."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel

from trustgraph_base.errors import BrokerUnavailable, RequestTimeout, ServiceError, WireError
from trustgraph_base.messaging import SERVICES, Bus, RequestClient, ServiceSpec, Topics
from trustgraph_base.schema import Response
from trustgraph_base.wire import from_json, to_json

log = logging.getLogger(__name__)

# HTTP status of each error the gateway itself raises; a service's own errors map below.
STATUS = {
    "bad-frame": 400,
    "bad-request": 400,
    "unauthorized": 401,
    "unknown-service": 404,
    "frame-too-large": 413,
    "too-many-requests": 429,
    "internal-error": 500,
    "broker-unavailable": 503,
    "timeout": 504,
}


class Failure(Exception):
    """A request the gateway answers with ``{"error": {type, message}}``."""

    def __init__(self, type: str, message: str) -> None:
        super().__init__(f"{type}: {message}")
        self.type = type
        self.message = message

    @property
    def status(self) -> int:
        """The HTTP status for REST (the body's ``type`` is what clients should read)."""
        if self.type in STATUS:
            return STATUS[self.type]
        for suffix, status in (("not-found", 404), ("timeout", 504), ("unavailable", 503)):
            if self.type.endswith(suffix):
                return status
        return 400  # a service refused the request as it stands

    def body(self) -> dict[str, Any]:
        return {"error": {"type": self.type, "message": self.message}}


def as_failure(exc: BaseException) -> Failure:
    """Map any failure while forwarding a request to a ``Failure``."""
    if isinstance(exc, Failure):
        return exc
    if isinstance(exc, ServiceError):
        return Failure(exc.type, exc.message)
    if isinstance(exc, RequestTimeout):
        return Failure("timeout", str(exc))
    if isinstance(exc, BrokerUnavailable):
        return Failure("broker-unavailable", str(exc))
    log.error("unexpected failure forwarding a request", exc_info=exc)
    return Failure("internal-error", f"{type(exc).__name__}: {exc}")


class Dispatcher:
    """One request client per service, shared by every socket and REST call."""

    def __init__(self, bus: Bus, topics: Topics, client_name: str, timeout: float) -> None:
        self.timeout = timeout
        self._clients: dict[str, RequestClient[BaseModel, Response]] = {
            name: RequestClient(bus, topics, spec, client_name) for name, spec in SERVICES.items()
        }

    async def start(self) -> None:
        """Subscribe every reply topic now, so the first request does not pay for it."""
        for client in self._clients.values():
            await client.start()

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()

    def parse(
        self, service: Any, request: Any
    ) -> tuple[ServiceSpec[BaseModel, Response], BaseModel]:
        """The service's spec and its validated request; ``Failure`` naming what is wrong."""
        if not isinstance(service, str) or service not in SERVICES:
            known = ", ".join(sorted(SERVICES))
            raise Failure("unknown-service", f"unknown service {service!r} (known: {known})")
        if not isinstance(request, dict):
            raise Failure("bad-request", f"service '{service}': 'request' must be a JSON object")
        spec = SERVICES[service]
        try:
            return spec, from_json(spec.request, request, tolerant=True)
        except WireError as exc:
            raise Failure("bad-request", f"service '{service}': {exc}") from None

    async def stream(
        self, spec: ServiceSpec[BaseModel, Response], request: BaseModel
    ) -> AsyncIterator[tuple[dict[str, Any], bool]]:
        """Forward ``request``; yield each reply's JSON and whether it is the last."""
        client = self._clients[spec.name]
        try:
            async for reply in client.stream(request, timeout=self.timeout):
                yield to_json(reply), reply.end_of_stream
        except Exception as exc:
            raise as_failure(exc) from None
