"""``POST /v1/traces``: OTLP/HTTP spans (protobuf or JSON) written as PROV traces (docs/otel.md).

The caller's API key (``Authorization: Bearer``) decides the user; ``?collection=`` the
collection (default ``default``, checked against the key). The spans are read and checked
(``otel.otlp``), turned into triples (``otel.to_prov.trace_rows``) and published to ``explain-store``,
the path every trace takes: a request's traces packed together as N-Quads text in a few
large messages (``packed``), not one message per trace — the broker persists fewer, the
store writes larger batches (its trace index and signing still take each trace as its own;
nothing there reads a message's id). Reading, mapping and packing run in a worker thread
(``THREADS`` requests at once), not on the event loop: a request of 20,000 spans maps for
seconds, and every other caller of the gateway would wait that long; its messages are
handed to the broker from the loop as each is made. The answer is 200 only once the broker
has persisted every message, so nothing answered is lost if the gateway dies after it. A
body that cannot be taken is refused whole, with one line saying why (400, 415 for a wrong
Content-Type).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web
from google.rpc.status_pb2 import Status

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging.limits import MAX_MESSAGE_BYTES
from trustgraph_base.rdf.nquads import nquads_text
from trustgraph_base.rdf.rows import Stated
from trustgraph_base.schema import Metadata
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.wire import encode
from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.body import read_body
from trustgraph_flow.gateway.bulk import PUBLISHER, Publisher
from trustgraph_flow.gateway.dispatch import as_failure
from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.steps import Steps
from trustgraph_flow.otel.to_prov import trace_rows

log = logging.getLogger("trustgraph_flow.gateway")

STEPS = web.AppKey("otlp_steps", Steps)
MAPPERS = web.AppKey("otlp_mappers", ThreadPoolExecutor)
MESSAGE_CHARS = 250_000  # N-Quads text per published message (the broker takes 5 MB)
THREADS = 2  # requests mapped at once; more wait their turn (the GIL shares one core anyway)


def add_otlp(app: web.Application) -> None:
    app[STEPS] = Steps()
    app[MAPPERS] = ThreadPoolExecutor(THREADS, thread_name_prefix="otlp-map")

    async def stop(app: web.Application) -> None:
        app[MAPPERS].shutdown(wait=False, cancel_futures=True)

    app.on_cleanup.append(stop)
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
        body = await read_body(request)
        publisher = request.app[PUBLISHER]
        assert isinstance(publisher, Publisher)
        meta = {"user": scope.get("user") or "trustgraph", "collection": scope.get("collection")}
        loop = asyncio.get_running_loop()
        parts: asyncio.Queue[bytes | None] = asyncio.Queue()

        def mapping() -> int:
            """In a worker thread: the body's spans as store messages, each handed to the
            loop as it is made; how many spans."""
            try:
                spans = otlp.decode(body, content_type)
                for uri, text in packed(trace_rows(spans, request.app[STEPS])):
                    metadata = Metadata(id=uri, **{k: v for k, v in meta.items() if v})
                    for payload in wire(metadata, text):
                        loop.call_soon_threadsafe(parts.put_nowait, payload)
                return len(spans)
            finally:
                loop.call_soon_threadsafe(parts.put_nowait, None)

        mapped = loop.run_in_executor(request.app[MAPPERS], mapping)
        receipts = []
        while (payload := await parts.get()) is not None:
            receipts.append(publisher.bus.send_now(publisher.traces, payload))
        spans = await mapped
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
    log.debug("OTLP import: %d spans into %s/%s", spans, meta["user"], meta["collection"])
    if content_type == otlp.PROTOBUF:
        return web.Response(body=b"", content_type=otlp.PROTOBUF)  # an empty response message
    return web.json_response({})


def packed(traces: Iterable[tuple[str, Sequence[Stated]]]) -> Iterator[tuple[str, str]]:
    """The traces' triples as N-Quads text, together in parts of at most ``MESSAGE_CHARS``
    characters (a line, one triple, is never split), each named by the first trace it
    holds. Each trace becomes text at once, so its triples' objects die young (held for a
    whole message they cost the cyclic collector more than building them)."""
    uri, size = "", 0
    part: list[str] = []
    for trace, triples in traces:
        text = nquads_text(triples)
        for piece in [text] if len(text) <= MESSAGE_CHARS else _lines(text):
            if size + len(piece) > MESSAGE_CHARS and part:
                yield uri, "".join(part)
                uri, size, part = "", 0, []
            uri = uri or trace
            part.append(piece)
            size += len(piece)
    if part:
        yield uri, "".join(part)


def _lines(text: str) -> Iterator[str]:
    """``text`` in pieces of whole lines, each under ``MESSAGE_CHARS`` (a line is far less)."""
    piece: list[str] = []
    size = 0
    for line in text.splitlines(keepends=True):
        if size + len(line) > MESSAGE_CHARS and piece:
            yield "".join(piece)
            piece, size = [], 0
        piece.append(line)
        size += len(line)
    if piece:
        yield "".join(piece)


def wire(metadata: Metadata, text: str) -> Iterator[bytes]:
    """The store topic's message of ``text`` (``Triples``' wire form: metadata and N-Quads),
    halved by lines until each is under the broker's limit (escapes can grow the text)."""
    payload = encode(StoreTriples.model_construct(metadata=metadata, nquads=text))
    lines = [] if len(payload) <= MAX_MESSAGE_BYTES else text.splitlines(keepends=True)
    if len(lines) < 2:
        yield payload  # a lone line too big is refused by ``send_now`` (MessageTooLarge)
        return
    half = len(lines) // 2
    yield from wire(metadata, "".join(lines[:half]))
    yield from wire(metadata, "".join(lines[half:]))


# google.rpc.Code of each status the import answers (OTLP/HTTP: the error body is a Status).
_RPC_CODES = {400: 3, 401: 16, 403: 7, 408: 4, 413: 8, 415: 3, 503: 14}  # else UNKNOWN (2)


def _refused(status: int, message: str, request: web.Request) -> web.Response:
    """OTLP's error answer: a ``google.rpc.Status`` with the one line, in the request's
    encoding (protobuf for protobuf, else JSON), its code the status's gRPC counterpart."""
    code = _RPC_CODES.get(status, 2)
    reason = _reason(message)
    if request.content_type == otlp.PROTOBUF:
        body = Status(code=code, message=message).SerializeToString()
        return web.Response(body=body, status=status, reason=reason, content_type=otlp.PROTOBUF)
    return web.json_response({"code": code, "message": message}, status=status, reason=reason)


def _reason(message: str) -> str:
    return "".join(ch if " " <= ch <= "~" else "?" for ch in message)[:200]
