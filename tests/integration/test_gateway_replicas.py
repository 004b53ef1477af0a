"""Two gateways on one broker and one stack, under load: each gets only its own replies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import RunningProcessors
from tests.support.launcher import start_module
from tests.support.standin import echo_processor
from trustgraph_base.messaging import free_port
from trustgraph_base.settings import ProcessorSettings


@pytest.fixture
async def gateways(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[list[int]]:
    """Two gateway processes with the same client name ("gateway"), on free ports."""
    procs, ports = [], []
    for n in range(2):
        port = free_port()
        proc = await start_module(
            "trustgraph_flow.gateway.server",
            "--pulsar-url", pulsar_url, "--topic-prefix", prefix, "--port", str(port),
            "--data-dir", str(tmp_path / f"gw{n}"), "--log-level", "WARNING",
            ready=tmp_path / f"gw{n}.ready",
        )  # fmt: skip
        procs.append(proc)
        ports.append(port)
    try:
        yield ports
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.terminate()
            await proc.wait()


async def ask(http: aiohttp.ClientSession, port: int, prompt: str) -> str:
    url = f"http://127.0.0.1:{port}/api/v1/flow/default/service/text-completion"
    async with http.post(url, json={"prompt": prompt}) as resp:
        body = await resp.json()
        assert resp.status == 200, body
        return str(body["response"])


async def test_two_gateways_each_get_their_own_replies_under_load(
    processors: RunningProcessors, settings: ProcessorSettings, gateways: list[int]
) -> None:
    await processors.start(echo_processor(), settings)
    prompts = {port: [f"g{port}-{n}" for n in range(150)] for port in gateways}
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(trust_env=False, timeout=timeout) as http:
        calls = {
            port: asyncio.gather(*(ask(http, port, p) for p in ps)) for port, ps in prompts.items()
        }
        answers = dict(zip(calls, await asyncio.gather(*calls.values()), strict=True))
    for port in gateways:
        assert answers[port] == prompts[port]  # every reply, and only its own, in order asked
