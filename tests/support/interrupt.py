"""Ctrl-C a command as at a terminal: start it against a stack, wait for a stderr line that
says it got somewhere, send SIGINT (or do ``then``, e.g. stop the stack), and collect how it
ended."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable

from tests.support.stack import Stack, command_line


async def interrupted_when(
    stack: Stack,
    name: str,
    *args: str,
    ready: Callable[[str], bool],
    then: Callable[[], Awaitable[None]] | None = None,
) -> tuple[int, bytes, bytes]:
    """Run command ``name`` on ``stack``; once a stderr line satisfies ``ready``, SIGINT it
    (or await ``then`` instead).

    Returns its exit code and the stdout and stderr that came after that line.
    """
    proc = await asyncio.create_subprocess_exec(
        *command_line(name),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("TRUSTGRAPH_")},
            **stack.env,
        },
        # As at a terminal: a test run started in the background (as .ci/run starts it) has
        # SIGINT ignored, and a child would inherit that and never see the Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    seen: list[str] = []
    while not any(ready(line) for line in seen):
        line = await asyncio.wait_for(proc.stderr.readline(), 60)
        assert line, seen
        seen.append(line.decode())
    if then is None:
        proc.send_signal(signal.SIGINT)
    else:
        await then()
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode is not None
    return proc.returncode, out, err
