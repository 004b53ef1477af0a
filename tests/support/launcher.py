"""A real ``tg-start`` subprocess whose output a test reads line by line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.stack import command_line


class Launcher:
    """A ``tg-start`` subprocess; ``lines`` is its output (stdout and stderr) read so far."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []

    async def wait_for(self, text: str, timeout: float = 50) -> str:
        """The first line from now on that contains ``text``."""

        async def scan() -> str:
            assert self.proc.stdout is not None
            while True:
                raw = await self.proc.stdout.readline()
                assert raw, f"tg-start ended before {text!r}: {self.lines}"
                self.lines.append(raw.decode().rstrip("\n"))
                if text in self.lines[-1]:
                    return self.lines[-1]

        return await asyncio.wait_for(scan(), timeout)

    async def drain(self) -> None:
        """Read the rest of the output (a full pipe would block tg-start) until it ends."""
        assert self.proc.stdout is not None
        while raw := await self.proc.stdout.readline():
            self.lines.append(raw.decode().rstrip("\n"))


async def launch(data: Path, port: int, env: dict[str, str]) -> Launcher:
    """``tg-start --data-dir data --port port`` with exactly the environment ``env``."""
    proc = await asyncio.create_subprocess_exec(
        *command_line("tg-start"),
        "--data-dir",
        str(data),
        "--port",
        str(port),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        stdin=asyncio.subprocess.DEVNULL,
        env=env,
    )
    return Launcher(proc)
