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
from typing import IO, TYPE_CHECKING, Any

from trustgraph_base.process import die_with_parent

if TYPE_CHECKING:
    from trustgraph_base.messaging import EmbeddedBroker

MAX_BACKOFF = 30.0
STABLE_AFTER = 30.0  # a process that ran this long gets its backoff reset


@dataclass
class Backoff:
    """When a supervised process may start again: the delay doubles to MAX_BACKOFF, and
    starts over once a run lasted STABLE_AFTER."""

    started: float = 0.0
    delay: float = 1.0
    due: float | None = None  # a restart is pending until then
    restarts: int = 0

    def schedule(self, now: float) -> float:
        """Plan the next restart; the delay until it."""
        if now - self.started > STABLE_AFTER:
            self.delay = 1.0
        delay = self.delay
        self.delay = min(self.delay * 2, MAX_BACKOFF)
        self.due = now + delay
        self.restarts += 1
        return delay

    def began(self) -> None:
        self.started = time.monotonic()
        self.due = None


@dataclass
class Child:
    """One supervised processor process."""

    name: str
    argv: list[str]
    log_path: Path
    ready_path: Path
    proc: subprocess.Popen[bytes] | None = None
    backoff: Backoff = field(default_factory=Backoff)
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
        self.backoff.began()

    @property
    def ready(self) -> bool:
        return self.ready_path.exists()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def exited(self) -> int | None:
        """The exit code if the process has ended (and no restart is pending yet)."""
        if self.proc is None or self.backoff.due is not None:
            return None
        return self.proc.poll()

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

    def state(self) -> dict[str, Any]:
        """What health reports for it: up (ready), starting, or down (restart pending)."""
        if self.proc is None or self.backoff.due is not None or self.proc.poll() is not None:
            state = "down"
        else:
            state = "up" if self.ready else "starting"
        return {"state": state, "pid": self.pid, "restarts": self.backoff.restarts}

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
        """Restart children that died (after their backoff); True if any exited or was
        restarted (its pid changed)."""
        now = time.monotonic()
        changed = False
        for child in self.children:
            code = child.exited()
            if code is not None:
                delay = child.backoff.schedule(now)
                msg = f"{child.name} exited (code {code}); restarting in {delay:.0f}s — see {child.log_path}"
                say(msg)
                changed = True
            elif child.backoff.due is not None and now >= child.backoff.due:
                child.start()
                changed = True
        return changed

    def states(self) -> dict[str, dict[str, Any]]:
        return {c.name: c.state() for c in self.children}

    def stop_all(self, timeout: float = 15.0) -> list[str]:
        """SIGTERM every child (last started first), wait, SIGKILL stragglers; name those."""
        for child in reversed(self.children):
            child.backoff.due = None
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


class BrokerWatch:
    """The broker under supervision: noticed when it dies (reaped), restarted with backoff
    on the same port with the same data; processors reconnect on their own."""

    def __init__(self, broker: EmbeddedBroker) -> None:
        self.broker = broker
        self.backoff = Backoff(started=time.monotonic())

    @property
    def pid(self) -> int | None:
        proc = self.broker.proc
        return proc.pid if proc is not None else None

    @property
    def up(self) -> bool:
        proc = self.broker.proc
        return self.backoff.due is None and proc is not None and proc.poll() is None

    def state(self) -> dict[str, Any]:
        state = "up" if self.up else "down"
        return {"state": state, "pid": self.pid, "restarts": self.backoff.restarts}

    def tick(self, say: Callable[[str], None]) -> bool:
        """Notice a dead broker, restart it once its backoff has passed; True if its pid changed."""
        now = time.monotonic()
        if self.backoff.due is None:
            proc = self.broker.proc
            if proc is not None and proc.poll() is None:
                return False
            code = proc.returncode if proc is not None else None
            self.broker.stop()  # reaped (no <defunct> left), its log closed
            delay = self.backoff.schedule(now)
            say(
                f"broker exited (code {code}); restarting in {delay:.0f}s on port {self.broker.port}"
            )
            return True
        if now < self.backoff.due:
            return False
        return self._start(say)

    def _start(self, say: Callable[[str], None]) -> bool:
        try:
            self.broker.start()
        except Exception as exc:
            delay = self.backoff.schedule(time.monotonic())
            say(f"the broker did not restart ({exc}); trying again in {delay:.0f}s")
            return False
        self.backoff.began()
        say(f"broker up again on {self.broker.url}")
        return True
