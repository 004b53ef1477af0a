"""The launcher's lock, pid file, leftover cleanup and restart backoff (no broker needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.stack import run_cli
from trustgraph_flow.launcher.rundir import (
    Lock,
    RunDir,
    held_by_other,
    kill_leftovers,
    record_children,
)
from trustgraph_flow.launcher.supervise import MAX_BACKOFF, Child


def test_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    rundir = RunDir(tmp_path)
    first = Lock(rundir)
    assert first.acquire() and held_by_other(rundir)
    assert not Lock(rundir).acquire()
    first.release()
    assert not held_by_other(rundir)


async def test_stop_cleans_a_stale_pid_file(tmp_path: Path) -> None:
    rundir = RunDir(tmp_path)
    rundir.make()
    rundir.pid_file.write_text("999999\n")
    code, _, err = await run_cli("tg-stop", "--data-dir", str(tmp_path))
    assert code == 1 and "not running" in err and "stale pid file" in err
    assert not rundir.pid_file.exists()
    code, _, err = await run_cli("tg-stop", "--data-dir", str(tmp_path))
    assert code == 1 and err == f"Error: explaingraph is not running on {tmp_path}\n"


def test_leftovers_of_this_dir_only_are_stopped(tmp_path: Path) -> None:
    rundir = RunDir(tmp_path)
    rundir.make()
    # The child says it is up: until its exec has set up the new stack, the kernel shows an
    # empty /proc/<pid>/cmdline, even after Popen has returned (seen once in CI under load).
    sleep = "import time; print('up', flush=True); time.sleep(60)"
    ours = subprocess.Popen([sys.executable, "-c", sleep, str(tmp_path)], stdout=subprocess.PIPE)
    other = subprocess.Popen([sys.executable, "-c", sleep, "/elsewhere"], stdout=subprocess.PIPE)
    try:
        for proc in (ours, other):
            assert proc.stdout is not None and proc.stdout.readline() == b"up\n"
        record_children(rundir, {"store": ours.pid, "other": other.pid})
        assert kill_leftovers(rundir) == ["store"]
        assert ours.wait(10) != 0 and other.poll() is None
        assert not rundir.children_file.exists()
    finally:
        for proc in (ours, other):
            proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


def test_restart_backoff_doubles_then_resets(tmp_path: Path) -> None:
    child = Child("x", ["true"], tmp_path / "x.log", tmp_path / "x.ready")
    child.backoff.started = 100.0
    delays = [child.backoff.schedule(101.0) for _ in range(7)]
    assert delays == [1, 2, 4, 8, 16, MAX_BACKOFF, MAX_BACKOFF]
    assert child.backoff.schedule(100.0 + 31) == 1  # it had run long enough: start over
