"""The correct counterpart of state_wrong.py: it must pass mypy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from trustgraph_base.messaging import PAGES, Context, Processor
from trustgraph_base.schema import PageText
from trustgraph_base.settings import ProcessorSettings


@dataclass(frozen=True)
class State:
    pages_seen: list[str]


proc: Processor[ProcessorSettings, State] = Processor("right-state")


@proc.lifespan
async def open_state(ctx: Context[ProcessorSettings]) -> AsyncIterator[State]:
    seen: list[str] = []
    yield State(seen)
    seen.clear()


@proc.consumer(PAGES)
async def record(page: PageText, ctx: Context[ProcessorSettings, State]) -> None:
    ctx.state.pages_seen.append(page.text)


@proc.consumer(PAGES)
async def needs_no_state(page: PageText, ctx: Context[ProcessorSettings]) -> None:
    del page, ctx
