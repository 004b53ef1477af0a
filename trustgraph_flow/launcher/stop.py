"""tg-stop: ask the tg-start running on a data directory to stop, and wait until it has."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import click

from trustgraph_base.usage import command
from trustgraph_flow.launcher.rundir import (
    RunDir,
    default_data_dir,
    held_by_other,
    kill_leftovers,
)

STOP_TIMEOUT = 60.0


@command(epilog="\b\nExample:\n  tg-stop --data-dir ./demo")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The data directory tg-start runs on [default: per-user data dir].",
)
def main(data_dir: Path | None) -> None:
    """Stop the explaingraph stack started by tg-start on the same data directory."""
    rundir = RunDir((data_dir or default_data_dir()).expanduser().resolve())
    if not rundir.lock_file.exists() and not rundir.pid_file.exists():  # look, create nothing
        where = "no such directory" if not rundir.root.exists() else "tg-start never ran there"
        raise click.ClickException(f"explaingraph is not running on {rundir.root} ({where})")
    pid = rundir.read_pid()
    if not held_by_other(rundir):
        # No launcher: it may have died (kill -9) and left children serving.
        left = kill_leftovers(rundir)
        stale = rundir.pid_file.exists()
        rundir.pid_file.unlink(missing_ok=True)
        if left:
            click.echo(f"the launcher on {rundir.root} had died; stopped {', '.join(left)}.")
            sys.exit(0)
        if stale:
            raise click.ClickException(
                f"explaingraph is not running on {rundir.root} (removed a stale pid file)"
            )
        raise click.ClickException(f"explaingraph is not running on {rundir.root}")
    if pid is None:
        raise click.ClickException(f"a launcher holds {rundir.root} but wrote no pid file")
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        raise click.ClickException(f"no process {pid} (from {rundir.pid_file})") from None
    click.echo(f"stopping explaingraph (pid {pid})…")
    deadline = time.monotonic() + STOP_TIMEOUT
    while held_by_other(rundir):
        if time.monotonic() > deadline:
            raise click.ClickException(f"pid {pid} is still stopping after {STOP_TIMEOUT:.0f}s")
        time.sleep(0.1)
    click.echo("explaingraph stopped.")
    sys.exit(0)


if __name__ == "__main__":
    main()
