"""The one gateway client: WebSocket streaming and REST, as every command uses it."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urljoin

import aiohttp
import click

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_cli.errors import AuthError, NotAGateway
from trustgraph_cli.options import Gateway

DEFAULT_TIMEOUT = 600.0
# A gateway that answered this command before and now refuses is likely being restarted
# (tg-start's launcher brings a crashed one back within about a second): wait this long.
RETRY_SECONDS = 5.0
RETRY_PAUSE = 0.2
# Asked again after a reset, which may come after the gateway acted: reads only. A repeated
# add-document or upload-chunk is refused by the librarian (already exists, wrong chunk-index).
REPEATABLE = frozenset({"get-document", "get-document-metadata", "list-documents"})
T = TypeVar("T")


class GatewayClient:
    """``async with GatewayClient(gw) as c: async for r in c.stream("agent", {...}): ...``

    ``user`` and ``collection``, when given on the command line, are added to every
    request that does not set them (otherwise the gateway's defaults apply: the API
    key's user, else ``trustgraph``; collection ``default``).
    """

    def __init__(
        self, gw: Gateway, *, timeout: float = DEFAULT_TIMEOUT, note_level: int = 1
    ) -> None:
        self.gw = gw
        self.note_level = note_level  # how many -v it takes to show each request
        self.base = gw.url if gw.url.endswith("/") else gw.url + "/"
        self.timeout = timeout
        self._session: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._ids = itertools.count(1)
        # One reader routes frames by id, so several streams can share the socket.
        self._reader: asyncio.Task[None] | None = None
        self._queues: dict[str, asyncio.Queue[dict[str, Any] | BaseException]] = {}
        self._reached = False  # whether the gateway has answered this client yet

    async def __aenter__(self) -> GatewayClient:
        headers = {"Authorization": f"Bearer {self.gw.token}"} if self.gw.token else {}
        self._session = aiohttp.ClientSession(
            headers=headers, timeout=aiohttp.ClientTimeout(total=None, sock_connect=10)
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._ws is not None:
            await self._ws.close()
        if self._session is not None:
            await self._session.close()

    def note(self, text: str) -> None:
        """One ``-v/--verbose`` line on stderr (nothing otherwise)."""
        if self.gw.verbose >= self.note_level:
            click.echo(f"gateway: {text}", err=True)

    @property
    def session(self) -> aiohttp.ClientSession:
        assert self._session is not None, "use 'async with GatewayClient(...)'"
        return self._session

    def scoped(self, request: dict[str, Any]) -> dict[str, Any]:
        given = {"user": self.gw.user, "collection": self.gw.collection}
        sent = {k: v for k, v in given.items() if k in self.gw.named and v is not None}
        return {**sent, **request}

    async def _socket(self) -> aiohttp.ClientWebSocketResponse:
        if self._ws is None or self._ws.closed or self._reader is None or self._reader.done():
            url = urljoin(self.base, "api/v1/socket")
            if url.startswith("http"):
                url = "ws" + url[4:]
            params = {"token": self.gw.token} if self.gw.token else None
            if self._ws is not None and not self._ws.closed:
                await self._ws.close()
            self.note(f"connecting to {url}")

            def connect() -> Awaitable[aiohttp.ClientWebSocketResponse]:
                return self.session.ws_connect(url, params=params, max_msg_size=64 * 2**20)

            try:  # a refused connect sent nothing: waited on as a refused POST is
                self._ws = await self._again(connect, None)
            except aiohttp.WSServerHandshakeError as exc:
                if exc.status in (401, 403):
                    sent = bool(self.gw.token)
                    raise AuthError.from_answer(exc.status, exc.headers, token_sent=sent) from None
                if exc.status == 404:
                    raise NotAGateway(url, exc.status) from None
                raise
            self._reached = True
            self._reader = asyncio.create_task(self._read(self._ws))
        return self._ws

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        """Hand each frame to the stream waiting for its id; fail them all when the socket ends."""
        try:
            while True:
                msg = await ws.receive()
                if msg.type != aiohttp.WSMsgType.TEXT:
                    raise ServiceError(
                        ErrorType.CONNECTION_CLOSED,
                        f"the gateway closed the connection ({msg.type.name})",
                    )
                data = json.loads(msg.data)
                rid = data.get("id")
                if data.get("type") == "auth-failed":
                    waiting = [self._queues[rid]] if rid in self._queues else self._queues.values()
                    for queue in list(waiting):
                        queue.put_nowait(AuthError("auth-failed", token_sent=bool(self.gw.token)))
                elif rid in self._queues:
                    self._queues[rid].put_nowait(data)
        except Exception as exc:
            for queue in self._queues.values():
                queue.put_nowait(exc)

    async def stream(
        self, service: str, request: dict[str, Any], *, flow: str = "default"
    ) -> AsyncIterator[dict[str, Any]]:
        """Send one request over the WebSocket; yield each response until ``complete``."""
        ws = await self._socket()
        rid = str(next(self._ids))
        queue: asyncio.Queue[dict[str, Any] | BaseException] = asyncio.Queue()
        self._queues[rid] = queue
        try:
            self.note(f"request {rid}: {service} (flow {flow})")
            frame = {"id": rid, "service": service, "flow": flow, "request": self.scoped(request)}
            await ws.send_str(json.dumps(frame))
            while True:
                data = await asyncio.wait_for(queue.get(), self.timeout)
                if isinstance(data, BaseException):
                    raise data
                if data.get("error"):
                    raise ServiceError.from_body(data["error"])
                yield data.get("response", {})
                if data.get("complete"):
                    return
        finally:
            self._queues.pop(rid, None)

    async def request(
        self, service: str, request: dict[str, Any], *, flow: str = "default"
    ) -> dict[str, Any]:
        """One REST request; return the final response."""
        url = urljoin(self.base, f"api/v1/flow/{flow}/service/{service}")
        return await self._post(url, self.scoped(request))

    async def librarian(self, request: dict[str, Any]) -> dict[str, Any]:
        """One librarian operation over REST."""
        return await self._post(urljoin(self.base, "api/v1/librarian"), self.scoped(request))

    async def collections(self, request: dict[str, Any]) -> dict[str, Any]:
        """One collection-management operation over REST (the user's collections)."""
        url = urljoin(self.base, "api/v1/collection-management")
        return await self._post(url, self.scoped(request))

    async def iam(self, request: dict[str, Any]) -> dict[str, Any]:
        """One API key operation (``/api/v1/iam``, admin token only)."""
        return await self._post(urljoin(self.base, "api/v1/iam"), request)

    async def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body``, tried again as ``_again`` says."""
        return await self._again(lambda: self._post_once(url, body), body.get("operation"))

    async def _again(self, attempt: Callable[[], Awaitable[T]], operation: object) -> T:
        """``attempt()``; a refused connection (or a reset one, for a read ``operation``) to a
        gateway that answered before is tried again for up to RETRY_SECONDS, with a note on
        stderr. A gateway never reached fails at once: not started, or the wrong URL."""
        loop = asyncio.get_running_loop()
        deadline = None
        while True:
            try:
                return await attempt()
            except aiohttp.ClientConnectionError as exc:
                why = self._retryable(exc, operation)
                if why is None or (deadline is not None and loop.time() >= deadline):
                    raise
                if deadline is None:
                    deadline = loop.time() + RETRY_SECONDS
                    click.echo(
                        f"gateway at {self.base} {why}: waiting up to {RETRY_SECONDS:g} s "
                        "for it to come back",
                        err=True,
                    )
                await asyncio.sleep(RETRY_PAUSE)

    def _retryable(self, exc: BaseException, operation: object) -> str | None:
        """Why ``exc`` is worth another try (in words), or None."""
        if not self._reached:
            return None  # never answered: not started, or the wrong URL; say so at once
        if isinstance(exc, aiohttp.ClientConnectorError):
            refused = getattr(exc.os_error, "errno", None) == errno.ECONNREFUSED
            return "refused the connection" if refused else None
        reset = isinstance(exc, aiohttp.ServerDisconnectedError) or (
            getattr(exc, "errno", None) == errno.ECONNRESET
        )
        return "closed the connection" if reset and operation in REPEATABLE else None

    async def _post_once(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        operation = body.get("operation")
        self.note(f"POST {url}" + (f" ({operation})" if operation else ""))
        async with self.session.post(
            url, json=body, timeout=aiohttp.ClientTimeout(total=self.timeout)
        ) as resp:
            self.note(f"HTTP {resp.status} from {url}")
            self._reached = True
            if resp.status == 401:
                raise AuthError.from_answer(
                    resp.status, resp.headers, token_sent=bool(self.gw.token)
                )
            try:
                data: dict[str, Any] = await resp.json(content_type=None)
            except (ValueError, aiohttp.ContentTypeError):
                if resp.status == 404:
                    raise NotAGateway(url, resp.status) from None
                text = " ".join((await resp.text())[:200].split())
                raise ServiceError(
                    ErrorType(f"http-{resp.status}"), f"{url} answered: {text}"
                ) from None
            if data.get("error"):
                raise ServiceError.from_body(data["error"])
            return data
