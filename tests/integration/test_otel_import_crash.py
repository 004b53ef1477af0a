"""Nothing answered is lost: spans the gateway answered 2xx for are in the store even when the
gateway is killed (-9) right after, mid-stream of other requests. Each request holds two
traces, which travel packed in one message (gateway/otlp.py)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import aiohttp

from tests.support.launcher import start_gateway, start_store
from tests.support.poll import eventually
from tests.support.sparql_server import embedded_only
from trustgraph_base.messaging import TRIPLES_QUERY, Bus, RequestClient, Topics
from trustgraph_base.messaging.broker import free_port
from trustgraph_base.rdf.terms import iri
from trustgraph_base.schema import TriplesQueryRequest, TriplesQueryResponse
from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.spans import Span
from trustgraph_flow.otel.to_prov import question_uri

# Enough that the kill after a quarter of them lands mid-stream (of 40, all were answered
# before the signal landed once).
REQUESTS = 100


def trace(n: int) -> list[Span]:
    tid = n.to_bytes(4, "big") + os.urandom(12)
    root = Span(
        tid, b"\x01" * 8, "answer", 1, 9, b"", {"input.value": f"q{n}", "output.value": "a"}
    )
    steps = [Span(tid, bytes([i]) * 8, f"s{i}", 2, 3, root.span_id) for i in range(2, 30)]
    return [root, *steps]


@embedded_only("the gateway's path to the broker is under test; the store's backend is not")
async def test_spans_answered_2xx_survive_a_kill_of_the_gateway(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    store = await start_store(pulsar_url, prefix, tmp_path / "store", tmp_path / "store.ready")
    port = free_port()
    gateway = await start_gateway(pulsar_url, prefix, tmp_path / "gateway", port)
    bodies = [trace(2 * n) + trace(2 * n + 1) for n in range(REQUESTS)]
    answered: list[bytes] = []
    url = f"http://127.0.0.1:{port}/v1/traces"
    try:
        async with aiohttp.ClientSession() as http:

            async def send(spans: list[Span]) -> None:
                headers = {"Content-Type": otlp.PROTOBUF}
                try:
                    async with http.post(url, data=otlp.encode(spans), headers=headers) as resp:
                        if resp.status == 200:
                            answered.extend(dict.fromkeys(s.trace_id for s in spans))
                            if len(answered) == REQUESTS // 2:
                                gateway.send_signal(signal.SIGKILL)  # mid-stream
                except aiohttp.ClientError:
                    pass  # cut off by the kill: never answered, never claimed

            await asyncio.gather(*(send(b) for b in bodies))
        await gateway.wait()
        assert REQUESTS // 2 <= len(answered) < 2 * REQUESTS
        bus = Bus(pulsar_url)
        query = RequestClient(bus, Topics(prefix), TRIPLES_QUERY, "otel-crash")
        try:
            for tid in answered:  # every answered trace is whole in the store
                req = TriplesQueryRequest(
                    user="trustgraph", s=iri(question_uri(tid) + "/i28"), g="*", limit=1
                )

                async def ask(r: TriplesQueryRequest = req) -> TriplesQueryResponse:
                    return await query.request(r, timeout=10)

                found = await eventually(ask, lambda r: bool(r.triples))
                assert found.triples
        finally:
            await query.close()
            await bus.close()
    finally:
        for proc in (gateway, store):
            if proc.returncode is None:
                proc.terminate()
            await proc.wait()
