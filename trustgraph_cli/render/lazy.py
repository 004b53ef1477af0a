"""Importing the heavy modules (pydantic schemas, renderers) while a request is in flight."""

from __future__ import annotations

import asyncio
from importlib import import_module


def preload(*modules: str) -> asyncio.Future[None]:
    """Import ``modules`` in a worker thread; await the result before using them.

    A command spends most of its life waiting on the gateway; the schema imports
    (a few hundred milliseconds) overlap with that wait instead of preceding it.
    """
    return asyncio.get_running_loop().run_in_executor(None, _import_all, modules)


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        import_module(name)
