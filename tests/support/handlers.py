"""Calling a service handler directly, without a broker.

``Processor.service`` registers (and returns) a handler typed as answering with either an
awaitable response or a stream of them; these say which one a test calls, and check it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

R = TypeVar("R")


def streamed(result: Awaitable[R] | AsyncIterator[R]) -> AsyncIterator[R]:
    """The responses of a streaming handler (an async generator)."""
    assert isinstance(result, AsyncIterator), f"not a streaming handler: {result!r}"
    return result


def answered(result: Awaitable[R] | AsyncIterator[R]) -> Awaitable[R]:
    """The one response of a handler that answers once (a coroutine)."""
    assert not isinstance(result, AsyncIterator), f"a streaming handler: {result!r}"
    return result
