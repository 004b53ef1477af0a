"""``oxigraph serve`` for the tests: the store's server backend (``TG_TEST_STORE=server``),
or its sharded backend over three of them (``TG_TEST_STORE=sharded``).

With ``TG_TEST_STORE=server`` every test gets a fresh in-memory Oxigraph server on a free
loopback port and ``TG_STORE_URI`` pointing at it (the ``store_server`` fixture), so each
store processor the test starts (in process, as a subprocess, or under tg-start) keeps its
collections there instead of on disk. A fixture that outlives one test (a module's stack)
takes a server of its own from ``shared_store_uri``; a test that writes a store itself uses
``store_backend``; one of embedded-only machinery is marked ``embedded_only``. The binary
comes with the ``oxigraph`` package (the test extras). ``TG_TEST_STORE=sharded`` is the same
with three servers per test (``TG_STORE_URI`` names the three: collections are placed on
them by the table on the first, docs/store.md "Sharded").
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from trustgraph_base.messaging import free_port
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.sparql.client import SparqlServer


class Counting(SparqlServer):
    """The real client, counting the requests it sends."""

    requests = 0

    def _post(self, *args: Any, **kwargs: Any) -> bytes:
        self.requests += 1
        return super()._post(*args, **kwargs)


def store_mode() -> str:
    """Where this run keeps the store: ``embedded``, ``server`` or ``sharded`` (``TG_TEST_STORE``)."""
    mode = os.environ.get("TG_TEST_STORE", "embedded")
    if mode not in ("embedded", "server", "sharded"):
        raise ValueError(f"TG_TEST_STORE={mode!r}: expected 'embedded', 'server' or 'sharded'")
    return mode


def server_mode() -> bool:
    """Whether this run keeps the store on SPARQL servers (``TG_TEST_STORE=server`` or ``sharded``)."""
    return store_mode() != "embedded"


SHARDS = 3  # servers of a sharded run


@contextmanager
def store_servers() -> Iterator[str]:
    """The ``store_uri`` of this run's mode: one ``oxigraph serve``, or three (sharded)."""
    with contextlib.ExitStack() as stack:
        count = SHARDS if store_mode() == "sharded" else 1
        yield " ".join(stack.enter_context(oxigraph_server()) for _ in range(count))


def oxigraph_binary() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(found).exists():
        raise RuntimeError("TG_TEST_STORE=server needs the oxigraph server: pip install oxigraph")
    return found


@contextmanager
def oxigraph_server(
    location: Path | None = None, timeout_s: int = 30, port: int | None = None
) -> Iterator[str]:
    """A running ``oxigraph serve`` (in memory unless ``location``; on a free port unless
    ``port``, e.g. a killed server's again), its base URL while open."""
    port = port or free_port()
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


_opened: list[Backend] = []


def store_backend(path: Path, capacity: int = 32, uri: str | None = None) -> Backend:
    """The backend a store processor of this test would use: embedded stores under ``path``,
    or (``TG_TEST_STORE=server``) the collections on the test's own ``oxigraph serve``
    (``TG_STORE_URI``, set by the ``store_server`` fixture; ``uri``: a module's, from
    ``shared_store_uri``). Closed when the test ends."""
    from trustgraph_flow.store.backends.embedded.stores import Stores
    from trustgraph_flow.store.backends.server.stores import RemoteStores
    from trustgraph_flow.store.backends.sharded.opening import open_sharded
    from trustgraph_flow.store.sparql.client import SparqlServer

    backend: Backend
    if store_mode() == "sharded":
        backend = open_sharded(uri or os.environ["TG_STORE_URI"], 30)
    elif server_mode():
        url = uri or os.environ.get("TG_STORE_URI")
        if not url:
            raise RuntimeError(
                "TG_TEST_STORE=server but no TG_STORE_URI: use the store_server fixture"
            )
        backend = RemoteStores(SparqlServer(url))
    else:
        backend = Stores(path, capacity=capacity)
    _opened.append(backend)
    return backend


def close_backends() -> None:
    """Close every backend ``store_backend`` opened (the ``store_server`` fixture's teardown)."""
    while _opened:
        _opened.pop().close()


@contextmanager
def shared_store_uri() -> Iterator[str | None]:
    """For a fixture wider than one test (a module's stack): with ``TG_TEST_STORE=server`` an
    ``oxigraph serve`` of its own for as long as the fixture lives, its URL to hand to the
    stack's store as ``store_uri``; ``None`` on the embedded default."""
    if not server_mode():
        yield None
        return
    with store_servers() as url:
        yield url


def embedded_only(why: str) -> pytest.MarkDecorator:
    """Skip a test of the embedded backend's own machinery when the store is on a server."""
    return pytest.mark.skipif(server_mode(), reason=f"embedded store only: {why}")
