"""The launcher's data directory: its layout, the pid file and the lock that guards it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from trustgraph_base.paths import default_data_dir

__all__ = ["Lock", "RunDir", "default_data_dir", "held_by_other"]


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
    def health_file(self) -> Path:
        return self.run / "health.json"

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
    """Write every child's pid (each leads its own process group) for tg-stop and the next start."""
    write_json(rundir.children_file, pids)


def write_json(path: Path, value: object) -> None:
    """Replace ``path`` atomically: a reader never sees half a file."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value))
    tmp.replace(path)


def _ours(pid: int, rundir: RunDir) -> bool:
    """Is ``pid`` alive (not a zombie) and a process of this run directory?"""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z" and str(rundir.root).encode() in cmdline


def _signal(pid: int, sig: int) -> None:
    """Signal the child's whole process group when it leads one, else the process alone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)


def kill_leftovers(rundir: RunDir, timeout: float = 10.0) -> list[str]:
    """Stop the children a dead launcher left running, and wait until they are gone.

    Only processes whose command line names this directory are touched (a recorded pid
    may have been reused). SIGTERM first; what is still there after ``timeout`` gets
    SIGKILL. On return their locks and ports are free: the RocksDB lock, the broker's and
    the gateway's ports.
    """
    try:
        pids: dict[str, int] = json.loads(rundir.children_file.read_text())
    except (OSError, ValueError):
        return []
    alive = {name: pid for name, pid in pids.items() if _ours(pid, rundir)}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        left = [pid for pid in alive.values() if _ours(pid, rundir)]
        for pid in left:
            _signal(pid, sig)
        deadline = time.monotonic() + timeout
        while left and time.monotonic() < deadline:
            time.sleep(0.05)
            left = [pid for pid in left if _ours(pid, rundir)]
        if not left:
            break
    rundir.children_file.unlink(missing_ok=True)
    return list(alive)
