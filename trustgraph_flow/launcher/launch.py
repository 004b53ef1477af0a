"""One run of the embedded stack under tg-start: the broker, a relay per process, every
processor and the gateway, supervised until told to stop."""

from __future__ import annotations

import os
import signal
import time
import urllib.error
import urllib.request
from types import FrameType
from typing import Any

from trustgraph_flow.launcher.ports import broker_port
from trustgraph_flow.launcher.preflight import importable, llm_line, say, stack_lines
from trustgraph_flow.launcher.relay import Relays
from trustgraph_flow.launcher.rundir import RunDir, record_children, write_json
from trustgraph_flow.launcher.supervise import BrokerWatch, Child, Supervisor, python_module

STARTUP_TIMEOUT = 60.0
GATEWAY = "gateway"


class Launch:
    """One run of the stack, from broker start to the last child stopped."""

    def __init__(
        self, rundir: RunDir, port: int, host: str | None, broker_port: int | None = None
    ) -> None:
        self.rundir = rundir
        self.port = port
        self.host = host
        self.wanted_broker_port = broker_port
        self.stopping = False
        self.health: dict[str, dict[str, Any]] = {}
        # Every process up: each state stays so until one exits (a tick says so), and the
        # health file need not be written again (its looks were most of the idle
        # launcher's 0.2 s tick: a poll and a ready file's stat per child).
        self.settled = False

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def run(self) -> int:
        """Start everything, serve until told to stop, stop everything; the exit code."""
        from trustgraph_base.messaging import EmbeddedBroker

        # SIGHUP (the terminal closed) stops the stack cleanly, like Ctrl-C and tg-stop.
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_signal)
        say(f"starting explaingraph (data in {self.rundir.root})")
        say(llm_line())
        for line in stack_lines():
            say(line)
        broker = EmbeddedBroker(
            self.rundir.broker,
            port=self.broker_port(),
            log_path=self.rundir.log_file("broker"),
            new_session=True,
            with_parent=True,
        )
        try:
            broker.start()
        except Exception as exc:
            say(f"Error: the broker did not start: {exc} (see {self.rundir.log_file('broker')})")
            return 1
        self.rundir.broker_port_file.write_text(str(broker.port))
        record_children(self.rundir, {"broker": broker.proc.pid} if broker.proc else {})
        say(f"broker up on {broker.url}")
        relays = Relays(broker.port)  # each process's own way to the broker (relay.py)
        supervisor = Supervisor(self.children(relays))
        try:
            return self.serve(supervisor, BrokerWatch(broker))
        finally:
            say("stopping…")
            killed = supervisor.stop_all()
            if killed:
                say(f"killed (did not stop in time): {', '.join(killed)}")
            relays.stop()
            broker.stop()
            self.rundir.children_file.unlink(missing_ok=True)
            self.rundir.health_file.unlink(missing_ok=True)
            say("explaingraph stopped.")

    def broker_port(self) -> int:
        """``--broker-port``, else the port used last time if it is still free, else a free one."""
        return broker_port(self.wanted_broker_port, self.rundir.broker_port_file)

    def children(self, relays: Relays) -> list[Child]:
        """Every available processor from the registry, then the gateway; each reaches the
        broker through a relay of its own."""
        from trustgraph_flow.registry import OPTIONAL, PROCESSORS

        wanted = dict(PROCESSORS)
        wanted |= {name: module for name, (module, env) in OPTIONAL.items() if os.environ.get(env)}
        wanted[GATEWAY] = "trustgraph_flow.gateway.server"
        out: list[Child] = []
        for name, module in wanted.items():
            if not importable(module):
                say(f"skipping {name}: module {module} is not available")
                continue
            ready = self.rundir.ready_file(name)
            flags = ["--pulsar-url", relays.add(), "--data-dir", str(self.rundir.data)]
            flags += ["--ready-file", str(ready)]
            if name == GATEWAY:
                flags += ["--health-file", str(self.rundir.health_file)]
                flags += ["--port", str(self.port)] + (["--host", self.host] if self.host else [])
            argv = python_module(module, *flags)
            out.append(Child(name, argv, self.rundir.log_file(name), ready))
        return out

    def serve(self, supervisor: Supervisor, broker: BrokerWatch) -> int:
        say(f"starting {len(supervisor.children)} processes (logs in {self.rundir.logs})")
        supervisor.start_all()
        self.record(supervisor, broker)
        if not self.wait_ready(supervisor, broker):
            return 0 if self.stopping else 1
        say(
            f"explaingraph is up: http://localhost:{self.port}/ "
            f"(data in {self.rundir.root}). Ctrl-C to stop."
        )
        say(f"trace viewer: open http://localhost:{self.port}/ in a browser")
        while not self.stopping:
            changed = broker.tick(say)
            # A killed processor's relay frees its subscriptions: it alone is restarted.
            changed = supervisor.tick(say) or changed
            if changed:
                self.record(supervisor, broker)
            if changed or not self.settled:  # all up: only an exit or a restart moves a state
                self.report(supervisor, broker)
            time.sleep(0.2)
        return 0

    def report(self, supervisor: Supervisor, broker: BrokerWatch) -> None:
        """Write every process's state for the gateway's health answer (when it changed)."""
        now: dict[str, dict[str, Any]] = {"broker": broker.state(), **supervisor.states()}
        if now != self.health:
            write_json(self.rundir.health_file, now)
            self.health = now
        self.settled = all(state["state"] == "up" for state in now.values())

    def record(self, supervisor: Supervisor, broker: BrokerWatch) -> None:
        pids = supervisor.pids()
        if broker.pid is not None:
            pids["broker"] = broker.pid
        record_children(self.rundir, pids)

    def wait_ready(self, supervisor: Supervisor, broker: BrokerWatch) -> bool:
        """Report each child as it becomes ready; False if the gateway never answers."""
        pending = {c.name: c for c in supervisor.children}
        total = len(pending)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while pending and not self.stopping and time.monotonic() < deadline:
            gateway = pending.get(GATEWAY)
            if gateway is not None and gateway.exited() is not None:
                # Without the gateway nothing is usable: say why at once, don't retry.
                say(f"Error: the gateway exited while starting:\n{gateway.tail()}")
                return False
            for name, child in list(pending.items()):
                if child.ready:
                    del pending[name]
                    say(f"ready: {name} ({total - len(pending)}/{total})")
            if broker.tick(say) | supervisor.tick(say):
                self.record(supervisor, broker)
            self.report(supervisor, broker)
            time.sleep(0.1)
        if self.stopping:
            return False
        for name, child in pending.items():
            say(f"warning: {name} is not ready after {STARTUP_TIMEOUT:.0f}s — see {child.log_path}")
        if GATEWAY in pending or not self.healthy():
            say(f"Error: the gateway did not come up — see {self.rundir.log_file(GATEWAY)}")
            return False
        return True

    def healthy(self) -> bool:
        url = f"http://127.0.0.1:{self.port}/api/v1/health"
        if self.host not in (None, "", "0.0.0.0", "127.0.0.1"):
            url = f"http://{self.host}:{self.port}/api/v1/health"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
        try:
            with opener.open(url, timeout=5) as resp:
                return bool(resp.status == 200)
        except urllib.error.HTTPError as exc:
            exc.close()  # its response, unread, holds the connection's socket
            return exc.code == 503  # it answers, and reports something down
        except OSError:
            return False
