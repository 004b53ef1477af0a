"""A slow text-completion service run as its own process by the restart tests.

It records each prompt it starts on (``--record``), answers the prompt back after
``--delay`` seconds, and on the prompt ``fatal`` reports a fatal failure the way a dead
reply router does (``Bus.fail``), so the process must exit non-zero.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from trustgraph_base.messaging import TEXT_COMPLETION, Context, Processor
from trustgraph_base.schema import TextCompletionRequest, TextCompletionResponse
from trustgraph_base.settings import ProcessorSettings


class EchoSettings(ProcessorSettings):
    record: str = "seen.txt"
    delay: float = 0.5


proc: Processor[EchoSettings] = Processor("slow-echo", EchoSettings)


@proc.service(TEXT_COMPLETION, concurrency=64)
async def complete(
    req: TextCompletionRequest, ctx: Context[EchoSettings]
) -> TextCompletionResponse:
    with Path(ctx.settings.record).open("a") as f:
        f.write(req.prompt + "\n")
    if req.prompt == "fatal":
        ctx.bus.fail(RuntimeError("told to fail"))
    await asyncio.sleep(ctx.settings.delay)
    return TextCompletionResponse(response=req.prompt)


if __name__ == "__main__":
    proc.main()
