"""Node and the JavaScript packages in tests/js (``npm ci`` there), for the tests that drive
real JavaScript clients against the gateway. Without them a test skips, unless
``TG_REQUIRE_TS_CLIENT`` is set (``.ci/run`` sets it): then it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[1] / "js"


def node(package: str) -> list[str]:
    """The node command line, with ``package`` installed in tests/js (else skip, or fail in CI)."""
    found = shutil.which("node")
    why = ""
    if found is None:
        why = "node is not installed"
    elif not (JS / "node_modules" / package).is_dir():
        why = f"{package} is not installed: run `npm ci` in tests/js"
    if why:
        if os.environ.get("TG_REQUIRE_TS_CLIENT"):
            pytest.fail(why)
        pytest.skip(why)
    assert found is not None
    major = int(subprocess.run([found, "--version"], capture_output=True, text=True).stdout[1:3])
    flags = ["--experimental-websocket"] if major < 22 else []  # WebSocket is global from 22
    return [found, *flags, "--no-warnings"]
