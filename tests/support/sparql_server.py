"""``oxigraph serve`` for the tests: the store's server backend (``TG_TEST_STORE=server``).

With ``TG_TEST_STORE=server`` every test gets a fresh in-memory Oxigraph server on a free
loopback port and ``TG_STORE_URI`` pointing at it, so each store processor the test starts
(in process, as a subprocess, or under tg-start) keeps its collections there instead of on
disk. The binary comes with the ``oxigraph`` package (the test extras).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from trustgraph_base.messaging import free_port


def server_mode() -> bool:
    """Whether this run keeps the store on a SPARQL server (``TG_TEST_STORE=server``)."""
    mode = os.environ.get("TG_TEST_STORE", "embedded")
    if mode not in ("embedded", "server"):
        raise ValueError(f"TG_TEST_STORE={mode!r}: expected 'embedded' or 'server'")
    return mode == "server"


def oxigraph_binary() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(found).exists():
        raise RuntimeError("TG_TEST_STORE=server needs the oxigraph server: pip install oxigraph")
    return found


@contextmanager
def oxigraph_server(location: Path | None = None, timeout_s: int = 30) -> Iterator[str]:
    """A running ``oxigraph serve`` (in memory unless ``location``), its base URL while open."""
    port = free_port()
    args = [
        oxigraph_binary(),
        "serve",
        "--bind",
        f"127.0.0.1:{port}",
        "--timeout-s",
        str(timeout_s),
    ]
    if location is not None:
        args += ["--location", str(location)]
    proc = subprocess.Popen(
        args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/query?query=ASK%7B%7D", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"oxigraph serve did not start: {err}") from None
                time.sleep(0.02)
        yield url
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


def embedded_only(why: str) -> pytest.MarkDecorator:
    """Skip a test of the embedded backend's own machinery when the store is on a server."""
    return pytest.mark.skipif(server_mode(), reason=f"embedded store only: {why}")
