"""The errors the gateway answers with, and their HTTP status."""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from trustgraph_base.errors import BrokerUnavailable, RequestTimeout, ServiceError

log = logging.getLogger("trustgraph_flow.gateway.dispatch")

# HTTP status of each error the gateway itself raises; a service's own errors map below.
STATUS = {
    "bad-frame": 400,
    "bad-request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "unknown-service": 404,
    "frame-too-large": 413,
    "request-timeout": 408,
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

    @property
    def rest_status(self) -> int:
        """The status of a REST API answer (see ``READ_AS_TRANSPORT``): 200 unless the
        token was refused or the body could not be read."""
        return self.status if self.type in READ_AS_TRANSPORT else 200

    def body(self) -> dict[str, Any]:
        return {"error": {"type": self.type, "message": self.message}}

    def rest(self) -> web.Response:
        """This failure as a REST API answer: the error body, with ``rest_status``."""
        return web.json_response(self.body(), status=self.rest_status)


# TrustGraph's REST clients take any status but 200 as a transport failure and print only
# the code ("Status code 404"); they read a service's refusal from the body of a 200. So the
# REST API answers a refused request 200 with the error body, and keeps the status only for
# a refused token and a body it could not read.
READ_AS_TRANSPORT = frozenset({"unauthorized", "bad-frame", "request-timeout", "frame-too-large"})


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
    if type(exc).__name__ == "MessageTooBig":  # pulsar's, raised when the request is sent
        return Failure("frame-too-large", "the request is larger than the broker takes (5 MB)")
    log.error("unexpected failure forwarding a request", exc_info=exc)
    return Failure("internal-error", f"{type(exc).__name__}: {exc}")
