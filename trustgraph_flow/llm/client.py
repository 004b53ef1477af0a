"""An OpenAI-compatible chat-completions client: timeouts, retries with backoff, SSE streaming,
structured output.

Transient failures (429, 5xx, connection errors, timeouts) are retried with exponential
backoff; anything else, or a transient failure that outlives its retries, is raised as
``ServiceError("llm-error", ...)`` naming the endpoint, the status and the server's message.

A request with a ``response_schema`` asks the server to enforce it, at the client's
``structured`` level: ``json_schema`` (OpenAI, vLLM, Ollama, llama.cpp's ``llama-server``),
``json_object`` with a ``schema`` (llama-cpp-python's server), or ``none`` (the prompt
alone). A server that refuses the format (an error naming ``response_format`` or the
schema) makes the client drop one level, log it, and send that request again once; the
lower level stays for later requests.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema import TextCompletionRequest

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BACKOFF = 30.0
LEVELS = ("json_schema", "json_object", "none")
# Words in an error message that say the server refused the requested output format.
_FORMAT_WORDS = ("response_format", "json_schema", "schema", "grammar")


@dataclass(frozen=True)
class Completion:
    """A finished completion; token counts are ``None`` when the server did not report them."""

    text: str
    model: str
    in_token: int | None = None
    out_token: int | None = None


class _Transient(Exception):
    """A failure worth another try."""


class _FormatRefused(Exception):
    """The server refused the requested ``response_format``."""


def refuses_format(status: int, message: str) -> bool:
    """Whether an error answer says the server does not take the requested output format.

    Some servers answer a request they cannot validate with 500 rather than 400/422
    (llama-cpp-python's server does), so the status alone does not tell.
    """
    text = message.lower()
    return status in (400, 422, 500) and any(word in text for word in _FORMAT_WORDS)


def _schema_name(prompt_type: str) -> str:
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in prompt_type)[:64]
    return name or "reply"


def _server_message(body: str) -> str:
    """The ``error.message`` of an OpenAI error body, else the body itself (shortened)."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:300] or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    if isinstance(error, str):
        return error
    return body.strip()[:300]


def _usage(data: dict[str, Any]) -> tuple[int | None, int | None]:
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None, None
    return usage.get("prompt_tokens"), usage.get("completion_tokens")


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
    structured: str = "json_schema"
    stream_usage: bool = True  # ask for a stream's usage (dropped if the server refuses it)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def _body(self, req: TextCompletionRequest, stream: bool) -> dict[str, Any]:
        messages = [{"role": "user", "content": req.prompt}]
        if req.system:
            messages.insert(0, {"role": "system", "content": req.system})
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": stream}
        if req.temperature is not None:
            body["temperature"] = req.temperature
        if req.max_tokens is not None:
            body["max_tokens"] = req.max_tokens
        response_format = self._response_format(req)
        if response_format is not None:
            body["response_format"] = response_format
        return body

    def _response_format(self, req: TextCompletionRequest) -> dict[str, Any] | None:
        schema = req.response_schema
        if schema is None or self.structured == "none":
            return None
        if self.structured == "json_object":
            return {"type": "json_object", "schema": schema}
        named = {"name": _schema_name(req.prompt_type), "schema": schema, "strict": True}
        return {"type": "json_schema", "json_schema": named}

    def _fall_back(self, reason: str) -> None:
        """Drop one structured-output level, for this request (sent again) and later ones."""
        lower = LEVELS[min(LEVELS.index(self.structured) + 1, len(LEVELS) - 1)]
        log.warning(
            "%s; structured output falls back from %s to %s", reason, self.structured, lower
        )
        self.structured = lower

    async def _formatted(self, send: Any) -> Any:
        """``send()``, and once more one level lower if the server refuses the format."""
        try:
            return await send()
        except _FormatRefused as exc:
            if self.structured == "none":
                raise ServiceError(ErrorType.LLM_ERROR, str(exc)) from None
            self._fall_back(str(exc))
        try:
            return await send()
        except _FormatRefused as exc:
            raise ServiceError(ErrorType.LLM_ERROR, str(exc)) from None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    async def _check(self, resp: aiohttp.ClientResponse, formatted: bool = False) -> None:
        if resp.status < 400:
            return
        message = _server_message(await resp.text())
        text = f"LLM at {self.url} answered HTTP {resp.status}: {message}"
        if formatted and refuses_format(resp.status, message):
            raise _FormatRefused(text)
        if resp.status in RETRY_STATUSES:
            raise _Transient(text)
        raise ServiceError(ErrorType.LLM_ERROR, text)

    async def _retrying(self, attempt_fn: Any) -> Any:
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

    def _parse(self, data: Any) -> Completion:
        """A non-streamed chat completion body as a ``Completion``."""
        try:
            text = data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            raise ServiceError(
                ErrorType.LLM_ERROR, f"LLM at {self.url} sent an unexpected reply: {exc!r}"
            ) from exc
        return Completion(str(text), str(data.get("model") or self.model), *_usage(data))

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
                await self._check(resp, "response_format" in body)
                return self._parse(await self._json(resp))

        result: Completion = await self._formatted(lambda: self._retrying(attempt))
        return result

    async def stream(self, req: TextCompletionRequest) -> AsyncIterator[str | Completion]:
        """Yield text pieces as they arrive, then one ``Completion`` with the whole text."""
        resp: aiohttp.ClientResponse = await self._formatted(
            lambda: self._retrying(lambda: self._open_stream(req))
        )
        pieces: list[str] = []
        model = self.model
        usage: tuple[int | None, int | None] = (None, None)
        if resp.content_type == "application/json":  # a server that ignores "stream"
            try:
                done = self._parse(await self._json(resp))
            finally:
                resp.release()
            if done.text:
                yield done.text
            yield done
            return
        try:
            async for data in _sse_events(resp):
                model = str(data.get("model") or model)
                if data.get("usage"):
                    usage = _usage(data)
                for choice in data.get("choices") or []:
                    piece = (choice.get("delta") or {}).get("content") or ""
                    if piece:
                        pieces.append(piece)
                        yield piece
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ServiceError(
                ErrorType.LLM_ERROR, f"LLM stream from {self.url} broke off: {self._describe(exc)}"
            ) from exc
        finally:
            resp.release()
        yield Completion("".join(pieces), model, *usage)

    async def _open_stream(self, req: TextCompletionRequest) -> aiohttp.ClientResponse:
        body = self._body(req, stream=True)
        if self.stream_usage:
            # OpenAI and vLLM report a stream's usage only when asked; others ignore this.
            body["stream_options"] = {"include_usage": True}
        resp: aiohttp.ClientResponse = await self._post(body)
        try:
            await self._check(resp, "response_format" in body)
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


async def _sse_events(resp: aiohttp.ClientResponse) -> AsyncIterator[dict[str, Any]]:
    """The JSON payloads of a server-sent-events body, up to ``data: [DONE]``."""
    async for raw in resp.content:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line.startswith("data:"):
            continue
        payload = line[len("data:") :].strip()
        if payload == "[DONE]":
            return
        try:
            data = json.loads(payload)
        except ValueError:
            log.warning("ignoring a malformed SSE line from the LLM: %.200s", payload)
            continue
        if isinstance(data, dict):
            if isinstance(data.get("error"), dict):
                raise ServiceError(
                    ErrorType.LLM_ERROR, f"LLM stream error: {_server_message(payload)}"
                )
            yield data
