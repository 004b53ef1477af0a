"""Start and stop the embedded ``pulsar-lite`` broker on a free loopback port.

Its metrics HTTP endpoint binds 0.0.0.0:8080 by default; we always write a config file
that moves it to a free loopback port, so two stacks (or a test run) never collide.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from trustgraph_base.errors import BrokerUnavailable
from trustgraph_base.process import die_with_parent

LOCAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
BELOW = 12_000  # how many ports under the kernel's own range free ports are taken from


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now, taken below the kernel's ephemeral
    range where it can: a port found by binding port 0 is handed out again by the kernel
    to the next port-0 bind or outgoing connection (a client's own end), so on a busy
    machine it was often taken again before the program it was meant for listened on it
    (``scripts/demo``'s gateway: "address already in use" in one run of two)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        low = int(LOCAL_RANGE.read_text().split()[0])
        if low - BELOW > 1024:
            for port in random.SystemRandom().sample(range(low - BELOW, low), 50):  # forks too
                with (
                    socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s,
                    contextlib.suppress(OSError),
                ):
                    s.bind(("127.0.0.1", port))
                    return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        found: int = s.getsockname()[1]
        return found


def broker_binary() -> str:
    """Path of the broker binary shipped by the ``pulsar-lite`` package."""
    from pulsar_lite.binary_finder import find_pulsar_lite_binary

    path: str = find_pulsar_lite_binary()
    return path


def wait_for_port(
    host: str, port: int, timeout: float, proc: subprocess.Popen[bytes] | None = None
) -> None:
    """Block until ``host:port`` accepts TCP connections; raise ``BrokerUnavailable`` if not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise BrokerUnavailable(
                f"broker exited with code {proc.returncode} before it was ready"
            )
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.25):
            return
        time.sleep(0.05)
    raise BrokerUnavailable(f"broker did not accept connections on {host}:{port} within {timeout}s")


@dataclass
class EmbeddedBroker:
    """A running pulsar-lite broker; ``url`` is its ``pulsar://`` address."""

    data_dir: Path
    port: int = 0
    metrics_port: int = 0
    log_path: Path | None = None
    # A launcher runs it in its own session, so a terminal's Ctrl-C reaches the launcher
    # alone and the broker is stopped last, after the processors have drained.
    new_session: bool = False
    # A launcher's broker dies with the launcher (see die_with_parent).
    with_parent: bool = False
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"pulsar://127.0.0.1:{self.port}"

    def start(self, timeout: float = 15.0) -> EmbeddedBroker:
        """Start the broker (a fresh free port unless one was given) and wait until it listens."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        self.metrics_port = self.metrics_port or free_port()
        config = self.data_dir / "pulsar-lite.toml"
        config.write_text(f'[metrics]\nenabled = true\naddr = "127.0.0.1:{self.metrics_port}"\n')
        log_path = self.log_path or self.data_dir / "broker.log"
        self._log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [
                broker_binary(),
                "--config",
                str(config),
                "--addr",
                f"127.0.0.1:{self.port}",
                "--db-path",
                str(self.data_dir / "db"),
                "--log-level",
                os.environ.get("TG_BROKER_LOG_LEVEL", "warn"),
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=str(self.data_dir),
            start_new_session=self.new_session,
            preexec_fn=die_with_parent() if self.with_parent else None,
        )
        try:
            wait_for_port("127.0.0.1", self.port, timeout, self.proc)
        except BrokerUnavailable:
            self.stop()
            raise
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the broker (SIGTERM, then SIGKILL after ``timeout``)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
