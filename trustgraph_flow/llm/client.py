"""An OpenAI-compatible chat-completions client: timeouts, retries with backoff, SSE streaming,
structured output.

Transient failures (429, 5xx, connection errors, timeouts) are retried with exponential
backoff; anything else, or a transient failure that outlives its retries, is raised as
``ServiceError("llm-error", ...)`` naming the endpoint, the status and the server's message.

A request with a ``response_schema`` asks the server to enforce it at the client's structured
output level (``formats``). A server that refuses the format makes the level step below the
refused one, and that request is sent once more at the new level; the lower level stays for
later requests. Replies are read by ``replies``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_flow.llm.formats import (
    FormatLevel,
    FormatRefused,
    level_of,
    refuses_format,
    response_format,
)
from trustgraph_flow.llm.replies import (
    Completion,
    StreamState,
    parse_completion,
    server_message,
    sse_events,
)

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BACKOFF = 30.0
T = TypeVar("T")
__all__ = ["ChatClient", "Completion"]


class _Transient(Exception):
    """A failure worth another try."""


@dataclass
class ChatClient:
    """Calls ``POST {base_url}/chat/completions`` on one OpenAI-compatible endpoint."""

    session: aiohttp.ClientSession
    base_url: str
    model: str
    api_key: str = ""
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 0.5
    structured: str = "json_schema"  # the level to start at (formats.LEVELS)
    stream_usage: bool = True  # ask for a stream's usage (dropped if the server refuses it)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def __post_init__(self) -> None:
        self.level = FormatLevel(self.structured)

    def _body(self, req: TextCompletionRequest, stream: bool) -> dict[str, Any]:
        messages = [{"role": "user", "content": req.prompt}]
        if req.system:
            messages.insert(0, {"role": "system", "content": req.system})
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": stream}
        if req.temperature is not None:
            body["temperature"] = req.temperature
        if req.max_tokens is not None:
            body["max_tokens"] = req.max_tokens
        fmt = response_format(self.level.current, req)  # read once: the level may drop meanwhile
        if fmt is not None:
            body["response_format"] = fmt
        return body

    async def _formatted(self, send: Callable[[], Awaitable[T]]) -> T:
        """``send()``, and once more a level lower if the server refuses the format."""
        try:
            return await send()
        except FormatRefused as exc:
            if not self.level.refused(exc.level, str(exc)):
                raise ServiceError(ErrorType.LLM_ERROR, str(exc)) from None
        try:
            return await send()
        except FormatRefused as exc:
            self.level.refused(exc.level, str(exc))
            raise ServiceError(ErrorType.LLM_ERROR, str(exc)) from None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    async def _check(self, resp: aiohttp.ClientResponse, body: dict[str, Any]) -> None:
        if resp.status < 400:
            return
        message = server_message(await resp.text())
        text = f"LLM at {self.url} answered HTTP {resp.status}: {message}"
        if "response_format" in body and refuses_format(resp.status, message):
            raise FormatRefused(text, level_of(body))
        if resp.status in RETRY_STATUSES:
            raise _Transient(text)
        raise ServiceError(ErrorType.LLM_ERROR, text)

    async def _retrying(self, attempt_fn: Callable[[], Awaitable[T]]) -> T:
        """Run ``attempt_fn()`` until it succeeds, retrying transient failures with backoff."""
        for attempt in range(self.retries + 1):
            try:
                return await attempt_fn()
            except (_Transient, aiohttp.ClientConnectionError, TimeoutError) as exc:
                reason = self._describe(exc)
                if attempt == self.retries:
                    raise ServiceError(
                        ErrorType.LLM_ERROR, f"{reason} (gave up after {attempt + 1} attempts)"
                    ) from exc
                delay = min(MAX_BACKOFF, self.backoff * 2**attempt)
                log.warning("%s; retrying in %.1fs", reason, delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    def _describe(self, exc: BaseException) -> str:
        if isinstance(exc, TimeoutError):
            return f"LLM at {self.url} did not answer within {self.timeout:g}s"
        if isinstance(exc, aiohttp.ClientConnectionError):
            return f"cannot reach LLM at {self.url} ({exc})"
        return str(exc)

    def _post(self, body: dict[str, Any]) -> Any:
        # A stream may run long: bound the silence between reads, not the whole reply.
        if body["stream"]:
            timeout = aiohttp.ClientTimeout(sock_connect=self.timeout, sock_read=self.timeout)
        else:
            timeout = aiohttp.ClientTimeout(total=self.timeout)
        return self.session.post(self.url, json=body, headers=self._headers(), timeout=timeout)

    async def _json(self, resp: aiohttp.ClientResponse) -> Any:
        try:
            return await resp.json(content_type=None)
        except ValueError as exc:
            raise ServiceError(
                ErrorType.LLM_ERROR, f"LLM at {self.url} sent a reply that is not JSON"
            ) from exc

    async def complete(self, req: TextCompletionRequest) -> Completion:
        """One non-streamed completion."""

        async def attempt() -> Completion:
            body = self._body(req, stream=False)
            async with self._post(body) as resp:
                await self._check(resp, body)
                return parse_completion(await self._json(resp), self.url, self.model)

        return await self._formatted(lambda: self._retrying(attempt))

    async def stream(self, req: TextCompletionRequest) -> AsyncIterator[str | Completion]:
        """Yield text pieces as they arrive, then one ``Completion`` with the whole text."""
        resp: aiohttp.ClientResponse = await self._formatted(
            lambda: self._retrying(lambda: self._open_stream(req))
        )
        if resp.content_type == "application/json":  # a server that ignores "stream"
            try:
                done = parse_completion(await self._json(resp), self.url, self.model)
            finally:
                resp.release()
            if done.text:
                yield done.text
            yield done
            return
        pieces: list[str] = []
        state = StreamState(self.model)
        try:
            async for data in sse_events(resp):
                for piece in state.pieces(data):
                    pieces.append(piece)
                    yield piece
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ServiceError(
                ErrorType.LLM_ERROR, f"LLM stream from {self.url} broke off: {self._describe(exc)}"
            ) from exc
        finally:
            resp.release()
        yield state.completion("".join(pieces))

    async def _open_stream(self, req: TextCompletionRequest) -> aiohttp.ClientResponse:
        body = self._body(req, stream=True)
        if self.stream_usage:
            # OpenAI and vLLM report a stream's usage only when asked; others ignore this.
            body["stream_options"] = {"include_usage": True}
        resp: aiohttp.ClientResponse = await self._post(body)
        try:
            await self._check(resp, body)
        except ServiceError as exc:
            resp.release()
            if not self.stream_usage or "stream_options" not in exc.message:
                raise
            log.warning("%s; streaming without stream_options from now on", exc.message)
            self.stream_usage = False
            return await self._open_stream(req)
        except BaseException:
            resp.release()
            raise
        return resp
