"""Validate gateway requests against their service model and forward them over Pulsar."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web
from pydantic import BaseModel

from trustgraph_base.errors import ErrorType, ServiceError, WireError
from trustgraph_base.messaging import (
    SERVICES,
    TRIPLES_QUERY,
    Bus,
    RequestClient,
    ServiceSpec,
    Topics,
)
from trustgraph_base.provenance import GRAPH_RETRIEVAL, uris
from trustgraph_base.rdf.terms import IriTerm
from trustgraph_base.schema import Response, TriplesQueryRequest, TriplesQueryResponse
from trustgraph_base.wire import from_json, to_json
from trustgraph_flow.gateway.auth import Principal, admit
from trustgraph_flow.gateway.failure import as_failure

__all__ = ["DISPATCHER", "Dispatcher", "as_failure"]

log = logging.getLogger(__name__)


_TRACE_URI = {
    "agent": uris.agent_session_uri,
    "graph-rag": uris.graph_rag_question_uri,
    "document-rag": uris.docrag_question_uri,
}


def trace_uri(service: str, session_id: str) -> str | None:
    """The trace a chosen session id names (None: none chosen, or not a traced service)."""
    make = _TRACE_URI.get(service)
    if make is None or not session_id:
        return None
    try:
        return make(session_id)
    except ValueError:
        return None  # the service answers bad-request itself


class Dispatcher:
    """One request client per service, shared by every socket and REST call."""

    def __init__(self, bus: Bus, topics: Topics, client_name: str, timeout: float) -> None:
        self.bus = bus
        self.timeout = timeout
        self._running: set[tuple[str, str, str]] = set()  # chosen traces being run now
        self._clients: dict[str, RequestClient[BaseModel, Response]] = {
            name: RequestClient(bus, topics, spec, client_name, keep_wire=True)
            for name, spec in SERVICES.items()
        }

    async def start(self) -> None:
        """Subscribe every reply topic now, so the first request does not pay for it."""
        for client in self._clients.values():
            await client.start()

    async def close(self) -> None:
        # Together: each close is bounded, but one after another they would add up when
        # the broker is gone.
        await asyncio.gather(*(c.close() for c in self._clients.values()))

    def abandon(self, message: str) -> None:
        """Answer every request still waiting for its service with ``unavailable``."""
        for client in self._clients.values():
            client.abandon(ErrorType.UNAVAILABLE, message)

    def parse(
        self, service: Any, request: Any, principal: Principal
    ) -> tuple[ServiceSpec[BaseModel, Response], BaseModel]:
        """The service's spec and its validated request as ``principal`` may send it.

        ``ServiceError`` naming what is wrong: an unknown service, a request that does not
        validate, or one the principal may not make (``auth.admit``).
        """
        if not isinstance(service, str) or service not in SERVICES:
            known = ", ".join(sorted(SERVICES))
            raise ServiceError(
                ErrorType.UNKNOWN_SERVICE, f"unknown service {service!r} (known: {known})"
            )
        if not isinstance(request, dict):
            raise ServiceError(
                ErrorType.BAD_REQUEST, f"service '{service}': 'request' must be a JSON object"
            )
        spec = SERVICES[service]
        request = admit(principal, service, request)
        try:
            return spec, from_json(spec.request, request, tolerant=True)
        except WireError as exc:
            raise ServiceError(ErrorType.BAD_REQUEST, f"service '{service}': {exc}") from None

    async def refuse_reused_session(
        self, spec: ServiceSpec[BaseModel, Response], request: BaseModel
    ) -> tuple[str, str, str] | None:
        """A chosen ``session_id`` whose trace exists, or is being run through this gateway
        now, is ``session-exists`` (D7); otherwise the claim to release when the run ends.

        Only the operator can choose one (``edge.py`` drops it for API-key users); a run
        under an existing id would merge into that trace. (Two gateway processes given
        the same new id at the same instant are not told apart.)
        """
        uri = trace_uri(spec.name, getattr(request, "session_id", ""))
        if uri is None:
            return None
        claim = (request.user, request.collection, uri)  # type: ignore[attr-defined]
        if claim in self._running:
            raise ServiceError(
                ErrorType.SESSION_EXISTS,
                f"session_id {uri!r} is being run now: leave it empty for a new one",
            )
        self._running.add(claim)
        try:
            await self._refuse_stored(uri, request)
        except BaseException:
            self._running.discard(claim)
            raise
        return claim

    async def _refuse_stored(self, uri: str, request: BaseModel) -> None:
        probe = TriplesQueryRequest(
            s=IriTerm(i=uri),
            g=GRAPH_RETRIEVAL,
            limit=1,
            user=request.user,  # type: ignore[attr-defined]
            collection=request.collection,  # type: ignore[attr-defined]
        )
        found = await self._clients[TRIPLES_QUERY.name].request(probe, timeout=self.timeout)
        if isinstance(found, TriplesQueryResponse) and found.triples:
            raise ServiceError(
                ErrorType.SESSION_EXISTS,
                f"session_id {getattr(request, 'session_id', '')!r} is already a trace ({uri}): "
                "leave it empty for a new one",
            )

    async def call(self, spec: ServiceSpec[BaseModel, Response], request: BaseModel) -> Response:
        """The gateway's own request to a service (built by the gateway, not an outside
        request: no allow-list); its reply, or ``ServiceError``."""
        try:
            return await self._clients[spec.name].request(request, timeout=self.timeout)
        except Exception as exc:
            raise as_failure(exc) from None

    async def stream(
        self, spec: ServiceSpec[BaseModel, Response], request: BaseModel
    ) -> AsyncIterator[tuple[dict[str, Any], bool]]:
        """Forward ``request``; yield each reply's JSON and whether it is the last."""
        async for reply in self.replies(spec, request):
            yield to_json(reply), reply.end_of_stream

    async def replies(
        self, spec: ServiceSpec[BaseModel, Response], request: BaseModel, *, forward: bool = False
    ) -> AsyncIterator[Response]:
        """Forward ``request``; yield each reply (``stream``, before it becomes JSON).
        ``forward``: the caller only writes the replies on (``RequestClient.stream``)."""
        client = self._clients[spec.name]
        claim = None
        try:
            claim = await self.refuse_reused_session(spec, request)
            async for reply in client.stream(request, timeout=self.timeout, forward=forward):
                yield reply
        except Exception as exc:
            raise as_failure(exc) from None
        finally:
            if claim is not None:
                self._running.discard(claim)


# Here, not in server.py: that module also runs as ``__main__`` (python -m), where a key
# defined in it would be a second key that the handlers importing it never find.
DISPATCHER = web.AppKey("dispatcher", Dispatcher)
