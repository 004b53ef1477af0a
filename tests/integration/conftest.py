"""Fixtures of the launcher tests: ``start(data_dir, port)`` runs a real tg-start subprocess."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.stack import command_line


class Launcher:
    """A tg-start subprocess whose output we read line by line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []

    async def wait_for(self, text: str, timeout: float = 50) -> str:
        async def scan() -> str:
            assert self.proc.stdout is not None
            while True:
                raw = await self.proc.stdout.readline()
                assert raw, f"tg-start ended before {text!r}: {self.lines}"
                self.lines.append(raw.decode().rstrip("\n"))
                if text in self.lines[-1]:
                    return self.lines[-1]

        return await asyncio.wait_for(scan(), timeout)


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[object]:
    started: list[Launcher] = []

    async def launch(data: Path, port: int, env: dict[str, str] | None = None) -> Launcher:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("TG_LLM_", "OPENAI_"))}
        proc = await asyncio.create_subprocess_exec(
            *command_line("tg-start"),
            "--data-dir",
            str(data),
            "--port",
            str(port),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            env={**base, **(env or {})},
        )
        started.append(Launcher(proc))
        return started[-1]

    yield launch
    for launcher in started:
        if launcher.proc.returncode is None:
            launcher.proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(launcher.proc.wait(), 30)
