"""The prompt service (the reference's ``prompt``, ``tg-invoke-prompt``): one of the
prompts the processors use, as the user configured it (``prompts.book.texts``), filled with
the caller's variables and sent to the text-completion service; its replies are passed on.

The variables must be exactly the prompt's (one unknown or missing is refused, naming
them), so a filled prompt never has a hole. The completion goes as free text
(``prompt_type`` ``text``): the offline engine echoes its first sentence, a real LLM answers it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import TEXT_COMPLETION, Context
from trustgraph_base.schema import PromptRequest, TextCompletionRequest, TextCompletionResponse
from trustgraph_flow.config.store import ConfigStore
from trustgraph_flow.config.values import PROMPT
from trustgraph_flow.prompts.book import parsed, texts
from trustgraph_flow.prompts.catalogue import PROMPTS, SYSTEM_KEY, TEMPLATE_PREFIX
from trustgraph_flow.prompts.templates import render

COMPLETION_WAIT_S = 120.0  # between two replies of the LLM


async def filled(store: ConfigStore, req: PromptRequest) -> tuple[str, str]:
    """The system text and the filled template of ``req.id`` for ``req.user``."""
    spec = PROMPTS.get(req.id)
    if spec is None:
        raise ServiceError(
            ErrorType.NOT_FOUND,
            f"prompt: no prompt {req.id!r} (the prompts here: {', '.join(sorted(PROMPTS))})",
        )
    unknown, missing = (
        sorted(set(req.variables) - spec.variables),
        sorted(spec.variables - set(req.variables)),
    )
    if unknown or missing:
        said = [f"unknown: {', '.join(unknown)}"] if unknown else []
        said += [f"missing: {', '.join(missing)}"] if missing else []
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"prompt {req.id!r} takes the variables {', '.join(sorted(spec.variables))} "
            f"({'; '.join(said)})",
        )
    view = await asyncio.to_thread(store.view, req.user, PROMPT)
    found = parsed(view.get(SYSTEM_KEY, ""), view.get(TEMPLATE_PREFIX + req.id, ""))
    system, template = texts(spec, *(found or ("", {})))
    return system, render(template, req.variables)


async def invoke(
    store: ConfigStore, req: PromptRequest, ctx: Context[Any]
) -> AsyncIterator[TextCompletionResponse]:
    system, prompt = await filled(store, req)
    completion = TextCompletionRequest(
        system=system,
        prompt=prompt,
        prompt_type="text",
        variables=dict(req.variables),
        streaming=req.streaming,
    )
    async for reply in ctx.client(TEXT_COMPLETION).stream(completion, timeout=COMPLETION_WAIT_S):
        yield reply
