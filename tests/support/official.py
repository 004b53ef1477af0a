"""The official TrustGraph client (``trustgraph-cli``, pinned in pyproject.toml's ``official``
extra), run as a TrustGraph user would run it against our gateway.

Its ``tg-*`` commands have our names, so it lives in a venv of its own, made once by
``scripts/official-client`` (``.venv-official``, or ``TG_OFFICIAL_VENV``); its commands are
called by path, never from PATH. Where it cannot be installed the tests skip, unless
``TG_REQUIRE_OFFICIAL`` is set (``.ci/run`` sets it): then they fail.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.stack import CLI_TIMEOUT, CliResult, Stack, run_argv

ROOT = Path(__file__).resolve().parents[2]


def official_bin() -> Path:
    """The bin directory of the official client's venv (installed on first use)."""
    done = subprocess.run(
        [str(ROOT / "scripts" / "official-client")], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        why = f"the official TrustGraph client could not be installed: {done.stderr.strip()[-300:]}"
        if os.environ.get("TG_REQUIRE_OFFICIAL"):
            pytest.fail(why)
        pytest.skip(why)
    return Path(done.stdout.strip().splitlines()[-1])


async def run_official(
    bin_dir: Path, stack: Stack, name: str, *args: str, timeout: float = CLI_TIMEOUT
) -> CliResult:
    """Run official command ``name`` against ``stack``'s gateway (TRUSTGRAPH_URL, as its users do)."""
    argv = [str(bin_dir / name), *args]
    return await run_argv(argv, env=stack.env, timeout=timeout, unset=("VIRTUAL_ENV",))
