"""Lower-layer failures mapped into the ``ServiceError`` the gateway answers with, and the
REST answer that carries one."""

from __future__ import annotations

import logging

from aiohttp import web

from trustgraph_base.errors import BrokerUnavailable, ErrorType, RequestTimeout, ServiceError

log = logging.getLogger("trustgraph_flow.gateway.dispatch")

# TrustGraph's REST clients take any status but 200 as a transport failure and print only
# the code ("Status code 404"); they read a service's refusal from the body of a 200, as
# its gateway sends it. So the REST API answers a refused request 200 with the error body,
# and keeps the status only for a refused token and a body it could not read.
READ_AS_TRANSPORT = frozenset(
    {
        ErrorType.UNAUTHORIZED,
        ErrorType.BAD_FRAME,
        ErrorType.REQUEST_TIMEOUT,
        ErrorType.FRAME_TOO_LARGE,
    }
)


def rest_status(failure: ServiceError) -> int:
    """The status of a REST API answer (see ``READ_AS_TRANSPORT``): 200 unless the token
    was refused or the body could not be read."""
    return failure.status if failure.type in READ_AS_TRANSPORT else 200


def rest_response(failure: ServiceError) -> web.Response:
    """``failure`` as a REST API answer: the error body, with ``rest_status``; a refused
    token's 401 says why in ``WWW-Authenticate`` too (RFC 6750), which a client whose
    WebSocket upgrade was refused can read (it never sees the body)."""
    response = web.json_response(failure.body(), status=rest_status(failure))
    if response.status == 401:
        said = "".join(c if " " <= c <= "~" and c not in '"\\' else "?" for c in failure.message)
        response.headers["WWW-Authenticate"] = (
            f'Bearer error="invalid_token", error_description="{said[:300]}"'
        )
    return response


def status_response(failure: ServiceError) -> web.Response:
    """``failure`` with its own status, for a route whose clients read only the status line
    (``tg-get-document-content`` prints ``404 Client Error: REASON for url: …``): the reason
    phrase is our one-line message (printable ASCII, cut at 200 characters), the body the
    error body."""
    reason = "".join(c if " " <= c <= "~" else "?" for c in str(failure))[:200]
    return web.json_response(failure.body(), status=failure.status, reason=reason)


def as_failure(exc: BaseException) -> ServiceError:
    """Map any failure while forwarding a request to a ``ServiceError``."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, RequestTimeout):
        return ServiceError(ErrorType.TIMEOUT, str(exc))
    if isinstance(exc, BrokerUnavailable):
        return ServiceError(ErrorType.BROKER_UNAVAILABLE, str(exc))
    if type(exc).__name__ == "MessageTooBig":  # pulsar's, raised when the request is sent
        return ServiceError(
            ErrorType.FRAME_TOO_LARGE, "the request is larger than the broker takes (5 MB)"
        )
    log.error("unexpected failure forwarding a request", exc_info=exc)
    return ServiceError(ErrorType.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
