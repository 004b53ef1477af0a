"""The request a service handler is answering, for code deep inside it (the trace writer
keys its run journal by it): its id and its caller's deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Delivery:
    """One request being answered: its ``id`` property, its caller's deadline (epoch
    seconds; None for an older caller that sent none), and a future done once the runner is
    through with it (its replies persisted and, for a ``once`` service, its id on disk)."""

    rid: str
    deadline: float | None
    settled: asyncio.Future[None] = field(compare=False)
    # Called with each reply message's replies once it is persisted (the caller has them).
    told: list[Callable[[Sequence[Any]], None]] = field(default_factory=list, compare=False)


CURRENT: ContextVar[Delivery | None] = ContextVar("tg_delivery", default=None)


def current_delivery() -> Delivery | None:
    """The request the running handler answers (None outside a service handler)."""
    return CURRENT.get()


def deadline_of(properties: dict[str, str]) -> float | None:
    """The caller's deadline in a request's properties (epoch seconds), if it sent one."""
    try:
        return int(properties["deadline"]) / 1000
    except (KeyError, ValueError):
        return None
