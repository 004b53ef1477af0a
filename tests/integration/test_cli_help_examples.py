"""Every read-only command's --help examples run as written, in order, in one shell, against
the samples loaded and answered as a new user would: each exits 0 (the ids are real: a
sample's document id, or the newest trace read from tg-list-explain-traces)."""

from __future__ import annotations

import asyncio
import os
import sys
from importlib import import_module
from pathlib import Path

from tests.support.processors import EVERY
from tests.support.stack import Stack, stack_fixture
from tests.support.traces import load, loaded_and_answered
from tests.unit.test_cli_vocabulary import CLICK

stack = stack_fixture(EVERY)

# Commands that change what they act on (remove, delete, purge, keys) or need the user's own
# files are left out; their examples parse (test_cli_vocabulary).
READ_ONLY = [
    "tg-diff-explain-traces",
    "tg-export-explain-trace",
    "tg-list-documents",
    "tg-list-explain-traces",
    "tg-query-triples",
    "tg-show-document-hierarchy",
    "tg-show-explain-trace",
    "tg-show-source-usage",
    "tg-sparql",
    "tg-validate-explain-trace",
    "tg-verify-explain-trace",
]


def example_lines(name: str) -> list[str]:
    """The epilog's example lines: commands, and the shell assignments they read."""
    module, attr = CLICK[name].split(":")
    epilog = getattr(import_module(module), attr).epilog or ""
    lines = [ln.strip() for ln in epilog.splitlines()]
    return [ln for ln in lines if ln.startswith(name + " ") or ln.split("=", 1)[0].isidentifier()]


async def test_read_only_help_examples_run_as_written(stack: Stack, tmp_path: Path) -> None:
    await loaded_and_answered(stack.url)
    # The examples name a second collection, 'research' (of trustgraph's and of alice's), as
    # a user's own: it exists, or the list commands refuse it as a typo (c3129f9).
    await load(stack.url, "capitals.txt", "-C", "research")
    await load(stack.url, "capitals.txt", "-U", "alice", "-C", "research")
    (tmp_path / "query.rq").write_text("SELECT * WHERE { ?s ?p ?o } LIMIT 3\n")
    env = {**os.environ, **stack.env}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    for name in READ_ONLY:
        lines = example_lines(name)
        assert any(ln.startswith(name) for ln in lines), name
        for n in range(len(lines)):
            if not lines[n].startswith(name):
                continue
            # Each example after the assignments above it, so a failure names its line.
            script = "\n".join(
                ["set -eu", *(ln for ln in lines[:n] if not ln.startswith(name)), lines[n]]
            )
            proc = await asyncio.create_subprocess_exec(
                "bash", "-c", script, cwd=tmp_path, env=env,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await asyncio.wait_for(proc.communicate(), 120)
            assert proc.returncode == 0, (lines[n], err.decode()[-2000:])
            assert out.strip() or (tmp_path / "trace.trig").exists(), lines[n]
