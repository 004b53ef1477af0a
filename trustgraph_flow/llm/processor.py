"""The text-completion service: an OpenAI-compatible endpoint, or the offline engine.

With ``llm_base_url`` set (flag ``--llm-base-url``, env ``TG_LLM_BASE_URL`` or
``OPENAI_BASE_URL``) every request goes to ``{base}/chat/completions``; without it the
deterministic offline engine answers from the request's ``prompt_type`` and ``variables``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator
from typing import Literal, Protocol

import aiohttp
from pydantic import AliasChoices, Field

from trustgraph_base.messaging import TEXT_COMPLETION, Context, Processor
from trustgraph_base.schema import TextCompletionRequest, TextCompletionResponse
from trustgraph_base.schema.llm import ModelInfo
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.llm import offline
from trustgraph_flow.llm.client import ChatClient, Completion

log = logging.getLogger(__name__)


def _env(name: str) -> AliasChoices:
    """Accept the field name, its ``TG_`` variable, then the conventional OpenAI variable."""
    return AliasChoices(name, f"tg_{name}", f"openai_{name.removeprefix('llm_')}")


class Settings(ProcessorSettings):
    """Where the LLM is; no base URL means the offline engine."""

    llm_base_url: str = Field(default="", validation_alias=_env("llm_base_url"))
    """An OpenAI-compatible endpoint (also OPENAI_BASE_URL); empty: the offline engine."""
    llm_model: str = Field(default="gpt-4o-mini", validation_alias=_env("llm_model"))
    """Model name sent to the endpoint (also OPENAI_MODEL)."""
    llm_api_key: str = Field(default="", validation_alias=_env("llm_api_key"), repr=False)
    """API key for the endpoint (also OPENAI_API_KEY)."""
    llm_timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for one completion."""
    llm_retries: int = Field(default=3, ge=0)
    """Retries of a failed completion."""
    llm_backoff: float = Field(default=0.5, ge=0)
    """Seconds before the first retry (doubled for each next one)."""
    # How a request's response_schema is enforced (docs/llm.md, structured output).
    llm_structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    """How a request's response schema is enforced: json_schema, json_object or none."""
    offline_latency: float = Field(default=0.0, ge=0, le=60)
    """Seconds the offline engine takes per answer (0: at once); models a hosted LLM's latency."""


class Engine(Protocol):
    model: str

    async def complete(self, req: TextCompletionRequest) -> Completion: ...

    def stream(self, req: TextCompletionRequest) -> AsyncIterator[str | Completion]: ...


class OfflineEngine:
    """The deterministic offline engine behind the same interface as the HTTP client."""

    model = offline.MODEL

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency

    async def complete(self, req: TextCompletionRequest) -> Completion:
        if self.latency:
            # A hosted model keeps the caller waiting, not this process's CPU: sleep, so many
            # requests overlap as they would against a real endpoint (bench_concurrency).
            await asyncio.sleep(self.latency)
        text = offline.complete(
            req.prompt_type,
            dict(req.variables),
            req.prompt,
            structured=req.response_schema is not None,
        )
        return Completion(text, offline.MODEL)

    async def stream(self, req: TextCompletionRequest) -> AsyncIterator[str | Completion]:
        done = await self.complete(req)
        for piece in re.findall(r"\s*\S+", done.text):
            yield piece
        yield done


def estimate_tokens(text: str) -> int:
    """A rough token count (whitespace words) for servers that report no usage."""
    return len(text.split())


def _final(
    req: TextCompletionRequest, done: Completion, started: float, streamed: bool
) -> TextCompletionResponse:
    in_tok = (
        done.in_token
        if done.in_token is not None
        else estimate_tokens(req.system + " " + req.prompt)
    )
    out_tok = done.out_token if done.out_token is not None else estimate_tokens(done.text)
    if done.finish_reason == "length":
        log.warning(
            "a reply (prompt type %s) ran into its max_tokens (%s) and was cut off",
            req.prompt_type,
            req.max_tokens,
        )
    return TextCompletionResponse(
        response="" if streamed else done.text,
        model=done.model,
        in_token=in_tok,
        out_token=out_tok,
        latency_ms=round((time.monotonic() - started) * 1000, 3),
    )


def counted(
    ctx: Context[Settings, Engine], final: TextCompletionResponse
) -> TextCompletionResponse:
    """``final``, its tokens counted (``input_tokens_total``, ``output_tokens_total``: the
    names the official ``tg-show-token-rate`` asks /api/metrics for)."""
    model = final.model or "unknown"
    ctx.meter.add("input_tokens_total", final.in_token, model=model)
    ctx.meter.add("output_tokens_total", final.out_token, model=model)
    return final


proc: Processor[Settings, Engine] = Processor("text-completion", Settings)


@proc.lifespan
async def open_engine(ctx: Context[Settings]) -> AsyncIterator[Engine]:
    """Pick the engine once: the configured endpoint, or the offline engine with a warning."""
    s = ctx.settings
    if not s.llm_base_url:
        log.warning("no LLM configured: using the deterministic offline engine")
        yield OfflineEngine(s.offline_latency)
        return
    async with aiohttp.ClientSession() as session:
        log.info(
            "text completion via %s (model %s, structured output %s)",
            s.llm_base_url,
            s.llm_model,
            s.llm_structured,
        )
        yield ChatClient(
            session,
            s.llm_base_url,
            s.llm_model,
            s.llm_api_key,
            timeout=s.llm_timeout,
            retries=s.llm_retries,
            backoff=s.llm_backoff,
            structured=s.llm_structured,
        )


@proc.service(TEXT_COMPLETION)
async def complete(
    req: TextCompletionRequest, ctx: Context[Settings, Engine]
) -> AsyncIterator[TextCompletionResponse]:
    """Answer one prompt; a streamed answer is its pieces, then a final empty response with counts."""
    engine = ctx.state
    started = time.monotonic()
    if req.operation == "list-models":  # one model answers every request
        yield TextCompletionResponse(model=engine.model, models=[ModelInfo(id=engine.model)])
        return
    if not req.streaming:
        yield counted(ctx, _final(req, await engine.complete(req), started, streamed=False))
        return
    async for item in engine.stream(req):
        if isinstance(item, Completion):
            yield counted(ctx, _final(req, item, started, streamed=True))
            return
        yield TextCompletionResponse(response=item, model=engine.model, end_of_stream=False)


def main() -> None:
    """Console-script entry point (``tg-proc-text-completion``)."""
    proc.main()


if __name__ == "__main__":
    main()
