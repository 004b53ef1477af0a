"""Stand-in services for a test: a processor module look-alike around one ``Processor``, and
an echoing text-completion service."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import TEXT_COMPLETION, Context, Processor
from trustgraph_base.schema import TextCompletionRequest, TextCompletionResponse
from trustgraph_base.settings import ProcessorSettings


class StandIn:
    """A processor module look-alike: ``proc`` with the default settings class."""

    def __init__(self, proc: Processor[ProcessorSettings]) -> None:
        self.proc = proc


def echo_processor(pause: float = 0.0) -> Processor[ProcessorSettings]:
    """Text completion that streams the prompt back a word at a time; the prompt ``fail`` fails.
    ``pause``: seconds it waits before each word (as GraphRAG waits for the store between
    stages), so no two replies are ready together."""
    proc: Processor[ProcessorSettings] = Processor("echo")

    @proc.service(TEXT_COMPLETION)
    async def complete(
        req: TextCompletionRequest, ctx: Context[ProcessorSettings]
    ) -> AsyncIterator[TextCompletionResponse]:
        if req.prompt == "fail":
            raise ServiceError(ErrorType.LLM_ERROR, "the model refused")
        words = req.prompt.split()
        for i, word in enumerate(words):
            if pause:
                await asyncio.sleep(pause)
            yield TextCompletionResponse(response=word, end_of_stream=i == len(words) - 1)

    return proc
