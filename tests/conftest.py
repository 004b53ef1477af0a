"""Shared fixtures: the real broker (pulsar-lite on a free loopback port, or TG_TEST_PULSAR_URL)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from trustgraph_base.messaging import Bus, EmbeddedBroker, Processor, Topics
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.store.core.backend import Backend

# A read of one trace waits up to the store's trace_wait (3 s) for one not stored yet: every
# test asking for an unknown trace id would wait that long. Here 0.3 s (a stack's settings,
# or its own TG_TRACE_WAIT, say otherwise where a test looks at the wait itself).
os.environ.setdefault("TG_TRACE_WAIT", "0.3")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``no_store`` (the broker, the LLM service, the vectors, the real model: no
    triple store in what they test) run once: in the embedded run, not again on servers."""
    from tests.support.sparql_server import server_mode

    if not server_mode():
        return
    skip = pytest.mark.skip(reason="uses no triple store: runs in the embedded run only")
    for item in items:
        if "no_store" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def pulsar_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A running broker for the whole session."""
    external = os.environ.get("TG_TEST_PULSAR_URL")
    if external:
        yield external
        return
    broker = EmbeddedBroker(tmp_path_factory.mktemp("broker"))
    broker.start()
    try:
        yield broker.url
    finally:
        broker.stop()


@pytest.fixture(autouse=True)
def store_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str | None]:
    """With ``TG_TEST_STORE=server``, a fresh ``oxigraph serve`` per test as the store's backend
    (``sharded``: three)."""
    from tests.support.sparql_server import close_backends, server_mode, store_servers

    if not server_mode():
        try:
            yield None
        finally:
            close_backends()
        return
    with store_servers() as url:
        monkeypatch.setenv("TG_STORE_URI", url)
        try:
            yield url
        finally:
            close_backends()


@pytest.fixture(params=["embedded", "server"])
def make_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Backend]]:
    """A factory of store backends over one set of data, for tests run on both: embedded
    stores under tmp_path, or collections on one fresh ``oxigraph serve``."""
    from trustgraph_flow.store.backends.embedded.stores import Stores
    from trustgraph_flow.store.backends.server.stores import RemoteStores
    from trustgraph_flow.store.sparql.client import SparqlServer

    made: list[Backend] = []
    if request.param == "embedded":

        def embedded() -> Backend:
            made.append(Stores(tmp_path / "store"))
            return made[-1]

        yield embedded
    else:
        from tests.support.sparql_server import oxigraph_server

        with oxigraph_server() as url:

            def server() -> Backend:
                made.append(RemoteStores(SparqlServer(url)))
                return made[-1]

            yield server
    for backend in made:
        backend.close()


@pytest.fixture
def prefix() -> str:
    """A fresh topic prefix: each test sees only its own topics."""
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture
def topics(prefix: str) -> Topics:
    return Topics(prefix)


@pytest.fixture
def settings(pulsar_url: str, prefix: str, tmp_path: Path) -> ProcessorSettings:
    return ProcessorSettings(
        pulsar_url=pulsar_url, topic_prefix=prefix, data_dir=str(tmp_path / "data")
    )


@pytest.fixture
async def bus(pulsar_url: str) -> AsyncIterator[Bus]:
    b = Bus(pulsar_url)
    try:
        yield b
    finally:
        await b.close()


class RunningProcessors:
    """Start processors in this event loop and stop them (draining) at teardown."""

    def __init__(self) -> None:
        self._running: list[tuple[asyncio.Event, asyncio.Task[None]]] = []

    async def start(self, proc: Processor[Any, Any], settings: ProcessorSettings) -> None:
        stop, ready = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(proc.run(settings, stop, ready))
        waiter = asyncio.create_task(ready.wait())
        done, _ = await asyncio.wait(
            {waiter, task}, timeout=30, return_when=asyncio.FIRST_COMPLETED
        )
        if task in done:
            waiter.cancel()
            task.result()  # raises the startup failure
        assert waiter in done, f"{proc.name} did not become ready"
        self._running.append((stop, task))

    async def stop_all(self) -> None:
        for stop, _ in self._running:
            stop.set()
        await asyncio.gather(*(t for _, t in self._running), return_exceptions=True)


@pytest.fixture
async def processors() -> AsyncIterator[RunningProcessors]:
    running = RunningProcessors()
    try:
        yield running
    finally:
        await running.stop_all()
