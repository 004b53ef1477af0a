"""Two gateway processes on one broker and one stack, under load: each gets only its own
replies (text completions; then agent questions and trace lists through the whole stack)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bench.capitals import CAPITALS
from tests.conftest import RunningProcessors
from tests.support.launcher import start_module
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack
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


async def post(http: aiohttp.ClientSession, port: int, service: str, body: dict[str, Any]) -> Any:
    url = f"http://127.0.0.1:{port}/api/v1/flow/default/service/{service}"
    async with http.post(url, json=body) as resp:
        assert resp.status == 200, await resp.text()
        return await resp.json()


async def test_two_gateways_on_one_stack_answer_questions_and_list_traces_under_load(
    pulsar_url: str, prefix: str, tmp_path: Path, gateways: list[int]
) -> None:
    # The whole stack behind both gateway processes: 25 agent questions (each its own
    # country) and 25 trace lists through each gateway, all at once. Each answer must be its
    # own question's, each list a list, none lost; then both list every trace asked.
    settings: dict[str, dict[str, Any]] = {
        "text-completion": {"offline_latency": 0.05},
        "agent": {"service_concurrency": 20},  # the rest wait in the broker: none lost
    }
    async with Stack(
        pulsar_url, prefix, EVERY, data_dir=tmp_path / "stack", settings=settings,
        gateway={"request_timeout": 120},
    ) as stack:  # fmt: skip
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
        assert loaded.code == 0, loaded.stderr
        names = list(CAPITALS)
        # Each gateway asks about its own half of the countries: a reply that went to the
        # other gateway's caller would name the wrong capital.
        countries = {
            port: [names[(2 * k + n) % len(names)] for k in range(25)]
            for n, port in enumerate(gateways)
        }
        timeout = aiohttp.ClientTimeout(total=240)
        async with aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0), timeout=timeout, trust_env=False
        ) as http:

            async def question(port: int, country: str) -> Any:
                body = {"question": f"What is the capital of {country}?"}
                return await post(http, port, "agent", body)

            async def listing(port: int) -> Any:
                return await post(http, port, "explain", {"operation": "list-traces"})

            calls = {
                port: asyncio.gather(*(question(port, c) for c in cs), *(listing(port) for _ in cs))
                for port, cs in countries.items()
            }
            done = dict(zip(calls, await asyncio.gather(*calls.values()), strict=True))
            asked: dict[str, str] = {}
            for port, cs in countries.items():
                answers, lists = done[port][: len(cs)], done[port][len(cs) :]
                for country, answer in zip(cs, answers, strict=True):
                    assert answer["content"] == f"{CAPITALS[country]} is the capital of {country}."
                    asked[answer["explain_id"]] = f"What is the capital of {country}?"
                assert all(isinstance(found["traces"], list) for found in lists)
            assert len(asked) == sum(len(cs) for cs in countries.values())  # a trace each

            async def listed(port: int) -> dict[str, str]:
                found = await post(
                    http, port, "explain", {"operation": "list-traces", "limit": 100}
                )
                return {t["id"]: t["question"] for t in found["traces"]}

            for port in gateways:  # every trace, through either gateway, with its own question
                stored = await eventually(
                    functools.partial(listed, port), lambda f: asked.keys() <= f.keys(), 60
                )
                assert {t: stored[t] for t in asked} == asked
