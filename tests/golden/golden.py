"""Compare command output with the files in tests/golden/ (``TG_UPDATE_GOLDEN=1`` rewrites them)."""

from __future__ import annotations

import asyncio
import os
import re
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


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
_LATENCY = re.compile(r'(\d+ ms\b|"latency_ms": [0-9.]+)')


def normalise(text: str, keep_time: str) -> str:
    """Mask what a real run cannot fix: sub-trace uuids, their clock times, latencies."""
    text = _UUID.sub("<uuid>", text)
    text = _TIME.sub(lambda m: m.group() if m.group() == keep_time else "<time>", text)
    return _LATENCY.sub(
        lambda m: '"latency_ms": 0' if m.group().startswith('"') else "<n> ms", text
    )
