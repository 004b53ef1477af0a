"""OpenTelemetry benchmark (docs/otel.md): what the OTLP export costs the agent, and how many
spans per second the gateway's ``/v1/traces`` takes in.

    python -m bench.bench_otel [--quick] [--pairs N] [--spans N]

Export: two explainable agent stacks as bench_agent runs them (text-completion on the
offline engine, a stand-in GraphRAG that answers at once, the agent; each its own process)
on one broker, one with ``tg-proc-otel-export`` sending every trace to an OTLP/HTTP receiver
(in this process: it counts spans). Sessions alternate between the stacks; the median of the per-iteration differences
(with the exporter − without) is the figure, beside the exporter's own CPU per iteration.

Import: a gateway and a store (their own processes); clients post instrumented-app traces
(10 spans each: an agent root, 3 tools, 4 LLM calls, 2 retrievers with 3 documents) in
requests of 50 traces, 4 at a time, as protobuf. Spans per second until the last 2xx (the
broker has persisted them) and until the store has committed the last trace; CPU per span.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path

import aiohttp
from aiohttp import web

from bench.bench_agent import Mode, Stack, load, process_cpu, quartiles, session, timed
from bench.bench_store import start_processor, start_store
from bench.summary import summary
from trustgraph_base.errors import RequestTimeout
from trustgraph_base.messaging import (
    AGENT,
    TRIPLES_QUERY,
    Bus,
    EmbeddedBroker,
    RequestClient,
    Topics,
)
from trustgraph_base.messaging.broker import free_port
from trustgraph_base.rdf.terms import iri
from trustgraph_base.schema import TriplesQueryRequest
from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.spans import Span, Value
from trustgraph_flow.otel.to_prov import question_uri

K, RUN = 3, os.urandom(8)  # iterations per agent session; this run's half of each trace id


async def receiver() -> tuple[web.AppRunner, str, list[int]]:
    """A minimal OTLP/HTTP receiver: counts the spans of each body; its URL."""
    counted = [0]

    async def traces(request: web.Request) -> web.Response:
        counted[0] += len(otlp.decode(await request.read(), request.content_type))
        return web.Response(body=b"", content_type=otlp.PROTOBUF)

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_post("/v1/traces", traces)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}", counted


async def export_cost(pairs: int) -> None:
    runner, url, counted = await receiver()
    with tempfile.TemporaryDirectory(prefix="bench-otel-") as tmp:
        work = Path(tmp)
        broker = EmbeddedBroker(work / "broker")
        broker.start()
        bpid = broker.proc.pid if broker.proc else None
        stacks = [
            Stack(broker.url, work / "with", True, K),
            Stack(broker.url, work / "without", True, K),
        ]
        bus = Bus(broker.url)
        exporter = None
        try:
            for stack in stacks:
                await stack.start()
            data = work / "otel-export"
            data.mkdir()
            exporter = await start_processor(
                "trustgraph_flow.otel.exporter", broker.url, stacks[0].prefix, data,
                "the OTLP exporter", "--otlp-endpoint", url, "--otlp-linger", "0.05",
            )  # fmt: skip
            clients = [RequestClient(bus, Topics(s.prefix), AGENT, f"bench-otel-{i}") for i, s in enumerate(stacks)]  # fmt: skip
            modes = [Mode(True), Mode(True)]
            for i in range(5):
                for client in clients:
                    await session(client, f"warm{i}")
            loads, cpu0 = [load()], process_cpu(exporter.pid)
            for i in range(pairs):
                for m in (0, 1) if i % 2 == 0 else (1, 0):
                    await timed(modes[m], clients[m], f"s{i}", stacks[m].pids, bpid)
            loads.append(load())
            cpu = process_cpu(exporter.pid) - cpu0
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # the last traces reach the receiver
                if counted[0] >= (pairs + 5) * (2 * K + 2):
                    break
                await asyncio.sleep(0.1)
            for client in clients:
                await client.close()
        finally:
            await bus.close()
            if exporter is not None and exporter.returncode is None:
                exporter.terminate()
                await exporter.wait()
            for stack in stacks:
                await stack.stop()
            broker.stop()
            await runner.cleanup()
    diffs = [1000 * (a - b) / K for a, b in zip(modes[0].seconds, modes[1].seconds, strict=True)]
    q1, median, q3 = quartiles(diffs)
    with_ms, without_ms = (1000 * statistics.median(m.seconds) / K for m in modes)
    print(f"\nexport: {pairs} interleaved pairs of explainable sessions, {K} iterations each")
    print(f"ms/iteration (median): with the exporter {with_ms:.2f}, without {without_ms:.2f}")
    print(
        f"difference per iteration (per pair): median {median:+.3f} ms, quartiles {q1:+.3f} / {q3:+.3f}"
    )
    print(
        f"exporter CPU per iteration: {1000 * cpu / (pairs * K):.3f} ms; spans received: {counted[0]}"
    )
    summary(
        "OTLP export cost per agent iteration",
        f"{median:+.3f} ms",
        "≤ 0.1 ms",
        f"median of {pairs} interleaved pairs (quartiles {q1:+.3f}/{q3:+.3f}); exporter CPU "
        f"{1000 * cpu / (pairs * K):.3f} ms/it in its own process; load {loads[1]}",
    )


def app_trace(n: int, now: int) -> list[Span]:
    """One instrumented app's trace: 10 spans."""
    tid = n.to_bytes(8, "big") + RUN
    root = Span(tid, (1).to_bytes(8, "big"), "answer", now, now + 10**9, b"", {
        "openinference.span.kind": "AGENT", "input.value": f"question {n}", "output.value": "answer"})  # fmt: skip
    out = [root]
    for i in range(2, 11):
        kind = "TOOL" if i < 5 else "LLM" if i < 9 else "RETRIEVER"
        attrs: dict[str, Value] = {"openinference.span.kind": kind, "input.value": f"in {i}", "output.value": f"out {i}"}  # fmt: skip
        if kind == "LLM":
            attrs |= {
                "llm.model_name": "m",
                "llm.token_count.prompt": 100,
                "llm.token_count.completion": 20,
            }
        if kind == "RETRIEVER":
            for d in range(3):
                attrs |= {f"retrieval.documents.{d}.document.id": f"urn:trustgraph:doc:d{d}/p1/c{i}",
                          f"retrieval.documents.{d}.document.score": 0.5}  # fmt: skip
        out.append(
            Span(
                tid, i.to_bytes(8, "big"), f"step {i}", now + i, now + i + 1000, root.span_id, attrs
            )
        )
    return out


