"""Run each processor as its own subprocess; restart a crashed one with backoff."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from trustgraph_base.process import die_with_parent

MAX_BACKOFF = 30.0
STABLE_AFTER = 30.0  # a child that ran this long gets its backoff reset


@dataclass
class Child:
    """One supervised processor process."""

    name: str
    argv: list[str]
    log_path: Path
    ready_path: Path
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    backoff: float = 1.0
    restart_at: float | None = None
    restarts: int = 0
    _log: IO[bytes] | None = field(default=None, repr=False)

    def start(self) -> None:
        self.ready_path.unlink(missing_ok=True)
        if self._log is None:
            self._log = open(self.log_path, "ab")  # kept open across restarts
        # Its own session: Ctrl-C in the terminal reaches the launcher, which stops
        # children in order (broker last) instead of everything dying at once. And it
        # dies with the launcher: a killed launcher leaves nothing serving.
        self.proc = subprocess.Popen(
            self.argv,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent(),
        )
        self.started = time.monotonic()
        self.restart_at = None

    @property
    def ready(self) -> bool:
        return self.ready_path.exists()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def exited(self) -> int | None:
        """The exit code if the process has ended (and no restart is pending yet)."""
        if self.proc is None or self.restart_at is not None:
            return None
        return self.proc.poll()

    def schedule_restart(self, now: float) -> float:
        if now - self.started > STABLE_AFTER:
            self.backoff = 1.0
        delay = self.backoff
        self.backoff = min(self.backoff * 2, MAX_BACKOFF)
        self.restart_at = now + delay
        self.restarts += 1
        return delay

    def terminate(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            self.proc.wait()

    def close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def tail(self, lines: int = 5) -> str:
        """The last lines of its log, for error messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join("    " + line for line in text.splitlines()[-lines:])


def python_module(module: str, *flags: str) -> list[str]:
    return [sys.executable, "-m", module, *flags]


class Supervisor:
    """Starts, watches, restarts and stops a set of children."""

    def __init__(self, children: list[Child]) -> None:
        self.children = children

    def start_all(self) -> None:
        for child in self.children:
            child.start()

    def pids(self) -> dict[str, int]:
        return {c.name: c.pid for c in self.children if c.pid is not None}

    def tick(self, say: Callable[[str], None]) -> bool:
        """Restart children that died (after their backoff); True if any pid changed."""
        now = time.monotonic()
        changed = False
        for child in self.children:
            code = child.exited()
            if code is not None:
                delay = child.schedule_restart(now)
                msg = f"{child.name} exited (code {code}); restarting in {delay:.0f}s — see {child.log_path}"
                say(msg)
            elif child.restart_at is not None and now >= child.restart_at:
                child.start()
                changed = True
        return changed

    def stop_all(self, timeout: float = 15.0) -> list[str]:
        """SIGTERM every child (last started first), wait, SIGKILL stragglers; name those."""
        for child in reversed(self.children):
            child.restart_at = None
            child.terminate()
        deadline = time.monotonic() + timeout
        killed = []
        for child in reversed(self.children):
            if child.proc is None:
                continue
            try:
                child.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                killed.append(child.name)
            child.ready_path.unlink(missing_ok=True)
            child.close_log()
        return killed
