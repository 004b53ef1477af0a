"""tg-start: run the embedded stack in the foreground — broker, every processor, the gateway."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shlex
import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType

import click

from trustgraph_base.usage import command
from trustgraph_flow.launcher.ports import bind_problem, broker_port
from trustgraph_flow.launcher.rundir import (
    Lock,
    RunDir,
    default_data_dir,
    kill_leftovers,
    record_children,
    write_json,
)
from trustgraph_flow.launcher.supervise import BrokerWatch, Child, Supervisor, python_module

STARTUP_TIMEOUT = 60.0
GATEWAY = "gateway"

EPILOG = """\b
Examples:
  tg-start                              # data in ~/.local/share/explaingraph, port 8088
  tg-start --data-dir ./demo --port 8090 --broker-port 6651
  TG_PORT=8090 TG_BROKER_PORT=6651 tg-start            # the same, from the environment
  TG_LLM_BASE_URL=http://localhost:8000/v1 tg-start   # LLM settings pass through the environment
  TG_GATEWAY_TOKEN=s3cret tg-start --host 0.0.0.0      # clients then need --token s3cret
Stop it with Ctrl-C, or 'tg-stop' (same --data-dir) from another terminal.
"""


def say(message: str) -> None:
    # After SIGHUP the terminal may be gone: stopping must go on without it.
    with contextlib.suppress(OSError):
        click.echo(message)
        sys.stdout.flush()


def llm_line() -> str:
    """Where answers will come from, as the text-completion processor will read its settings."""
    from pydantic import ValidationError

    from trustgraph_flow.llm.processor import Settings

    try:
        llm = Settings()
    except ValidationError as exc:
        return f"warning: the LLM settings are invalid ({exc.error_count()} errors); see logs"
    if llm.llm_base_url:
        return f"answers come from the LLM at {llm.llm_base_url} (model {llm.llm_model})"
    return (
        "answers come from the offline engine (no LLM configured): to use a real LLM, "
        "set TG_LLM_BASE_URL and TG_LLM_MODEL (e.g. TG_LLM_BASE_URL=http://localhost:11434/v1 "
        "TG_LLM_MODEL=llama3.2 for Ollama) before tg-start; README: Using a real LLM"
    )


def importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


@command(epilog=EPILOG)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the broker, store, documents and logs live [default: per-user data dir].",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8088,
    show_default=True,
    envvar="TG_PORT",
    help="Gateway port (env TG_PORT).",
)
@click.option(
    "--broker-port",
    type=click.IntRange(1, 65535),
    default=None,
    envvar="TG_BROKER_PORT",
    help="Broker port (env TG_BROKER_PORT) [default: the one used last time if free, else any].",
)
@click.option("--host", default=None, help="Gateway interface (default 127.0.0.1 without a token).")
def main(data_dir: Path | None, port: int, broker_port: int | None, host: str | None) -> None:
    """Start the broker, every processor and the gateway; stop them all on Ctrl-C or tg-stop."""
    os.umask(0o077)  # the data folder, logs and the broker's files: private to their owner
    rundir = RunDir((data_dir or default_data_dir()).expanduser().resolve())
    rundir.make()
    rundir.root.chmod(0o700)  # also closes a folder made before the umask (0755 then)
    lock = Lock(rundir)
    if not lock.acquire():
        pid = rundir.read_pid()
        raise click.ClickException(
            f"explaingraph is already running on {rundir.root} (pid {pid}); stop it with "
            f"'tg-stop --data-dir {shlex.quote(str(rundir.root))}', or start another with "
            "a different --data-dir"
        )
    try:
        # A launcher that died (kill -9, a crash) left its pid file, maybe children too:
        # stop them and wait, so their locks and ports are free before anything starts.
        left = kill_leftovers(rundir)
        if left:
            say(f"stopped what a dead launcher left running: {', '.join(left)}")
        if rundir.pid_file.exists():
            rundir.pid_file.unlink()
            say(f"removed a stale pid file from {rundir.root}")
        problem = bind_problem(port, host or "127.0.0.1")
        if broker_port is not None and not problem:
            problem = bind_problem(broker_port, flag="--broker-port")
        if problem:
            raise click.ClickException(problem)
        rundir.pid_file.write_text(f"{os.getpid()}\n")
        code = Launch(rundir, port, host, broker_port).run()
    finally:
        rundir.pid_file.unlink(missing_ok=True)
        lock.release()
    sys.exit(code)


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
        self.health: dict[str, object] = {}

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
        supervisor = Supervisor(self.children(broker.url))
        try:
            return self.serve(supervisor, BrokerWatch(broker))
        finally:
            say("stopping…")
            killed = supervisor.stop_all()
            if killed:
                say(f"killed (did not stop in time): {', '.join(killed)}")
            broker.stop()
            self.rundir.children_file.unlink(missing_ok=True)
            self.rundir.health_file.unlink(missing_ok=True)
            say("explaingraph stopped.")

    def broker_port(self) -> int:
        """``--broker-port``, else the port used last time if it is still free, else a free one."""
        return broker_port(self.wanted_broker_port, self.rundir.broker_port_file)

    def children(self, pulsar_url: str) -> list[Child]:
        """Every available processor from the registry, then the gateway."""
        from trustgraph_flow.registry import PROCESSORS

        wanted = dict(PROCESSORS)
        wanted[GATEWAY] = "trustgraph_flow.gateway.server"
        out: list[Child] = []
        for name, module in wanted.items():
            if not importable(module):
                say(f"skipping {name}: module {module} is not available")
                continue
            ready = self.rundir.ready_file(name)
            flags = ["--pulsar-url", pulsar_url, "--data-dir", str(self.rundir.data)]
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
            changed = supervisor.tick(say) or changed
            crashed = supervisor.take_crashed()
            if crashed and broker.up:
                names = ", ".join(crashed)
                broker.bounce(
                    say,
                    f"{names} was killed; only a restart makes it drop the dead "
                    "process's subscriptions and redeliver what it held",
                )
                changed = True
            if changed:
                self.record(supervisor, broker)
            self.report(supervisor, broker)
            time.sleep(0.2)
        return 0

    def report(self, supervisor: Supervisor, broker: BrokerWatch) -> None:
        """Write every process's state for the gateway's health answer (when it changed)."""
        now: dict[str, object] = {"broker": broker.state(), **supervisor.states()}
        if now != self.health:
            write_json(self.rundir.health_file, now)
            self.health = now

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
            return exc.code == 503  # it answers, and reports something down
        except OSError:
            return False


if __name__ == "__main__":
    main()