async def import_rate(total: int) -> None:
    per_request, concurrency = 50, 4
    now = time.time_ns()
    bodies = [
        otlp.encode([s for n in range(r, r + per_request) for s in app_trace(n, now)])
        for r in range(0, total // 10, per_request)
    ]
    last = question_uri(app_trace(total // 10 - 1, now)[0].trace_id)
    with tempfile.TemporaryDirectory(prefix="bench-otel-import-") as tmp:
        work = Path(tmp)
        broker = EmbeddedBroker(work / "broker")
        broker.start()
        bpid = broker.proc.pid if broker.proc else None
        prefix, port = f"bo{os.getpid()}", free_port()
        store = await start_store(broker.url, prefix, work / "store")
        gateway = await start_processor(
            "trustgraph_flow.gateway.server", broker.url, prefix, work / "gateway", "the gateway",
            "--port", str(port),
        )  # fmt: skip
        bus = Bus(broker.url)
        query = RequestClient(bus, Topics(prefix), TRIPLES_QUERY, "bench-otel-query")
        try:
            pending = list(reversed(bodies))
            pids = [gateway.pid, store.pid, bpid]
            cpu0 = [process_cpu(p) for p in pids]
            started = time.perf_counter()
            async with aiohttp.ClientSession() as http:

                async def poster() -> None:
                    while pending:
                        body = pending.pop()
                        headers = {"Content-Type": otlp.PROTOBUF}
                        url = f"http://127.0.0.1:{port}/v1/traces"
                        async with http.post(url, data=body, headers=headers) as resp:
                            assert resp.status == 200, await resp.text()

                await asyncio.gather(*(poster() for _ in range(concurrency)))
            accepted = time.perf_counter() - started
            req = TriplesQueryRequest(user="trustgraph", s=iri(last + "/final"), g="*", limit=1)
            while True:  # the store answers queries between its batches: slow under load
                with contextlib.suppress(RequestTimeout):
                    if (await query.request(req, timeout=60)).triples:
                        break
                await asyncio.sleep(0.05)
            stored = time.perf_counter() - started
            used = [process_cpu(p) - c for p, c in zip(pids, cpu0, strict=True)]
        finally:
            await query.close()
            await bus.close()
            for proc in (gateway, store):
                proc.terminate()
                await proc.wait()
            broker.stop()
    print(
        f"\nimport: {total} spans ({total // 10} traces) in {len(bodies)} requests, {concurrency} at a time"
    )
    print(
        f"accepted (2xx, persisted by the broker) in {accepted:.2f} s: {total / accepted:,.0f} spans/s"
    )
    print(f"committed by the store in {stored:.2f} s: {total / stored:,.0f} spans/s")
    gw, st, br = (1e6 * u / total for u in used)
    print(
        f"CPU per span: gateway {gw:.0f} µs, store {st:.0f} µs (the query polls included), "
        f"broker {br:.0f} µs; together {gw + st + br:.0f} µs"
    )
    print(f"so on 2 cores, one each: at most {1e6 / max(gw, st):,.0f} spans/s; load {load()}")
    summary(
        "OTLP import, spans/s into the store",
        f"{total / stored:,.0f}",
        "≥ 5,000",
        f"{total} spans, requests of {per_request * 10}; {total / accepted:,.0f}/s answered 2xx; "
        f"CPU/span gateway {gw:.0f} µs, store {st:.0f} µs, broker {br:.0f} µs (≤ {1e6 / max(gw, st):,.0f}/s on 2 cores); load {load()}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sessions and spans (< 60 s)")
    parser.add_argument("--pairs", type=int, help="session pairs (default 500; quick 100)")
    parser.add_argument("--spans", type=int, help="spans imported (default 100,000; quick 20,000)")
    args = parser.parse_args()
    pairs = args.pairs or (100 if args.quick else 500)
    spans = args.spans or (20_000 if args.quick else 100_000)
    asyncio.run(import_rate(spans))
    asyncio.run(export_cost(pairs))


if __name__ == "__main__":
    main()
