"""A running stack for CLI tests: processors and the gateway on the real broker, in this loop.

    from tests.support.poll import eventually
    from tests.support.stack import Stack, run_cli
    from trustgraph_flow.store.processor import proc as store

    async def test_x(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
        async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
            await stack.publish(TRIPLES_STORE, Triples(...))        # straight onto the bus
            code, out, err = await eventually(
                lambda: stack.cli("tg-query-triples", "-p", "<urn:p>"),
                lambda r: "urn:s" in r.stdout,
            )

- ``Stack(pulsar_url, prefix, processors, *, data_dir, token=None, settings={}, gateway={})``
  starts each ``Processor`` (a processor module's ``proc``) with its own settings class,
  on the session broker under the test's fresh topic ``prefix``, then the gateway on a free
  loopback port. ``settings`` maps a processor name to extra settings fields;
  ``gateway`` holds extra ``GatewaySettings`` fields (limits, ``request_timeout``).
  ``stack.url`` is the gateway URL; ``stack.env`` the environment a command needs
  (``TRUSTGRAPH_URL``, and ``TRUSTGRAPH_TOKEN`` when a token is set).
- ``await stack.cli("tg-…", *args, env=None)`` runs a real command against the stack;
  ``await run_cli("tg-…", *args, env=None)`` runs one with only the given environment.
  Both return ``CliResult(code, stdout, stderr)`` (a tuple) and run the command as a
  subprocess with ``asyncio.create_subprocess_exec``, so this loop keeps serving it.
- ``await eventually(make, check)`` (``tests.support.poll``) retries ``make()`` until
  ``check(result)`` holds, for effects that land asynchronously (the store writing a batch).
Processors stop (draining) and the gateway closes when the ``async with`` block ends.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import sysconfig
import tomllib
from collections.abc import AsyncIterator, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, TypeVar

import pytest
from pydantic import BaseModel

from trustgraph_base.messaging import Bus, Processor, Topic, Topics
from trustgraph_flow.gateway.server import Gateway, GatewaySettings

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
CLI_TIMEOUT = 60.0
ADMIN = "admin-t0ken"  # the admin token of a Stack made with token=ADMIN


class CliResult(NamedTuple):
    code: int
    stdout: str
    stderr: str


def command_line(name: str) -> list[str]:
    """The argv prefix that runs console script ``name`` from this environment."""
    scripts = Path(sysconfig.get_path("scripts"))
    found = shutil.which(name, path=str(scripts)) or shutil.which(
        name, path=str(Path(sys.executable).parent)
    )
    if found:
        return [found]
    installed = entry_points(group="console_scripts", name=name)  # else one added since:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    target = installed[name].value if installed else pyproject["project"]["scripts"][name]
    module, _, attr = target.partition(":")
    code = f"import sys; from {module} import {attr} as m; sys.exit(m())"
    return [sys.executable, "-c", code]


async def run_cli(
    name: str,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float = CLI_TIMEOUT,
) -> CliResult:
    """Run command ``name`` as a subprocess (environment: ours minus gateway vars, plus ``env``)."""
    return await run_argv([*command_line(name), *args], env=env, stdin=stdin, timeout=timeout)


async def run_argv(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float = CLI_TIMEOUT,
    unset: Sequence[str] = (),
) -> CliResult:
    """Run ``argv`` with our environment minus the gateway variables and ``unset``, plus ``env``;
    its code and decoded output (killed and ``TimeoutError`` after ``timeout`` seconds)."""
    dropped = {"TRUSTGRAPH_URL", "TRUSTGRAPH_TOKEN", *unset}
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**base, **(env or {})},
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return CliResult(proc.returncode, out.decode(), err.decode())


class Stack:
    """Processors plus the gateway, started in the current event loop (see module docstring)."""

    def __init__(
        self,
        pulsar_url: str,
        prefix: str,
        processors: Sequence[Processor[Any, Any]] = (),
        *,
        data_dir: Path,
        token: str | None = None,
        settings: dict[str, dict[str, Any]] | None = None,
        gateway: dict[str, Any] | None = None,
    ) -> None:
        self.pulsar_url = pulsar_url
        self.prefix = prefix
        self.topics = Topics(prefix)
        self.processors = list(processors)
        self.data_dir = data_dir
        self.token = token
        self.extra = settings or {}
        self.gateway_extra = gateway or {}
        self.url = ""
        self._running: list[tuple[asyncio.Event, asyncio.Task[None]]] = []
        self._gateway: Gateway | None = None
        self._bus: Bus | None = None

    @property
    def env(self) -> dict[str, str]:
        env = {"TRUSTGRAPH_URL": self.url}
        if self.token:
            env["TRUSTGRAPH_TOKEN"] = self.token
        return env

    async def __aenter__(self) -> Stack:
        try:
            for proc in self.processors:
                await self._start(proc)
            gw_settings = GatewaySettings(
                pulsar_url=self.pulsar_url,
                topic_prefix=self.prefix,
                host="127.0.0.1",
                port=0,
                data_dir=str(self.data_dir / "gateway"),
                **self.gateway_extra,
            )
            self._gateway = Gateway(gw_settings, self.token)
            self.url = await self._gateway.start()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def _start(self, proc: Processor[Any, Any]) -> None:
        fields = {
            "pulsar_url": self.pulsar_url,
            "topic_prefix": self.prefix,
            "data_dir": str(self.data_dir / proc.name),
            **self.extra.get(proc.name, {}),
        }
        settings = proc.settings_cls(**fields)
        stop, ready = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(proc.run(settings, stop, ready), name=f"stack:{proc.name}")
        self._running.append((stop, task))
        waiter = asyncio.create_task(ready.wait())
        done, _ = await asyncio.wait(
            {waiter, task}, timeout=30, return_when=asyncio.FIRST_COMPLETED
        )
        waiter.cancel()
        if task in done:
            task.result()  # raises the startup failure
        if not ready.is_set():
            raise TimeoutError(f"processor {proc.name} did not become ready")

    async def start_processor(self, proc: Processor[Any, Any]) -> None:
        """Start ``proc`` (again, after ``stop_processor``: a restart on the same data)."""
        await self._start(proc)

    async def stop_processor(self, name: str) -> None:
        """Stop processor ``name`` (draining), as a crashed or stopped one is missed."""
        for stop, task in self._running:
            if task.get_name() == f"stack:{name}":
                stop.set()
                await asyncio.gather(task, return_exceptions=True)
                return
        raise KeyError(name)

    async def close(self) -> None:
        """Stop the gateway, then every processor (draining), then the helper bus."""
        if self._gateway is not None:
            await self._gateway.stop()
            self._gateway = None
        for stop, _ in self._running:
            stop.set()
        await asyncio.gather(*(t for _, t in self._running), return_exceptions=True)
        self._running.clear()
        if self._bus is not None:
            await self._bus.close()
            self._bus = None

    async def publish(self, topic: Topic[M], message: M) -> None:
        """Publish on a one-way topic of this stack (e.g. ``TRIPLES_STORE``)."""
        if self._bus is None:
            self._bus = Bus(self.pulsar_url)
        await self._bus.publish(self.topics.topic(topic), message)

    async def cli(self, name: str, *args: str, env: dict[str, str] | None = None) -> CliResult:
        """Run command ``name`` against this stack's gateway."""
        return await run_cli(name, *args, env={**self.env, **(env or {})})


async def create_key(stack: Stack, user: str, *extra: str) -> str:
    """A new API key for ``user`` made with tg-create-api-key (``stack`` runs with ``ADMIN``)."""
    code, out, err = await stack.cli("tg-create-api-key", "--user-id", user, "--name", "t", *extra)
    assert code == 0, err
    assert "API key (shown once, capture now):" in err and "Key id: " in err
    return out.strip()


def stack_fixture(processors: Sequence[Processor[Any, Any]], **options: Any) -> Any:
    """``stack = stack_fixture(EVERY)`` in a test module gives its tests a ``stack`` fixture:
    a running ``Stack`` of ``processors`` (``options``: its keyword arguments, e.g. ``token``)."""

    @pytest.fixture(name="stack")
    async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
        async with Stack(pulsar_url, prefix, processors, data_dir=tmp_path, **options) as running:
            yield running

    return stack
