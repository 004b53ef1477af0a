"""Real subprocesses for a test: ``tg-start`` read line by line (and ``publish``/``query`` of
one triple through the stack it runs), a processor module started and waited on through its
ready file."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from tests.support.poll import eventually
from tests.support.stack import command_line, run_cli
from trustgraph_base.messaging import TRIPLES_STORE, Bus, Topics
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import Metadata, Triples

S, P = "urn:test:launcher", "urn:test:says"


async def publish(data: Path) -> None:
    """A "hello" triple onto the triples-store topic of the broker a tg-start on ``data`` runs."""
    port = (data / "broker" / "port").read_text()
    bus = Bus(f"pulsar://127.0.0.1:{port}")
    try:
        triple = Triple(s=iri(S), p=iri(P), o=lit("hello"))
        await bus.publish(
            Topics("tg").topic(TRIPLES_STORE), Triples(metadata=Metadata(id="l1"), triples=[triple])
        )
    finally:
        await bus.close()


async def query(url: str) -> tuple[int, str, str]:
    """tg-query-triples for the subject ``publish`` wrote, against the gateway at ``url``."""
    return await run_cli("tg-query-triples", "-u", url, "-s", S)


class Launcher:
    """A ``tg-start`` subprocess; ``lines`` is its output (stdout and stderr) read so far."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []

    async def wait_for(self, text: str, timeout: float = 50) -> str:
        """The first line from now on that contains ``text``."""

        async def scan() -> str:
            assert self.proc.stdout is not None
            while True:
                raw = await self.proc.stdout.readline()
                assert raw, f"tg-start ended before {text!r}: {self.lines}"
                self.lines.append(raw.decode().rstrip("\n"))
                if text in self.lines[-1]:
                    return self.lines[-1]

        return await asyncio.wait_for(scan(), timeout)

    async def drain(self) -> None:
        """Read the rest of the output (a full pipe would block tg-start) until it ends."""
        assert self.proc.stdout is not None
        while raw := await self.proc.stdout.readline():
            self.lines.append(raw.decode().rstrip("\n"))


async def launch(data: Path, port: int, env: dict[str, str]) -> Launcher:
    """``tg-start --data-dir data --port port`` with exactly the environment ``env``."""
    proc = await asyncio.create_subprocess_exec(
        *command_line("tg-start"),
        "--data-dir",
        str(data),
        "--port",
        str(port),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        stdin=asyncio.subprocess.DEVNULL,
        env=env,
    )
    return Launcher(proc)


async def start_module(
    module: str, *args: str, ready: Path, timeout: float = 60
) -> asyncio.subprocess.Process:
    """``python -m module *args --ready-file ready``, returned once it has written ``ready``
    (killed, and the wait fails, if it exits first or is not ready within ``timeout`` s)."""
    ready.unlink(missing_ok=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, *args, "--ready-file", str(ready),
        stdin=asyncio.subprocess.DEVNULL,
    )  # fmt: skip

    async def up() -> bool:
        assert proc.returncode is None, f"{module} exited with {proc.returncode} while starting"
        return ready.exists()

    try:
        await eventually(up, bool, timeout)
    except BaseException:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
        raise
    return proc


async def start_store(
    pulsar_url: str, prefix: str, data: Path, ready: Path, *args: str, timeout: float = 30
) -> asyncio.subprocess.Process:
    """The store processor as a subprocess on ``data`` (``args``: more of its options, such
    as ``--store-uri``), once ready."""
    return await start_module(
        "trustgraph_flow.store.processor",
        "--pulsar-url", pulsar_url, "--topic-prefix", prefix, "--data-dir", str(data),
        "--log-level", "WARNING", *args,
        ready=ready, timeout=timeout,
    )  # fmt: skip


async def start_gateway(
    pulsar_url: str, prefix: str, data: Path, port: int
) -> asyncio.subprocess.Process:
    """The gateway as a subprocess on ``port`` (open: no admin token), once ready."""
    return await start_module(
        "trustgraph_flow.gateway.server",
        "--pulsar-url", pulsar_url, "--topic-prefix", prefix, "--port", str(port),
        "--data-dir", str(data), "--log-level", "WARNING",
        ready=data.with_suffix(".ready"),
    )  # fmt: skip


async def store_process(
    pulsar_url: str, prefix: str, store_uri: str, data: Path
) -> asyncio.subprocess.Process:
    """``tg-proc-store`` on the server ``store_uri``, once subscribed; the replicas of a
    deployment share its signing key (the first to start makes it)."""
    ready = data.with_suffix(".ready")
    signing = data.parent / "signing"
    keys = ("--signing-key", str(signing / "key.pem"), "--signing-public", str(signing / "public"))
    return await start_store(
        pulsar_url, prefix, data, ready, "--store-uri", store_uri, *keys, timeout=60
    )


@contextlib.asynccontextmanager
async def running(*procs: asyncio.subprocess.Process) -> AsyncIterator[None]:
    try:
        yield
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.terminate()
        for proc in procs:
            await proc.wait()


async def publish_all(bus: Bus, topic: str, messages: Sequence[Triples]) -> None:
    """Every message on the topic at once (batched by the client)."""
    await asyncio.gather(*(bus.publish(topic, m, batching=True) for m in messages))
