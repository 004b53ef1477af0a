"""``POST /v1/traces``: OTLP/HTTP spans (protobuf or JSON) written as PROV traces (docs/otel.md).

The caller's API key (``Authorization: Bearer``) decides the user; ``?collection=`` the
collection (default ``default``, checked against the key). The spans are read and checked
(``otel.otlp``), turned into triples (``otel.to_prov``) and published to ``triples-store``,
the path every trace takes; the answer is 200 only once the broker has persisted every
message, so nothing answered is lost if the gateway dies after it. A body that cannot be
taken is refused whole, with one line saying why (400, 415 for a wrong Content-Type).
"""

from __future__ import annotations

import logging

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.body import read_body
from trustgraph_flow.gateway.bulk import PUBLISHER, Publisher
from trustgraph_flow.gateway.dispatch import as_failure
from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.to_prov import Steps, to_prov

log = logging.getLogger("trustgraph_flow.gateway")

STEPS = web.AppKey("otlp_steps", Steps)
MESSAGE_CHARS = 1_500_000  # literal text per published message (the broker takes 5 MB)


def add_otlp(app: web.Application) -> None:
    app[STEPS] = Steps()
    app.router.add_post("/v1/traces", traces_handler)


async def traces_handler(request: web.Request) -> web.Response:
    """Authenticate, read, check, write; 200 once persisted."""
    try:
        principal = authenticate(request)
        scope = principal.scope({"collection": request.query.get("collection") or None})
        content_type = request.content_type
        if content_type not in (otlp.PROTOBUF, otlp.JSON):
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"Content-Type {request.headers.get('Content-Type', '(none)')!r} is not "
                f"OTLP/HTTP: send {otlp.PROTOBUF} or {otlp.JSON}",
            )
        spans = otlp.decode(await read_body(request), content_type)
        publisher = request.app[PUBLISHER]
        assert isinstance(publisher, Publisher)
        meta = {"user": scope.get("user") or "trustgraph", "collection": scope.get("collection")}
        receipts = []
        for uri, triples in to_prov(spans, request.app[STEPS]):
            for part in _parts(triples):
                message = Triples(
                    metadata=Metadata(id=uri, **{k: v for k, v in meta.items() if v}),
                    triples=part,
                )
                receipts.append(publisher.bus.send_now(publisher.topic, message))
        for receipt in receipts:
            await receipt
    except otlp.OtlpError as exc:
        return _refused(400, str(exc), request)
    except web.HTTPRequestEntityTooLarge as exc:
        return _refused(413, exc.text or "request body too large", request)
    except Exception as exc:
        failure = as_failure(exc)
        log.info("OTLP import refused: %s", failure)
        status = {
            ErrorType.UNAUTHORIZED: 401,
            ErrorType.FORBIDDEN: 403,
            ErrorType.BAD_REQUEST: 415 if "Content-Type" in str(failure) else 400,
            ErrorType.REQUEST_TIMEOUT: 408,
            ErrorType.FRAME_TOO_LARGE: 413,
        }.get(failure.type, 503)
        return _refused(status, str(failure), request)
    log.debug("OTLP import: %d spans into %s/%s", len(spans), meta["user"], meta["collection"])
    if content_type == otlp.PROTOBUF:
        return web.Response(body=b"", content_type=otlp.PROTOBUF)  # an empty response message
    return web.json_response({})


def _parts(triples: list[Triple]) -> list[list[Triple]]:
    """``triples`` in messages of at most ``MESSAGE_CHARS`` characters of text."""
    out: list[list[Triple]] = [[]]
    size = 0
    for t in triples:
        weight = len(getattr(t.o, "v", "") or "") + 200
        if size + weight > MESSAGE_CHARS and out[-1]:
            out.append([])
            size = 0
        out[-1].append(t)
        size += weight
    return out


def _refused(status: int, message: str, request: web.Request) -> web.Response:
    """OTLP's error answer: a ``google.rpc.Status``-shaped JSON body with the one line."""
    body = {"code": 3 if status == 400 else 16 if status == 401 else 2, "message": message}
    return web.json_response(body, status=status, reason=_reason(message))


def _reason(message: str) -> str:
    return "".join(ch if " " <= ch <= "~" else "?" for ch in message)[:200]
