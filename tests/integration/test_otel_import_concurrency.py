"""A large OTLP import does not hold the gateway's other callers: its spans are mapped in a
worker thread, not on the event loop (gateway/otlp.py), so a small request sent while a
request of 20,000 spans is being mapped is answered first (before, it waited for the whole
mapping, ~2.6 s, and was answered after the large one)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import aiohttp

from tests.support.launcher import start_gateway
from trustgraph_base.messaging.broker import free_port
from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.checks import LIMITS
from trustgraph_flow.otel.spans import Span


def one_trace(tid: bytes, spans: int) -> list[Span]:
    root = Span(tid, (1).to_bytes(8, "big"), "answer", 1, 10**9, b"", {"input.value": "q"})
    return [root] + [
        Span(tid, (i + 2).to_bytes(8, "big"), f"s{i}", 2 + i, 3 + i, root.span_id, {})
        for i in range(spans - 1)
    ]


async def test_a_small_request_is_answered_while_a_large_one_is_mapped(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    port = free_port()
    gateway = await start_gateway(pulsar_url, prefix, tmp_path / "gateway", port)
    url = f"http://127.0.0.1:{port}/v1/traces"
    large = otlp.encode(one_trace(b"\x01" * 16, LIMITS.spans))
    small = otlp.encode(one_trace(b"\x02" * 16, 1))
    answered: list[str] = []
    try:
        async with aiohttp.ClientSession() as http:

            async def send(name: str, body: bytes) -> None:
                headers = {"Content-Type": otlp.PROTOBUF}
                async with http.post(url, data=io.BytesIO(body), headers=headers) as resp:
                    assert resp.status == 200, await resp.text()
                answered.append(name)

            big = asyncio.create_task(send("large", large))
            await asyncio.sleep(0.5)  # its body is in and being mapped (seconds)
            await send("small", small)
            await big
    finally:
        gateway.terminate()
        await gateway.wait()
    assert answered == ["small", "large"]
