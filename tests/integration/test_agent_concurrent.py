"""Fifty agent questions at once through the gateway: each gets its own answer and its own trace."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bench.capitals import CAPITALS
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack

QUESTIONS = 50


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    # The offline engine takes a moment per answer, as a hosted model would: sessions then
    # really overlap in the agent, GraphRAG and text-completion instead of running in turn.
    # A service limit below 50 makes the rest wait in the broker, which must lose nothing.
    settings: dict[str, dict[str, Any]] = {
        "text-completion": {"offline_latency": 0.05},
        "agent": {"service_concurrency": 20},
    }
    async with Stack(
        pulsar_url,
        prefix,
        EVERY,
        data_dir=tmp_path,
        settings=settings,
        gateway={"request_timeout": 120},
    ) as running:
        loaded = await running.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
        assert loaded.code == 0, loaded.stderr
        yield running


async def ask(http: aiohttp.ClientSession, url: str, country: str) -> dict[str, Any]:
    question = {"question": f"What is the capital of {country}?"}
    async with http.post(url + "api/v1/flow/default/service/agent", json=question) as resp:
        assert resp.status == 200, await resp.text()
        body: dict[str, Any] = await resp.json()
        return body


async def test_fifty_concurrent_questions_each_get_their_own_answer_and_trace(
    stack: Stack,
) -> None:
    countries = [list(CAPITALS)[n % len(CAPITALS)] for n in range(QUESTIONS)]
    timeout = aiohttp.ClientTimeout(total=150)
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0), timeout=timeout
    ) as http:
        answers = await asyncio.gather(*(ask(http, stack.url, c) for c in countries))

    for country, answer in zip(countries, answers, strict=True):
        assert answer["content"] == f"{CAPITALS[country]} is the capital of {country}.", answer
    traces = {a["explain_id"]: c for a, c in zip(answers, countries, strict=True)}
    assert len(traces) == QUESTIONS  # a trace of its own for every question

    # Each trace in the store holds the question that was asked of it, and its answer.
    async def listed() -> dict[str, str]:
        out = await stack.cli("tg-list-explain-traces", "--limit", "100", "--format", "json")
        assert out.code == 0, out.stderr
        return {t["id"]: t["question"] for t in json.loads(out.stdout)}

    stored = await eventually(listed, lambda found: traces.keys() <= found.keys(), timeout=60)
    for trace, country in traces.items():
        assert stored[trace] == f"What is the capital of {country}?"
    for trace in list(traces)[:: QUESTIONS // 5]:  # a sample, shown as a user would
        country = traces[trace]
        shown = await stack.cli("tg-show-explain-trace", trace)
        assert shown.code == 0, shown.stderr
        assert f"{CAPITALS[country]} is the capital of {country}." in shown.stdout
