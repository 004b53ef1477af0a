"""The OTLP import's rate (bench_otel runs it): a gateway and a store, each its own process;
clients post instrumented-app traces (10 spans each: an agent root, 3 tools, 4 LLM calls, 2
retrievers with 3 documents) in requests of 50 traces, 4 at a time, as protobuf. Spans per
second until the last 2xx (the broker has persisted them) and until the store has committed
the last trace; the CPU per span of the gateway, the store and the broker, and the store's once
it has gone quiet (its signing pass, which trails the writes, included)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.bench_agent import load, process_cpu, threads_cpu
from bench.bench_store import start_processor, start_store
from bench.summary import summary
from trustgraph_base.errors import RequestTimeout
from trustgraph_base.messaging import TRIPLES_QUERY, Bus, EmbeddedBroker, RequestClient, Topics
from trustgraph_base.messaging.broker import free_port
from trustgraph_base.provenance.namespaces import RDF, TG
from trustgraph_base.rdf.terms import iri
from trustgraph_base.schema import TriplesQueryRequest, TriplesQueryResponse
from trustgraph_flow.otel import otlp
from trustgraph_flow.otel.spans import Span, Value
from trustgraph_flow.otel.steps import Steps
from trustgraph_flow.otel.to_prov import question_uri, to_prov

RUN = os.urandom(8)  # this run's half of each trace id


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


def large_trace_mapping(spans: int = 20_000) -> None:
    """The gateway's mapping of one request of a single trace of ``spans`` spans (the
    largest request taken), CPU per span: numbering its steps was quadratic (1,488 µs a span
    at 8,000, ~75 s of the gateway's loop for 20,000; 61-132 µs after)."""
    tid = os.urandom(16)
    root = Span(tid, (1).to_bytes(8, "big"), "answer", 1, 10**9, b"", {"input.value": "q"})
    made = [root] + [
        Span(tid, (i + 2).to_bytes(8, "big"), f"s{i}", 2 + i, 3 + i, root.span_id, {})
        for i in range(spans - 1)
    ]
    started = time.process_time()
    list(to_prov(made, Steps()))
    per_span = 1e6 * (time.process_time() - started) / spans
    print(f"\nmapping one trace of {spans:,} spans: {per_span:.0f} µs of CPU a span")
    summary(
        "OTLP import, one large trace mapped",
        f"{per_span:.0f} µs/span",
        "—",
        f"{spans:,} spans in one trace; load {load()}",
    )


STALL = 180.0  # seconds without a trace more in the store after the last 2xx: reported


async def quiet_cpu(pid: int | None, longest: float = 30.0) -> float:
    """The process's CPU seconds once it has gone quiet (under 20 ms of CPU in half a second,
    at most ``longest`` seconds from now): the store signs ended traces a moment after it
    writes them (docs/audit.md), so its CPU when the last trace is readable leaves out a
    varying part of its signing (its CPU per span was 268 and 454 µs in two runs of one tree)."""
    last, since = process_cpu(pid), time.perf_counter()
    while time.perf_counter() - since < longest:
        await asyncio.sleep(0.5)
        now = process_cpu(pid)
        if now - last < 0.02:
            return now
        last = now
    return last


async def stored_traces(
    query: RequestClient[TriplesQueryRequest, TriplesQueryResponse], expected: int
) -> int:
    """How many of the bench's traces the store holds (their questions): asked again until
    all are in or ``STALL`` seconds pass without one more (requests answered 2xx at once are
    published in no set order: the last trace's message may not be the last one written)."""
    req = TriplesQueryRequest(
        user="trustgraph", p=RDF.type, o=TG.AgentQuestion, g="*", limit=expected + 1
    )
    kept, since = -1, time.perf_counter()
    while time.perf_counter() - since < STALL:
        with contextlib.suppress(RequestTimeout):
            found = len((await query.request(req, timeout=30)).triples)
            if found >= expected:
                return found
            if found > kept:
                kept, since = found, time.perf_counter()
        await asyncio.sleep(1.0)
    return kept


BROKER_FIGURES = (
    "back_log",
    "unacked_messages",
    "blocked_on_unacked",
    "in_messages_total",
    "out_messages_total",
    "acked_messages_total",
    "redelivered_total",
)


async def broker_view(port: int, topic: str) -> str:
    """The broker's figures for ``topic`` and its dead-letter topic (pulsar-lite's metrics)."""
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{port}/metrics") as resp:
            text = await resp.text()
    return "\n".join(
        line
        for line in text.splitlines()
        if f'topic="{topic}' in line and any(f in line for f in BROKER_FIGURES)
    )


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
            threads0 = threads_cpu(store.pid)
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
            deadline = time.perf_counter() + STALL
            while time.perf_counter() < deadline:  # the store answers between its batches
                with contextlib.suppress(RequestTimeout):
                    if (await query.request(req, timeout=10)).triples:
                        break
                await asyncio.sleep(0.05)
            stored = time.perf_counter() - started
            used = [process_cpu(p) - c for p, c in zip(pids, cpu0, strict=True)]
            store_quiet = await quiet_cpu(store.pid) - cpu0[1]
            threads = {k: v - threads0.get(k, 0.0) for k, v in threads_cpu(store.pid).items()}
            kept = await stored_traces(query, total // 10)
            held = ""
            if kept < total // 10:  # every request was answered 2xx: these are lost or stuck
                held = await broker_view(broker.metrics_port, f"{prefix}.explain-store")
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
    if kept < total // 10:
        print(f"STALLED: {kept} of {total // 10} traces in the store, none more for {STALL:.0f} s")
        print("the broker's figures for the store's topic then:\n" + held)
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
    ended = store_quiet - sum(threads.values())
    print(
        f"the store's CPU per span once quiet (its signing pass included): {1e6 * store_quiet / total:.0f} µs; "
        "by thread: "
        + ", ".join(f"{k} {1e6 * v / total:.0f}" for k, v in sorted(threads.items()) if v > 0)
        + f", threads that ended (pyoxigraph's bulk loader's) {1e6 * ended / total:.0f}"
    )
    rocks = sum(v for k, v in threads.items() if k.startswith("rocksdb"))
    summary(
        "OTLP import, spans/s into the store",
        f"{total / stored:,.0f}"
        if kept == total // 10
        else f"stalled: {kept} of {total // 10} traces",
        "≥ 5,000",
        f"{total} spans, requests of {per_request * 10}; {total / accepted:,.0f}/s answered 2xx; "
        f"CPU/span gateway {gw:.0f} µs, store {st:.0f} µs ({1e6 * store_quiet / total:.0f} once quiet, RocksDB's threads {1e6 * rocks / total:.0f}), broker {br:.0f} µs (≤ {1e6 / max(gw, st):,.0f}/s on 2 cores); load {load()}",
    )


if __name__ == "__main__":  # python -m bench.otel_import_rate --spans 20000
    import argparse

    parser = argparse.ArgumentParser(description="The OTLP import's rate (bench_otel runs it).")
    parser.add_argument("--spans", type=int, default=20_000, help="spans to import (10 a trace)")
    asyncio.run(import_rate(parser.parse_args().spans))
