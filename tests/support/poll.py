"""Waiting on something another process makes true: the one ``eventually`` and ``until``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def eventually(
    make: Callable[[], Awaitable[T]], check: Callable[[T], bool], timeout: float = 15.0
) -> T:
    """Re-run ``make()`` until ``check`` accepts its result, and return that result.

    ``TimeoutError`` naming the last result when ``check`` has not accepted one within
    ``timeout`` seconds (an error ``make()`` raises passes through at once).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = await make()
        if check(result):
            return result
        if loop.time() > deadline:
            raise TimeoutError(f"not reached within {timeout:g} s; last result: {result!r:.500}")
        await asyncio.sleep(0.05)


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    """Wait until ``check()`` is true (``TimeoutError`` after ``timeout`` seconds)."""
    await eventually(check, bool, timeout)
