"""One WebSocket connection: multiplexed requests, streamed replies, limits, auth by frame."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web
from pydantic import BaseModel

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.wire import encode
from trustgraph_flow.gateway import by_user, collections, embeddings_query
from trustgraph_flow.gateway.auth import Principal
from trustgraph_flow.gateway.dispatch import Dispatcher, as_failure
from trustgraph_flow.gateway.revocation import REVOKED, OpenSockets, end

log = logging.getLogger(__name__)


def reply_frame(rid: Any, reply: BaseModel) -> str:
    """The frame of one reply, ``{"id", "response", "complete"}``: the reply's wire form
    (``encode``: the bytes it came in, kept by the request client, else pydantic's one
    pass; a 4 MB trace piece went model → dict → ``json.dumps``, ~0.3 s of the gateway's
    CPU per 20,000-step trace), the same JSON as ``to_json`` gives."""
    body = encode(reply).decode()
    last = "true" if getattr(reply, "end_of_stream", True) else "false"
    return f'{{"id": {json.dumps(rid)}, "response": {body}, "complete": {last}}}'


@dataclass(frozen=True)
class Limits:
    """Per-socket limits; each exceeded answers a structured error and keeps the socket up."""

    max_frame_bytes: int
    max_outstanding: int


class SocketSession:
    """Reads request frames, runs each as its own task, writes its reply frames."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        dispatcher: Dispatcher,
        limits: Limits,
        sockets: OpenSockets,
        principal: Principal | None,
    ) -> None:
        self.ws = ws
        self.dispatcher = dispatcher
        self.limits = limits
        self.sockets = sockets
        self.principal = principal  # None until an auth frame names a valid token
        self.tasks: set[asyncio.Task[None]] = set()
        self._send_lock = asyncio.Lock()

    async def run(self) -> None:
        """Serve frames until the client closes; then cancel what is still running."""
        try:
            async for msg in self.ws:
                if msg.type == WSMsgType.TEXT:
                    await self.on_frame(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    await self.on_frame(msg.data)
                elif msg.type == WSMsgType.ERROR:
                    log.info("socket error: %s", self.ws.exception())
        finally:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.send_text(json.dumps(frame))

    async def send_text(self, text: str) -> None:
        async with self._send_lock:
            if self.ws.closed:
                return
            with contextlib.suppress(ConnectionError):
                await self.ws.send_str(text)

    async def fail(self, rid: Any, failure: ServiceError, **extra: Any) -> None:
        await self.send({"id": rid, **extra, **failure.body(), "complete": True})

    async def on_frame(self, data: str | bytes) -> None:
        """Check one frame's size, JSON and auth, then start it as a request."""
        size = len(data) if isinstance(data, bytes) else len(data.encode())
        error: str | None
        try:
            frame = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            frame, error = None, f"malformed JSON: {exc}"
        except RecursionError:
            frame, error = None, "malformed JSON: nested too deeply"
        else:
            error = None if isinstance(frame, dict) else "a frame must be a JSON object"
        rid = frame.get("id") if isinstance(frame, dict) else None
        if size > self.limits.max_frame_bytes:
            limit = self.limits.max_frame_bytes
            msg = f"frame of {size} bytes exceeds the limit of {limit} bytes"
            await self.fail(rid, ServiceError(ErrorType.FRAME_TOO_LARGE, msg))
            return
        if error is not None:
            await self.fail(rid, ServiceError(ErrorType.BAD_FRAME, error))
            return
        assert isinstance(frame, dict)
        if frame.get("type") == "auth":
            await self.on_auth(frame.get("token"))
            return
        if self.principal is None:
            msg = "this gateway needs a token: send {'type':'auth','token':…} first or use ?token="
            await self.fail(rid, ServiceError(ErrorType.UNAUTHORIZED, msg), type="auth-failed")
            return
        if not self.sockets.live(self.principal):  # revoked since the last sweep
            await self.fail(rid, ServiceError(ErrorType.UNAUTHORIZED, REVOKED))
            await end(self.ws, REVOKED)
            return
        await self.start_request(frame)

    async def on_auth(self, given: Any) -> None:
        token = given if isinstance(given, str) else None
        self.principal = self.sockets.auth.principal(token)
        self.sockets.bind(self.ws, self.principal)
        if self.principal is not None:
            await self.send({"type": "auth-ok"})
        else:  # the reason as a string, as the reference gateway sends it and its client prints
            await self.send(
                {"type": "auth-failed", "error": self.sockets.auth.refused(token).message}
            )

    async def start_request(self, frame: dict[str, Any]) -> None:
        rid = frame.get("id")
        if not isinstance(rid, str | int) or isinstance(rid, bool) or rid == "":
            await self.fail(
                rid, ServiceError(ErrorType.BAD_FRAME, "a request frame needs an 'id' (string)")
            )
            return
        service = frame.get("service")
        work: Coroutine[Any, Any, None]
        if service == collections.SERVICE:  # REST's, and the reference's socket service too
            work = self.manage(rid, frame.get("request"))
        else:
            try:
                assert self.principal is not None
                target, asked = embeddings_query.translate(service, frame.get("request"))
                spec, request = self.dispatcher.parse(target, asked, self.principal)
            except Exception as exc:  # a bug in a check answers this request, never the socket
                await self.fail(rid, as_failure(exc))
                return
            work = self.forward(rid, spec, request, service)
        if len(self.tasks) >= self.limits.max_outstanding:
            work.close()
            msg = f"more than {self.limits.max_outstanding} requests outstanding on this socket"
            await self.fail(rid, ServiceError(ErrorType.TOO_MANY_REQUESTS, msg))
            return
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def forward(self, rid: Any, spec: Any, request: Any, service: Any = None) -> None:
        """Stream one request's replies back as frames (``service``: as the client named it,
        when the gateway answers it in a shape of its own, ``embeddings_query``)."""
        shaped = service in embeddings_query.KINDS
        try:
            assert self.principal is not None
            replies = by_user.replies(
                self.dispatcher, spec, request, self.principal, forward=not shaped
            )
            async for reply in replies:
                shown = embeddings_query.answer(service, reply) if shaped else reply
                await self.send_text(reply_frame(rid, shown))
        except Exception as exc:
            failure = as_failure(exc)
            log.info("request %r to %s failed: %s", rid, spec.name, failure)
            await self.fail(rid, failure)

    async def manage(self, rid: Any, request: Any) -> None:
        """One collection-management operation (``collections.answer``), as one reply frame."""
        try:
            assert self.principal is not None
            if not isinstance(request, dict):
                msg = f"{collections.SERVICE}: 'request' must be a JSON object"
                raise ServiceError(ErrorType.BAD_REQUEST, msg)
            asker = collections.Asker(self.dispatcher, self.principal)
            reply = await collections.answer(asker, request)
            await self.send({"id": rid, "response": reply, "complete": True})
        except Exception as exc:
            failure = as_failure(exc)
            log.info("request %r to %s failed: %s", rid, collections.SERVICE, failure)
            await self.fail(rid, failure)
