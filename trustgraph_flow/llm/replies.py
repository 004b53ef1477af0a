"""Reading an OpenAI-compatible server's answers: completions, errors and server-sent events."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp

from trustgraph_base.errors import ErrorType, ServiceError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Completion:
    """A finished completion; token counts are ``None`` when the server did not report them.

    ``finish_reason`` is the server's (``stop``, ``length`` when the reply ran into its
    ``max_tokens``, ...) or ``None`` when it sent none.
    """

    text: str
    model: str
    in_token: int | None = None
    out_token: int | None = None
    finish_reason: str | None = None


def server_message(body: str) -> str:
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


def usage_of(data: dict[str, Any]) -> tuple[int | None, int | None]:
    """``(prompt_tokens, completion_tokens)`` of a reply's ``usage`` (None where absent)."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None, None
    return usage.get("prompt_tokens"), usage.get("completion_tokens")


def parse_completion(data: Any, url: str, model: str) -> Completion:
    """A non-streamed chat completion body as a ``Completion``."""
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"] or ""
    except (KeyError, IndexError, TypeError) as exc:
        raise ServiceError(
            ErrorType.LLM_ERROR, f"LLM at {url} sent an unexpected reply: {exc!r}"
        ) from exc
    reason = choice.get("finish_reason") if isinstance(choice, dict) else None
    return Completion(
        str(text),
        str(data.get("model") or model),
        *usage_of(data),
        finish_reason=str(reason) if reason else None,
    )


@dataclass
class StreamState:
    """What a stream said so far besides its text pieces."""

    model: str
    usage: tuple[int | None, int | None] = (None, None)
    finish_reason: str | None = None

    def pieces(self, data: dict[str, Any]) -> list[str]:
        """Note one event's model, usage and finish reason; its text pieces."""
        self.model = str(data.get("model") or self.model)
        if data.get("usage"):
            self.usage = usage_of(data)
        found: list[str] = []
        for choice in data.get("choices") or []:
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
            piece = (choice.get("delta") or {}).get("content") or ""
            if piece:
                found.append(piece)
        return found

    def completion(self, text: str) -> Completion:
        return Completion(text, self.model, *self.usage, finish_reason=self.finish_reason)


async def sse_events(resp: aiohttp.ClientResponse) -> AsyncIterator[dict[str, Any]]:
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
                    ErrorType.LLM_ERROR, f"LLM stream error: {server_message(payload)}"
                )
            yield data
