"""Trace ingest benchmark: the store's CPU per small trace message (issue 18.2's store side).

    python -m bench.bench_trace_ingest [--quick] [--sessions N] [--iterations K]
                                       [--step-ms MS] [--gap-ms MS]

The agent's trace reaches the store a few triples at a time: per session a question, per
iteration an analysis (with the LLM call's figures) and its Observation entity, and a
conclusion; one ``Triples`` message each, the analysis and its Observation together
(``trace_writer``, the agent's ``record``). This bench publishes exactly
those messages (built by the same provenance builders, ``Metadata.id`` the entity URI) at
an agent's pace — the question, then every ``--step-ms`` a step's message, then the
conclusion, and ``--gap-ms`` before the next session —
into the store processor running as its own process on a fresh pulsar-lite broker, and
prints the store process's CPU per message and per iteration (every thread, from
``/proc``), by thread; beside it the store's CPU while idle (measured first over 2 s;
not subtracted: the clock ticks are 10 ms).

Baseline in the same run: the same messages at the same pace to a bare consumer process
that only receives and acks them (Pulsar's floor per message). The store is asked once at
the end whether the last conclusion is committed (no poll during the run: a poll is a
request the store answers, which bench_agent's figure includes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_store import committed, cpu_seconds, raw_consume, start_store, until_ready
from bench.summary import summary
from trustgraph_base.messaging import (
    EXPLAIN_STORE,
    TRIPLES_QUERY,
    Bus,
    EmbeddedBroker,
    RequestClient,
    Topics,
)
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
    uris,
)
from trustgraph_base.provenance.agent import agent_observation_triples
from trustgraph_base.provenance.common import metrics_triples
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.wire import encode

USER = "bench"
RAW = "--raw-consume"  # python -m bench.bench_trace_ingest --raw-consume URL TOPIC N READY


def figures(uri: str) -> list[Triple]:
    return metrics_triples(
        uri, GRAPH_RETRIEVAL, model="offline", in_token=412, out_token=37, latency_ms=3.512
    )


def session(sid: str, k: int) -> list[list[bytes]]:
    """One agent session's trace messages, as the agent sends them: the question, each
    iteration's analysis and Observation entity in one message, the conclusion."""
    a = uris.agent_session_uri(sid)

    def message(uri: str, triples: list[Triple]) -> bytes:
        meta = Metadata(id=uri, user=USER, collection="default")
        return encode(Triples(metadata=meta, triples=triples))

    question = agent_session_triples(a, "What is the capital of France?", "2026-12-01T10:00:00Z")
    steps = [[message(a, question)]]
    previous = a
    for n in range(1, k + 1):
        it = uris.agent_iteration_uri(a, n)
        analysis = agent_iteration_triples(
            it, previous, f"Tool kq{n} may know.", f"kq{n}", {"question": "capital of France"},
            "No relevant information was found in the knowledge graph.",
        ) + figures(it)  # fmt: skip
        ob = uris.agent_observation_uri(it)
        steps.append([message(it, analysis + agent_observation_triples(ob, it))])
        previous = it
    final = uris.agent_final_uri(a)
    answer = agent_final_triples(final, previous, "No answer was found.") + figures(final)
    steps.append([message(final, answer)])
    return steps


async def publish(
    bus: Bus, topic: str, sessions: list[list[list[bytes]]], step: float, gap: float
) -> None:
    """Every session at an agent's pace; sends are not awaited one by one (as the agent's)."""
    pending: list[asyncio.Future[None]] = []
    for steps in sessions:
        for i, group in enumerate(steps):
            if i:
                await asyncio.sleep(step)
            pending += [asyncio.ensure_future(bus.publish(topic, m)) for m in group]
        await asyncio.gather(*pending)
        pending = []
        await asyncio.sleep(gap)


