"""The store's CPU for agent questions' trace messages, in process, part by part (issues 34
item 5 and 35 item 3): what a stack writes to the explain-store topic for bursts of 50
agent questions (offline engine, ``bench_stages``' documents and questions) is captured
once by a bench subscription on the topic, then replayed into an embedded store with the
store process's deferring seal and collector settings: in batches as the messages arrived
(a pause of ``max_wait`` 20 ms or ``max_linger`` 0.5 s closes one, as the store's batch
consumer does), a signing pass every 0.2 s of their arrival times (``signing_delay``).
Prints the writer thread's CPU per question, by part: decoding, the write (pyoxigraph),
the trace index, signing after each write and in the deferred passes.

A capture is a file (``--capture FILE``, JSON lines); replaying the same file in two trees
(``--replay FILE`` run in each, alternated) compares them on the same messages.
``--copies N`` replays it N times into the same store, each copy's session ids made new, so
the store grows as a running one does (RocksDB's memtables with it); the process's CPU is
printed too (RocksDB's flush and compaction threads, and 3 s after the last write).

    python -m bench.store_trace_writes --capture FILE [--bursts 4]
    python -m bench.store_trace_writes --replay FILE [--rounds 3] [--copies 6]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from bench.bench_agent import load
from bench.bench_concurrency import TIMEOUT, EmbeddedStack, ask
from bench.bench_signing import bench_seals
from bench.bench_stages import BURST, ingest
from bench.otel_store_parts import store_collector
from trustgraph_base.messaging import EXPLAIN_STORE, Bus, Topics
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.wire import decode
from trustgraph_flow.store.backends.embedded import trace_index
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.governance import seal, written
from trustgraph_flow.store.service import writer

MAX_WAIT, MAX_LINGER, SIGNING_DELAY = 0.02, 0.5, 0.2  # the store's settings


async def capture(out: Path, bursts: int) -> None:
    """The trace messages of ``bursts`` bursts of agent questions, with their arrival times."""
    with tempfile.TemporaryDirectory(prefix="bench-trace-writes-") as tmp:
        stack = EmbeddedStack(Path(tmp) / "stack", 0.0)
        await asyncio.to_thread(stack.start)
        try:
            await ingest(stack, Path(tmp), 3)
            bus = Bus(stack.broker_url)
            consumer = await bus.subscribe(Topics("tg").topic(EXPLAIN_STORE), "bench-writes")
            got: list[tuple[float, bytes]] = []

            async def receive() -> None:
                while True:
                    msg = await consumer.receive()
                    got.append((time.monotonic(), bytes(msg.data())))
                    await consumer.acknowledge(msg)

            task = asyncio.create_task(receive())
            timeout = aiohttp.ClientTimeout(total=TIMEOUT)
            async with aiohttp.ClientSession(timeout=timeout) as http:
                for _ in range(bursts):
                    await asyncio.gather(*(ask(http, stack.url, n) for n in range(BURST)))
            await asyncio.sleep(2.0)  # the last messages
            task.cancel()
            await bus.close()
        finally:
            await asyncio.to_thread(stack.stop)
    traces = [(t, d) for t, d in got if GRAPH_RETRIEVAL.encode() in d]  # not the ingest's
    with out.open("w") as f:
        f.write(json.dumps({"questions": bursts * BURST}) + "\n")
        for t, data in traces:
            f.write(json.dumps({"t": t, "data": data.decode()}) + "\n")
    print(f"captured {len(traces)} trace messages of {bursts * BURST} questions in {out}")


def batches(messages: list[tuple[float, bytes]]) -> list[tuple[float, list[bytes]]]:
    """The messages in batches as the store's consumer closes them, each with its start."""
    out: list[tuple[float, list[bytes]]] = []
    first = last = 0.0
    for t, data in messages:
        if not out or t - last > MAX_WAIT or t - first > MAX_LINGER:
            out.append((t, []))
            first = t
        out[-1][1].append(data)
        last = t
    return out


PARTS: list[tuple[Any, str, str]] = [  # what is clocked: (owner, function, label)
    (writer, "write_group", "the write (pyoxigraph)"),
    (trace_index.TraceIndex, "record", "the trace index"),
    (seal.Seal, "after_write", "signing after each write"),
    (written.Written, "fingerprints", "  the writer's record's fingerprints"),
    (seal.Seal, "flush", "signing passes (deferred)"),
]


SESSION = re.compile(rb"(urn:trustgraph:(?:agent|question):)")  # before a trace's session id
SETTLE = 3.0  # seconds the process's CPU is still counted after the last write


def copy(given: list[tuple[float, bytes]], n: int) -> list[tuple[float, bytes]]:
    """The captured messages with every session id made new (copy ``n``: ``c<n>x<id>``)."""
    return [(t, SESSION.sub(rb"\1c%dx" % n, data)) for t, data in given] if n else given


def replay(path: Path, copies: int = 1) -> tuple[float, dict[str, float], int]:
    """The writer thread's CPU (s) in all and by part (``process``: the process's), and the
    questions replayed."""
    lines = path.read_text().splitlines()
    questions = int(json.loads(lines[0])["questions"]) * copies
    captured = [(float(r["t"]), r["data"].encode()) for r in map(json.loads, lines[1:])]
    spent: defaultdict[str, float] = defaultdict(float)
    saved: list[tuple[Any, str, Callable[..., Any]]] = []
    for owner, name, label in PARTS:
        fn = getattr(owner, name)
        saved.append((owner, name, fn))
        setattr(owner, name, clocked(fn, label, spent))
    try:
        with tempfile.TemporaryDirectory(prefix="bench-trace-writes-") as tmp, store_collector():
            _, sealing = bench_seals(Path(tmp))
            stores = Stores(Path(tmp) / "store")
            started, process = time.thread_time(), time.process_time()
            for n in range(copies):
                given = copy(captured, n)
                signed = given[0][0]
                for at, datas in batches(given):
                    t = time.thread_time()
                    msgs = [decode(StoreTriples, d) for d in datas]
                    spent["decoding"] += time.thread_time() - t
                    writer.write_batch(stores, msgs, sealing)
                    if at - signed >= SIGNING_DELAY:
                        sealing.flush(stores)
                        signed = at
                sealing.flush(stores)
            total = time.thread_time() - started
            time.sleep(SETTLE)
            spent["process"] = time.process_time() - process
            stores.close()
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    return total, spent, questions


def clocked(fn: Callable[..., Any], label: str, spent: dict[str, float]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        t = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - t

    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capture", type=Path, help="capture to this file")
    parser.add_argument("--replay", type=Path, help="replay this file")
    parser.add_argument("--bursts", type=int, default=4, help="bursts of 50 questions captured")
    parser.add_argument("--rounds", type=int, default=3, help="replays")
    parser.add_argument("--copies", type=int, default=1, help="copies of the capture a replay")
    args = parser.parse_args()
    if args.capture:
        asyncio.run(capture(args.capture, args.bursts))
    for n in range(1, args.rounds + 1 if args.replay else 0):
        before = load()
        total, spent, questions = replay(args.replay, args.copies)
        parts = ", ".join(f"{k.strip()} {1e3 * v / questions:.2f}" for k, v in spent.items())
        print(
            f"round {n} (load {before}): {1e3 * total / questions:.2f} ms a question on the "
            f"writer thread; {parts}",
            flush=True,
        )


if __name__ == "__main__":
    main()
