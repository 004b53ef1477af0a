"""Compare command output with the files in tests/golden/ (``TG_UPDATE_GOLDEN=1`` rewrites them)."""

from __future__ import annotations

import asyncio
import os
from importlib import import_module
from pathlib import Path

from tests.support.stack import CliResult

HERE = Path(__file__).resolve().parent
# Piped commands wrap to this width; fixed so that golden text is the same on every machine.
ENV = {"COLUMNS": "100", "NO_COLOR": "1"}


def check(name: str, text: str) -> None:
    """Assert ``text`` equals golden file ``name`` (or write it when updating)."""
    path = HERE / name
    if os.environ.get("TG_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {name}: run with TG_UPDATE_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"output differs from golden {name}:\n{text}"


async def invoke(url: str, name: str, *args: str, env: dict[str, str] | None = None) -> CliResult:
    """Run command ``name`` in this process (in a worker thread, so this loop keeps serving).

    The same click command as the console script, without a new interpreter's start-up
    cost; each test file still runs some commands as real subprocesses (``Stack.cli``).
    """
    from click.testing import CliRunner

    command = import_module("trustgraph_cli." + name.removeprefix("tg-").replace("-", "_")).main
    full_env = {"TRUSTGRAPH_URL": url, **ENV, **(env or {})}
    result = await asyncio.to_thread(CliRunner().invoke, command, list(args), env=full_env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return CliResult(result.exit_code, result.stdout, result.stderr)
