"""Validate gateway requests against their service model and forward them over Pulsar."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel

from trustgraph_base.errors import WireError
from trustgraph_base.messaging import SERVICES, Bus, RequestClient, ServiceSpec, Topics
from trustgraph_base.schema import Response
from trustgraph_base.wire import from_json, to_json
from trustgraph_flow.gateway.auth import Principal, admit
from trustgraph_flow.gateway.failure import STATUS, Failure, as_failure

__all__ = ["STATUS", "Dispatcher", "Failure", "as_failure"]

log = logging.getLogger(__name__)


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
        self, service: Any, request: Any, principal: Principal
    ) -> tuple[ServiceSpec[BaseModel, Response], BaseModel]:
        """The service's spec and its validated request as ``principal`` may send it.

        ``Failure`` naming what is wrong: an unknown service, a request that does not
        validate, or one the principal may not make (``auth.admit``).
        """
        if not isinstance(service, str) or service not in SERVICES:
            known = ", ".join(sorted(SERVICES))
            raise Failure("unknown-service", f"unknown service {service!r} (known: {known})")
        if not isinstance(request, dict):
            raise Failure("bad-request", f"service '{service}': 'request' must be a JSON object")
        spec = SERVICES[service]
        request = admit(principal, service, request)
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
