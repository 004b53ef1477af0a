"""tg-start: run the embedded stack in the foreground — broker, every processor, the gateway."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import click

from trustgraph_base.usage import command
from trustgraph_flow.launcher.launch import Launch
from trustgraph_flow.launcher.ports import bind_problem
from trustgraph_flow.launcher.preflight import key_problem, say
from trustgraph_flow.launcher.rundir import Lock, RunDir, default_data_dir, kill_leftovers

EPILOG = """\b
Examples:
  tg-start                              # data in ~/.local/share/explaingraph, port 8088
  tg-start --data-dir ./demo --port 8090 --broker-port 6651
  TG_PORT=8090 TG_BROKER_PORT=6651 tg-start            # the same, from the environment
  TG_LLM_BASE_URL=http://localhost:8000/v1 tg-start   # LLM settings pass through the environment
  TG_GATEWAY_TOKEN=s3cret tg-start --host 0.0.0.0      # clients then need --token s3cret
Stop it with Ctrl-C, or 'tg-stop' (same --data-dir) from another terminal.
"""


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
        problem = problem or key_problem(rundir.data)
        if problem:
            raise click.ClickException(problem)
        rundir.pid_file.write_text(f"{os.getpid()}\n")
        code = Launch(rundir, port, host, broker_port).run()
    finally:
        rundir.pid_file.unlink(missing_ok=True)
        lock.release()
    sys.exit(code)


if __name__ == "__main__":
    main()
