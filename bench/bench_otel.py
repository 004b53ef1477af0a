"""OpenTelemetry benchmark (docs/otel.md): what the OTLP export costs the agent, and how many
spans per second the gateway's ``/v1/traces`` takes in.

    python -m bench.bench_otel [--quick] [--pairs N] [--spans N]

Export: two explainable agent stacks as bench_agent runs them (text-completion on the
offline engine, a stand-in GraphRAG that answers at once, the agent; each its own process)
on one broker, one with ``tg-proc-otel-export`` sending every trace to an OTLP/HTTP receiver
(in this process: it counts spans), each stack with its store as deployed. Sessions
alternate between the stacks, and half way the exporter moves to the other stack, so a
difference between the two stacks themselves cancels out. The figure is
what the answer path pays: the CPU the answering processes (agent, text-completion,
stand-in) used in each session, read from their CPU-time clocks (nanoseconds), as the
mean of the per-iteration differences of each pair (with the exporter − without) with its
95% confidence interval; the wall time's difference, which swings by milliseconds with
the shared machine's load, is printed beside it, and so are the exporter's own CPU and the
broker's, off the answer path. With ``--control`` the exporter is replaced by a subscriber
that only takes the messages on the exporter's subscription (decoded by the runtime, as the
exporter's are) and does nothing with them: what a second subscriber on the trace topic
costs the answer path, apart from the exporter's own work (docs/performance.md, session 15).

Import: ``bench/otel_import_rate.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

from aiohttp import web

from bench.bench_agent import AGENT_READ, Mode, Stack, load, process_cpu, quartiles, session, timed
from bench.bench_store import start_processor, start_store
from bench.otel_import_rate import import_rate, large_trace_mapping
from bench.summary import summary
from trustgraph_base.messaging import (
    EXPLAIN_STORE_INTAKE,
    Bus,
    Context,
    EmbeddedBroker,
    Processor,
    RequestClient,
    Topics,
)
from trustgraph_base.messaging.broker import free_port
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.otel import otlp

K = 3  # iterations per agent session
SUBSCRIBER = "--subscriber"  # python -m bench.bench_otel FLAGS --subscriber: the control alone
subscriber: Processor[ProcessorSettings] = Processor("otel-export")


@subscriber.consumer(EXPLAIN_STORE_INTAKE)
async def taken(message: StoreTriples, ctx: Context[ProcessorSettings]) -> None:
    """The control (``--control``): the exporter's subscription and the runtime's decoding of
    each message, nothing more (no gathering, no spans, no requests)."""


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


async def export_cost(pairs: int, control: bool = False) -> None:
    runner, url, counted = await receiver()
    module, what, flags = (
        ("bench.bench_otel", "the control subscriber", (SUBSCRIBER,))
        if control
        else ("trustgraph_flow.otel.exporter", "the OTLP exporter", ("--otlp-endpoint", url, "--otlp-linger", "0.05"))
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-otel-") as tmp:
        work = Path(tmp)
        broker = EmbeddedBroker(work / "broker")
        broker.start()
        bpid = broker.proc.pid if broker.proc else None
        stacks = [Stack(broker.url, work / f"stack{i}", True, K) for i in (0, 1)]
        bus = Bus(broker.url)
        procs: list[asyncio.subprocess.Process] = []  # the stores, then each exporter
        modes = [Mode(True), Mode(True)]  # with the exporter, without
        answering: list[list[float]] = [[], []]  # per session: CPU of the stack's processes
        cpu, loads = 0.0, [load()]
        try:
            for i, stack in enumerate(stacks):
                await stack.start()
                procs.append(await start_store(broker.url, stack.prefix, work / f"store{i}"))
            clients = [RequestClient(bus, Topics(s.prefix), AGENT_READ, f"bench-otel-{i}") for i, s in enumerate(stacks)]  # fmt: skip
            for half in (0, 1):  # the exporter beside stack 0's store, then beside stack 1's
                exporter = await start_processor(
                    module,
                    broker.url,
                    stacks[half].prefix,
                    work / f"otel-export{half}",
                    what,
                    *flags,
                )
                procs.append(exporter)
                for i in range(5):
                    for client in clients:
                        await session(client, f"warm{half}-{i}")
                cpu0 = process_cpu(exporter.pid)
                for i in range(pairs // 2):
                    for m in (0, 1) if i % 2 == 0 else (1, 0):
                        n = half if m == 0 else 1 - half  # the stack of mode m in this half
                        before = sum(map(process_cpu, stacks[n].pids))
                        await timed(modes[m], clients[n], f"s{half}-{i}", stacks[n].pids, bpid)
                        answering[m].append(sum(map(process_cpu, stacks[n].pids)) - before)
                # Its last batch closes and its traces are handed over (a batch still open
                # when it stops is not its to send: the broker gives it to the next start).
                await asyncio.sleep(1.0)
                cpu += process_cpu(exporter.pid) - cpu0
                exporter.terminate()  # it sends what it holds as it stops
                await exporter.wait()
            loads.append(load())
            for client in clients:
                await client.close()
        finally:
            await bus.close()
            for proc in procs:
                if proc.returncode is None:
                    proc.terminate()
                    await proc.wait()
            for stack in stacks:
                await stack.stop()
            broker.stop()
            await runner.cleanup()
    pairs = 2 * (pairs // 2)
    diffs = [1000 * (a - b) / K for a, b in zip(modes[0].seconds, modes[1].seconds, strict=True)]
    q1, median, q3 = quartiles(diffs)
    with_ms, without_ms = (1000 * statistics.median(m.seconds) / K for m in modes)
    cpu_diffs = [1000 * (a - b) / K for a, b in zip(*answering, strict=True)]
    c1, c_median, c3 = quartiles(cpu_diffs)
    mean, margin = mean_and_interval(cpu_diffs)
    with_cpu, without_cpu = (1000 * statistics.mean(a) / K for a in answering)
    broker_ms = [1000 * m.cpu_broker / (pairs * K) for m in modes]
    exporter_ms = 1000 * cpu / (pairs * K)
    arm = "the control subscriber" if control else "the exporter"
    print(f"\nexport: {pairs} interleaved pairs of explainable sessions, {K} iterations each")
    print(
        "CPU of the answering processes (agent, text-completion, stand-in) per iteration: "
        f"with {arm} {with_cpu:.3f} ms, without {without_cpu:.3f} ms"
    )
    print(
        f"difference per iteration (per pair): mean {mean:+.3f} ms, 95% interval "
        f"{mean - margin:+.3f} / {mean + margin:+.3f}; median {c_median:+.3f}, quartiles {c1:+.3f} / {c3:+.3f}"
    )
    wall_mean, wall_margin = mean_and_interval(diffs)
    print(
        f"wall ms/iteration (median): with {with_ms:.2f}, without {without_ms:.2f}; difference "
        f"median {median:+.3f} ms, quartiles {q1:+.3f} / {q3:+.3f}; mean {wall_mean:+.3f}, 95% "
        f"interval {wall_mean - wall_margin:+.3f} / {wall_mean + wall_margin:+.3f} (the answering "
        f"processes also wait for the cores {arm} and everything else on the machine use)"
    )
    print(
        f"off the answer path, per iteration: {arm}'s own CPU {exporter_ms:.3f} ms; the "
        f"broker's (shared by both stacks) during sessions with {broker_ms[0]:.3f} ms, without "
        f"{broker_ms[1]:.3f} ms; spans received: {counted[0]}"
    )
    summary(
        "a subscriber's cost per agent iteration (control)"
        if control
        else "OTLP export cost per agent iteration",
        f"{mean:+.3f} ms CPU",
        "≤ 0.1 ms",
        f"answering processes' CPU, mean of {pairs} interleaved pairs, 95% interval "
        f"{mean - margin:+.3f}/{mean + margin:+.3f}; wall median {median:+.3f} (quartiles {q1:+.3f}/{q3:+.3f}); "
        f"{arm}'s CPU {exporter_ms:.3f} ms/it in its own process; load {loads[1]}",
    )


def mean_and_interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation:
    hundreds of pairs)."""
    return statistics.mean(values), 1.96 * statistics.stdev(values) / len(values) ** 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sessions and spans (< 60 s)")
    parser.add_argument("--pairs", type=int, help="session pairs (default 500; quick 100)")
    parser.add_argument("--spans", type=int, help="spans imported (default 100,000; quick 20,000)")
    parser.add_argument("--export-only", action="store_true", help="the export part alone")
    parser.add_argument(
        "--control", action="store_true",
        help="the export part alone, the exporter replaced by a subscriber that does nothing",
    )  # fmt: skip
    if SUBSCRIBER in sys.argv:  # a child of this bench: the control subscriber, alone
        subscriber.main([arg for arg in sys.argv[1:] if arg != SUBSCRIBER])
        return
    args = parser.parse_args()
    pairs = args.pairs or (100 if args.quick else 500)
    spans = args.spans or (20_000 if args.quick else 100_000)
    if not (args.export_only or args.control):
        large_trace_mapping()
        asyncio.run(import_rate(spans))
    asyncio.run(export_cost(pairs, args.control))


if __name__ == "__main__":
    main()
