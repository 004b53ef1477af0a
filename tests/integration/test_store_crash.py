"""Crash consistency: SIGKILL the store mid-stream; after a restart every published triple is stored."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

from tests.integration.test_store_support import msg
from trustgraph_base.messaging import SPARQL, TRIPLES_STORE, Bus, RequestClient, Topics
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import SparqlQueryRequest

MESSAGES, PER_MESSAGE = 3000, 10
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


async def start_store(
    pulsar_url: str, prefix: str, data: Path, ready: Path
) -> asyncio.subprocess.Process:
    ready.unlink(missing_ok=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "trustgraph_flow.store.processor",
        "--pulsar-url", pulsar_url, "--topic-prefix", prefix, "--data-dir", str(data),
        "--ready-file", str(ready), "--log-level", "WARNING",
        stdin=asyncio.subprocess.DEVNULL,
    )  # fmt: skip

    async def wait_ready() -> None:
        while not ready.exists():
            if proc.returncode is not None:
                raise RuntimeError("store exited during startup")
            await asyncio.sleep(0.05)

    await asyncio.wait_for(wait_ready(), 30)
    return proc


async def stored(client: RequestClient) -> int:  # type: ignore[type-arg]
    resp = await client.request(SparqlQueryRequest(query=COUNT, user="alice"), timeout=20)
    value = resp.bindings[0].values[0]
    return int(value.v)  # type: ignore[union-attr]


async def wait_count(client: RequestClient, ok, timeout: float) -> int:  # type: ignore[no-untyped-def,type-arg]
    async def loop() -> int:
        while True:
            n = await stored(client)
            if ok(n):
                return n
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(loop(), timeout)


def message(i: int):  # type: ignore[no-untyped-def]
    subject = iri(f"urn:test:m{i}")
    return msg(
        [Triple(s=subject, p=iri(f"urn:test:p{k}"), o=lit(i)) for k in range(PER_MESSAGE)], f"m{i}"
    )


async def test_sigkill_mid_stream_loses_nothing(
    pulsar_url: str, prefix: str, bus: Bus, tmp_path: Path
) -> None:
    data, ready = tmp_path / "data", tmp_path / "ready"
    first = await start_store(pulsar_url, prefix, data, ready)
    client = RequestClient(bus, Topics(prefix), SPARQL, "tester")
    topic = Topics(prefix).topic(TRIPLES_STORE)
    try:
        sends = asyncio.gather(
            *(bus.publish(topic, message(i), batching=True) for i in range(MESSAGES))
        )
        before_kill = await wait_count(client, lambda n: n > 0, 30)
        first.send_signal(signal.SIGKILL)
        await first.wait()
        await sends
        assert before_kill < MESSAGES * PER_MESSAGE, "the store should die mid-stream"
        second = await start_store(pulsar_url, prefix, data, ready)
        try:
            total = await wait_count(client, lambda n: n >= MESSAGES * PER_MESSAGE, 90)
        finally:
            second.terminate()
            await second.wait()
        assert total == MESSAGES * PER_MESSAGE  # nothing lost, nothing doubled
    finally:
        if first.returncode is None:
            first.kill()
        await client.close()
