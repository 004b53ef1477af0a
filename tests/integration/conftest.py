"""Fixtures of the integration tests: ``start(data_dir, port)`` runs a real tg-start
subprocess; ``watcher`` reads the explain-store topic (the agent tests)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.agent import TraceWatcher
from tests.support.launcher import Launcher, launch
from trustgraph_base.messaging import Bus, Topics


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[object]:
    started: list[Launcher] = []

    async def start_one(data: Path, port: int, env: dict[str, str] | None = None) -> Launcher:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("TG_LLM_", "OPENAI_"))}
        started.append(await launch(data, port, {**base, **(env or {})}))
        return started[-1]

    yield start_one
    for launcher in started:
        if launcher.proc.returncode is None:
            launcher.proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(launcher.proc.wait(), 30)


@pytest.fixture
async def watcher(bus: Bus, topics: Topics) -> AsyncIterator[TraceWatcher]:
    """A ``TraceWatcher`` subscribed before the test body runs."""
    w = TraceWatcher(bus, topics)
    await w.start()
    yield w
    w.stop()
