"""A launcher that dies: its children die with it, tg-stop stops what is left, and the next
tg-start works the first time (no RocksDB lock or port held by leftovers)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.launcher import publish, query
from tests.support.poll import eventually
from tests.support.stack import run_cli
from trustgraph_base.messaging import EmbeddedBroker, free_port
from trustgraph_flow.launcher.rundir import RunDir, _ours, kill_leftovers, record_children


async def gone(rundir: RunDir, pids: list[int], timeout: float = 30) -> list[int]:
    """Wait until none of ``pids`` is a live process of ``rundir``; those still alive."""

    async def check() -> list[int]:
        return [pid for pid in pids if _ours(pid, rundir)]

    return await eventually(check, lambda alive: not alive, timeout)


@pytest.fixture
def rundir(tmp_path: Path) -> Iterator[RunDir]:
    """A run directory whose leftovers are stopped at teardown, whatever the test did."""
    rd = RunDir(tmp_path / "tg")
    rd.make()
    yield rd
    kill_leftovers(rd)


async def test_children_die_with_a_killed_launcher(start, rundir: RunDir) -> None:  # type: ignore[no-untyped-def]
    port = free_port()
    first = await start(rundir.root, port)
    await first.wait_for("explaingraph is up:")
    children: dict[str, int] = json.loads(rundir.children_file.read_text())
    assert {"broker", "store", "gateway", "agent"} <= set(children)

    first.proc.send_signal(signal.SIGKILL)
    await first.proc.wait()
    assert await gone(rundir, list(children.values())) == []

    code, _, err = await run_cli("tg-stop", "--data-dir", str(rundir.root))
    assert code == 1 and "not running" in err and "stale pid file" in err

    second = await start(rundir.root, port)
    await second.wait_for("explaingraph is up:")
    await publish(rundir.root)
    url = f"http://localhost:{port}/"
    found = await eventually(lambda: query(url), lambda r: "hello" in r[1])
    assert found[0] == 0 and "hello" in found[1]
    code, out, _ = await run_cli("tg-stop", "--data-dir", str(rundir.root))
    assert code == 0 and out.endswith("explaingraph stopped.\n")


def leftovers(rundir: RunDir, gateway_port: int) -> tuple[EmbeddedBroker, subprocess.Popen[bytes]]:
    """What a launcher killed before it could stop anything leaves: a broker holding the
    RocksDB lock and its port, and a process holding the gateway port."""
    broker = EmbeddedBroker(rundir.broker, new_session=True).start()
    rundir.broker_port_file.write_text(str(broker.port))
    holder = (
        "import socket, sys, time; s = socket.socket(); "
        "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
        f"s.bind(('127.0.0.1', {gateway_port})); s.listen(); time.sleep(300)"
    )
    gateway = subprocess.Popen(
        [sys.executable, "-c", holder, str(rundir.root)], start_new_session=True
    )
    assert broker.proc is not None
    record_children(rundir, {"broker": broker.proc.pid, "gateway": gateway.pid})
    rundir.pid_file.write_text("999999\n")  # the dead launcher's
    return broker, gateway


async def wait_listening(port: int) -> None:
    async def connect() -> bool:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return False
        writer.close()
        return True

    assert await eventually(connect, bool, 15)


async def test_stop_stops_what_a_dead_launcher_left(rundir: RunDir) -> None:
    port = free_port()
    broker, gateway = leftovers(rundir, port)
    try:
        await wait_listening(port)
        code, out, err = await run_cli("tg-stop", "--data-dir", str(rundir.root))
        assert code == 0, err
        assert out == f"the launcher on {rundir.root} had died; stopped broker, gateway.\n"
        # stopped by tg-stop's SIGTERM (the sleeping holder dies of it), not left for SIGKILL
        assert broker.proc is not None and broker.proc.wait(10) in (0, -signal.SIGTERM)
        assert gateway.wait(10) == -signal.SIGTERM
        assert not rundir.pid_file.exists() and not rundir.children_file.exists()
    finally:
        broker.stop()
        gateway.kill()
        gateway.wait()


async def test_start_after_a_crash_works_the_first_time(start, rundir: RunDir) -> None:  # type: ignore[no-untyped-def]
    port = free_port()
    broker, gateway = leftovers(rundir, port)
    try:
        await wait_listening(port)
        launcher = await start(rundir.root, port)
        line = await launcher.wait_for("stopped what a dead launcher left running")
        assert line.endswith("broker, gateway")
        await launcher.wait_for("explaingraph is up:")
        assert gateway.poll() is not None
        await publish(rundir.root)
        found = await eventually(
            lambda: query(f"http://localhost:{port}/"), lambda r: "hello" in r[1]
        )
        assert "hello" in found[1]
        launcher.proc.send_signal(signal.SIGHUP)  # the terminal closed: a clean stop
        assert await asyncio.wait_for(launcher.proc.wait(), 30) == 0
        assert "explaingraph stopped." in await launcher.wait_for("stopped.")
        assert not rundir.children_file.exists()
    finally:
        broker.stop()
        gateway.kill()
        gateway.wait()
