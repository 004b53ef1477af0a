"""The launcher's data directory: its layout, the pid file and the lock that guards it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import IO


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/explaingraph``, else ``~/.local/share/explaingraph``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "explaingraph"


@dataclass(frozen=True)
class RunDir:
    """Where everything of one embedded stack lives."""

    root: Path

    @property
    def broker(self) -> Path:
        return self.root / "broker"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def pid_file(self) -> Path:
        return self.root / "launcher.pid"

    @property
    def lock_file(self) -> Path:
        return self.run / "launcher.lock"

    @property
    def children_file(self) -> Path:
        return self.run / "children.json"

    @property
    def broker_port_file(self) -> Path:
        return self.broker / "port"

    def ready_file(self, name: str) -> Path:
        return self.run / f"{name}.ready"

    def log_file(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def make(self) -> None:
        for path in (self.broker, self.data, self.logs, self.run):
            path.mkdir(parents=True, exist_ok=True)

    def read_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None


class Lock:
    """An exclusive ``flock`` on the run directory, held while a launcher runs.

    The kernel drops it when the launcher dies, however it dies; a pid file left behind
    without the lock held is stale.
    """

    def __init__(self, rundir: RunDir) -> None:
        self.rundir = rundir
        self._fh: IO[str] | None = None

    def acquire(self) -> bool:
        self.rundir.run.mkdir(parents=True, exist_ok=True)
        fh = open(self.rundir.lock_file, "a")  # held open for the launcher's whole life
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            return False
        self._fh = fh
        return True

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def held_by_other(rundir: RunDir) -> bool:
    """Is a launcher running on this directory right now?"""
    probe = Lock(rundir)
    if probe.acquire():
        probe.release()
        return False
    return True


def record_children(rundir: RunDir, pids: dict[str, int]) -> None:
    rundir.children_file.write_text(json.dumps(pids))


def kill_leftovers(rundir: RunDir) -> list[str]:
    """SIGTERM children a dead launcher left running (only processes that name this dir)."""
    try:
        pids: dict[str, int] = json.loads(rundir.children_file.read_text())
    except (OSError, ValueError):
        return []
    killed = []
    for name, pid in pids.items():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if str(rundir.root).encode() in cmdline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
                killed.append(name)
    rundir.children_file.unlink(missing_ok=True)
    return killed
