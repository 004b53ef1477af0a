"""Typed processor state misused: every marked line is a mypy error (tests/unit/test_processor_typing.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from trustgraph_base.messaging import PAGES, Context, Processor
from trustgraph_base.schema import PageText
from trustgraph_base.settings import ProcessorSettings


@dataclass(frozen=True)
class State:
    pages_seen: list[str]


proc: Processor[ProcessorSettings, State] = Processor("wrong-state")


@proc.lifespan  # mypy: arg-type
async def opens_something_else(ctx: Context[ProcessorSettings]) -> AsyncIterator[int]:
    yield 0


@proc.consumer(PAGES)
async def reads_a_field_it_does_not_have(
    page: PageText, ctx: Context[ProcessorSettings, State]
) -> None:
    ctx.state.pages_done.append(page.text)  # mypy: attr-defined


@proc.consumer(PAGES)
async def uses_state_its_context_does_not_type(
    page: PageText, ctx: Context[ProcessorSettings]
) -> None:
    ctx.state.pages_seen.append(page.text)  # mypy: attr-defined