def threads(pid: int) -> dict[int, float]:
    """CPU seconds so far of each thread of a process, by thread id."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        out[int(task.name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def by_thread(
    pid: int, before: dict[int, float], after: dict[int, float]
) -> tuple[float, float, float]:
    """CPU seconds between two readings: the main thread (the event loop), the busiest other
    thread (the writer, when there are writes) and all the rest (Pulsar's, RocksDB's, …)."""
    used = sorted((t, s - before.get(t, 0.0)) for t, s in after.items())
    main = sum(s for t, s in used if t == pid)
    others = sorted((s for t, s in used if t != pid), reverse=True)
    return main, (others[0] if others else 0.0), sum(others[1:])


async def baseline(
    broker: EmbeddedBroker, sessions: list[list[list[bytes]]], args: argparse.Namespace
) -> float:
    """CPU seconds of a bare consumer receiving and acking the same messages at the same pace."""
    n = sum(len(g) for s in sessions for g in s)
    topic = Topics(f"raw{time.monotonic_ns()}").topic(EXPLAIN_STORE)
    ready = Path(tempfile.mkdtemp(prefix="bench-raw-")) / "ready"
    consumer = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.bench_trace_ingest", RAW, broker.url, topic, str(n), str(ready),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    await until_ready(consumer, ready, "the baseline consumer")
    bus = Bus(broker.url)
    await publish(bus, topic, sessions, args.step_ms / 1000, args.gap_ms / 1000)
    out, _ = await consumer.communicate()
    await bus.close()
    return float(out.split()[-1])


async def store_run(
    broker: EmbeddedBroker, sessions: list[list[list[bytes]]], args: argparse.Namespace
) -> tuple[float, tuple[float, float, float], float]:
    """Store CPU seconds for the run, by thread, and its CPU per second when idle."""
    prefix = f"trace{time.monotonic_ns()}"
    data = Path(tempfile.mkdtemp(prefix="bench-trace-ingest-")) / "data"
    store = await start_store(broker.url, prefix, data)
    bus, control = Bus(broker.url), Bus(broker.url)
    client = RequestClient(control, Topics(prefix), TRIPLES_QUERY, "bench")
    topic = Topics(prefix).topic(EXPLAIN_STORE)
    try:
        await client.start()
        warm = [session(f"warm{i}", args.iterations) for i in range(5)]
        await publish(bus, topic, warm, args.step_ms / 1000, args.gap_ms / 1000)
        await committed(client, uris.agent_final_uri(uris.agent_session_uri("warm4")))
        await asyncio.sleep(0.5)
        idle_from, idle_t = cpu_seconds(store.pid), time.perf_counter()
        await asyncio.sleep(2.0)
        idle = (cpu_seconds(store.pid) - idle_from) / (time.perf_counter() - idle_t)
        before, before_threads = cpu_seconds(store.pid), threads(store.pid)
        await publish(bus, topic, sessions, args.step_ms / 1000, args.gap_ms / 1000)
        await committed(
            client, uris.agent_final_uri(uris.agent_session_uri(f"s{len(sessions) - 1}"))
        )
        used = cpu_seconds(store.pid) - before
        return used, by_thread(store.pid, before_threads, threads(store.pid)), idle
    finally:
        store.terminate()
        await store.wait()
        await client.close()
        await control.close()
        await bus.close()


async def main_async(args: argparse.Namespace) -> None:
    k = args.iterations
    sessions = [session(f"s{i}", k) for i in range(args.sessions)]
    n = sum(len(g) for s in sessions for g in s)
    iterations = args.sessions * k
    print(
        f"Trace ingest: {args.sessions} agent sessions x {k} iterations = {n} messages "
        f"({n // args.sessions} per session, {sum(len(m) for g in sessions[0] for m in g)} bytes), "
        f"a step every {args.step_ms:g} ms, {args.gap_ms:g} ms between sessions; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    with (
        tempfile.TemporaryDirectory(prefix="bench-broker-") as tmp,
        EmbeddedBroker(Path(tmp)) as broker,
    ):
        raw = await baseline(broker, sessions, args)
        used, split, idle = await store_run(broker, sessions, args)
    per_msg, per_it = used / n * 1e6, used / iterations * 1e3
    print(f"  baseline, bare consumer (receive + ack): {raw / n * 1e6:.0f} us CPU per message")
    print(
        f"  store process: {per_msg:.0f} us CPU per message, {per_it:.2f} ms per iteration "
        f"(idle: {idle * 1e3:.1f} ms/s); load average {os.getloadavg()[0]:.1f}"
    )
    main, writer, rest = (1e3 * seconds / iterations for seconds in split)
    print(
        f"    by thread, ms per iteration: event loop {main:.2f}, writer (the busiest other) "
        f"{writer:.2f}, the rest (Pulsar client, RocksDB, …) {rest:.2f}"
    )
    summary(
        "store CPU per agent trace message",
        f"{per_msg:.0f} us ({per_it:.2f} ms per iteration)",
        "-",
        f"bare consumer's receive + ack {raw / n * 1e6:.0f} us in the same run; "
        f"load {os.getloadavg()[0]:.1f}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_trace_ingest")
    parser.add_argument("--quick", action="store_true", help="fewer sessions (< 60 s)")
    parser.add_argument("--sessions", type=int, help="agent sessions (default 300, --quick 100)")
    parser.add_argument("--iterations", type=int, default=3, help="iterations per session")
    parser.add_argument("--step-ms", type=float, default=8.0, help="ms between an agent's steps")
    parser.add_argument("--gap-ms", type=float, default=40.0, help="ms between sessions")
    parser.add_argument(RAW, nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.raw_consume:
        url, topic, n, ready = args.raw_consume
        asyncio.run(raw_consume(url, topic, int(n), ready))
        return
    if args.sessions is None:
        args.sessions = 100 if args.quick else 300
    for name in ("sessions", "iterations"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.step_ms < 0 or args.gap_ms < 0:
        parser.error("--step-ms and --gap-ms must not be negative")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
