"""Per-stage throughput: what one process of each stage costs per unit of its work.

    python -m bench.bench_stages [--quick] [--documents N] [--bursts N]

The stack is ``tg-start`` (pulsar-lite, every processor in its own process, the gateway),
offline engine at once, on a fresh data directory. Three phases drive it over the real
broker, each loading the stages it exercises and no others:

- ingest: ``--documents`` text documents (the text samples, each copy made distinct) loaded
  with ``tg-load-document``, three at a time: librarian, decoder, chunker, extractor,
  embeddings, vectors and the store's writes;
- agent: bursts of 50 agent questions through the gateway's REST API (as
  ``bench_concurrency``): agent, GraphRAG, text-completion, embeddings, vectors, the
  store's queries and trace writes, the gateway;
- document-rag: bursts of 50 DocumentRAG questions through the gateway.

Every processor is its own process, so the CPU each one spent in a phase (user + system,
from /proc), divided by the units of work it did there (documents, pages, chunks, triples,
questions), is what one replica costs per unit; its inverse is the most one replica can do
on one core (Python runs one event loop per process: one core, except the store's writer
and reader threads). The units are counted on the broker: a bench subscription on each
one-way topic counts the messages (and the triples the store takes from ``triples-store``
and ``explain-store``) while the phase
runs. The wall rate beside it is what this 2-core, shared machine delivered with every
stage competing for the same cores. docs/deploy.md turns these into replica counts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bench.bench_concurrency import BIN, ROOT, TIMEOUT, EmbeddedStack, ask, cpu_by_process
from bench.broker_counts import metrics_url, per_unit, reading
from bench.summary import summary
from trustgraph_base.messaging import (
    CHUNKS,
    DOCUMENT_LOADED,
    EXPLAIN_STORE,
    PAGES,
    TRIPLES_STORE,
    Bus,
    Topic,
    Topics,
)
from trustgraph_base.schema import Triples
from trustgraph_base.wire import decode

SAMPLES = [ROOT / "samples" / n for n in ("capitals.txt", "scientists.txt", "writers.md")]
BURST = 50
ONE_WAY: dict[str, Topic[Any]] = {
    "document-loaded": DOCUMENT_LOADED,
    "pages": PAGES,
    "chunks": CHUNKS,
}
STORED: dict[str, Topic[Triples]] = {"triples-store": TRIPLES_STORE, "explain-store": EXPLAIN_STORE}


class Counts:
    """Messages seen on the one-way topics (and triples the store takes) since subscribing."""

    def __init__(self, bus: Bus, topics: Topics) -> None:
        self.bus = bus
        self.topics = topics
        self.seen: Counter[str] = Counter()
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        for name, topic in [*ONE_WAY.items(), *STORED.items()]:
            consumer = await self.bus.subscribe(self.topics.topic(topic), "bench-stages")
            self.tasks.append(asyncio.create_task(self._count(name, consumer)))

    async def _count(self, name: str, consumer: object) -> None:
        while True:
            msg = await consumer.receive()  # type: ignore[attr-defined]
            self.seen[name] += 1
            if name in STORED:
                self.seen["triples"] += len(decode(Triples, msg.data()).triples)
            await consumer.acknowledge(msg)  # type: ignore[attr-defined]

    async def settled(self) -> Counter[str]:
        """The counts once nothing new has arrived for a second (the stack has caught up)."""
        last: Counter[str] | None = None
        while last != self.seen:
            last = Counter(self.seen)
            await asyncio.sleep(1.0)
        return Counter(self.seen)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@dataclass
class Phase:
    name: str
    wall: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    units: dict[str, float] = field(default_factory=dict)  # e.g. {"questions": 200}
    published: tuple[Counter[str], Counter[str]] = (Counter(), Counter())  # broker, before/after


async def run_phase(
    stack: EmbeddedStack, counts: Counts, phase: Phase, work: asyncio.Future[Any]
) -> None:
    """Time ``work`` and the stack's catching up after it; CPU and counts over both."""
    assert stack.proc is not None
    before, seen = cpu_by_process(stack.proc.pid), Counter(counts.seen)
    broker = metrics_url(stack.data)
    published = reading(broker)
    started = time.perf_counter()
    await work
    after_counts = await counts.settled()
    phase.wall = time.perf_counter() - started - 1.0  # settled() waits one quiet second
    after = cpu_by_process(stack.proc.pid)
    phase.published = (published, reading(broker))
    phase.cpu = {k: v - before.get(k, 0.0) for k, v in after.items()}
    phase.counts = after_counts - seen


async def ingest(stack: EmbeddedStack, tmp: Path, documents: int) -> None:
    gate = asyncio.Semaphore(3)

    async def one(n: int) -> None:
        path = tmp / f"doc{n}{SAMPLES[n % len(SAMPLES)].suffix}"
        path.write_text(SAMPLES[n % len(SAMPLES)].read_text() + f"\n\nCopy number {n}.\n")
        async with gate:
            proc = await asyncio.create_subprocess_exec(
                str(BIN / "tg-load-document"),
                str(path),
                "--id",
                f"bench-doc-{n}",
                env=stack.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            code = await asyncio.wait_for(proc.wait(), TIMEOUT)
            if code != 0:
                raise RuntimeError(f"tg-load-document exited {code} for {path.name}")

    await asyncio.gather(*(one(n) for n in range(documents)))


async def bursts(stack: EmbeddedStack, bursts: int, service: str) -> int:
    """``bursts`` bursts of 50 questions; the number answered correctly."""
    good = 0
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=TIMEOUT)
    ) as http:
        for _ in range(bursts):
            if service == "agent":
                outs = await asyncio.gather(*(ask(http, stack.url, n) for n in range(BURST)))
                good += sum(o.correct for o in outs)
            else:
                good += sum(
                    await asyncio.gather(*(doc_rag(http, stack.url, n) for n in range(BURST)))
                )
    return good


async def doc_rag(http: aiohttp.ClientSession, url: str, n: int) -> bool:
    body = {"query": f"Which scientist is question {n} about?"}
    with contextlib.suppress(aiohttp.ClientError, TimeoutError):
        async with http.post(url + "api/v1/flow/default/service/document-rag", json=body) as r:
            return r.status == 200 and bool((await r.json()).get("response"))
    return False


# (process as cpu_by_process names it, its unit, the phase, how to count the units)
ROWS: list[tuple[str, str, str, str]] = [
    ("librarian", "document", "ingest", "documents"),
    ("decoder", "document", "ingest", "document-loaded"),
    ("chunker", "page", "ingest", "pages"),
    ("extractor", "chunk", "ingest", "chunks"),
    ("embeddings", "chunk", "ingest", "chunks"),
    ("vectors", "chunk", "ingest", "chunks"),
    ("store", "ingest triple", "ingest", "triples"),
    ("agent", "question", "agent", "questions"),
    ("graph_rag", "question", "agent", "questions"),
    ("llm", "question (4 calls)", "agent", "questions"),
    ("embeddings", "question", "agent", "questions"),
    ("vectors", "question", "agent", "questions"),
    ("store", "question", "agent", "questions"),
    ("gateway.server", "question", "agent", "questions"),
    ("pulsar-lite", "question", "agent", "questions"),
    ("document_rag", "question", "document-rag", "questions"),
    ("store", "trace triple", "agent", "triples"),
]


def report(phases: dict[str, Phase]) -> None:
    for p in phases.values():
        units = ", ".join(f"{v:g} {k}" for k, v in p.units.items())
        print(f"\nphase {p.name}: {p.wall:.1f} s wall; {units}; broker counts {dict(p.counts)}")
        busy = sorted(p.cpu.items(), key=lambda kv: -kv[1])[:8]
        print("  CPU s: " + ", ".join(f"{k} {v:.2f}" for k, v in busy))
    print(f"\n{'process':<16}{'per unit':<20}{'CPU ms/unit':>12}{'per core /s':>13}{'wall /s':>10}")
    for proc, unit, phase_name, key in ROWS:
        p = phases[phase_name]
        n = p.units.get(key) or p.counts.get(key, 0)
        cpu = p.cpu.get(proc, 0.0)
        if not n or not cpu:
            continue
        ms = 1000 * cpu / n
        print(f"{proc:<16}{unit:<20}{ms:>12.2f}{1000 / ms:>13,.0f}{n / p.wall:>10,.1f}")
    agent = phases["agent"]
    q = agent.units["questions"]
    print(f"\nper agent question: {agent.counts['explain-store'] / q:.1f} trace messages, "
          f"{agent.counts['triples'] / q:.1f} trace triples (agent + GraphRAG sub-trace)")  # fmt: skip
    total = sum(agent.cpu.values()) / q
    # the bench's own subscription's receives are not the broker's: it counts publishes only
    print("broker messages per agent question: " + per_unit(*agent.published, q))
    by_process = sorted(agent.cpu.items(), key=lambda kv: -kv[1])
    print("CPU per agent question by process (ms): "
          + ", ".join(f"{k} {1000 * v / q:.2f}" for k, v in by_process if v > 0))  # fmt: skip
    print(f"CPU per agent question, all processes: {1000 * total:.1f} ms")
    summary(
        "CPU per agent question, every stage",
        f"{1000 * total:.1f} ms",
        "sizing input (docs/deploy.md)",
        f"{agent.counts['triples'] / q:.0f} trace triples/question; per-stage table above",
    )


async def main_async(args: argparse.Namespace, tmp: Path) -> dict[str, Phase]:
    stack = EmbeddedStack(tmp / "stack", 0.0)
    phases: dict[str, Phase] = {}
    try:
        await asyncio.to_thread(stack.start)
        bus = Bus(stack.broker_url)
        counts = Counts(bus, Topics("tg"))
        await counts.start()
        try:
            p = phases["ingest"] = Phase("ingest", units={"documents": args.documents})
            await run_phase(
                stack, counts, p, asyncio.ensure_future(ingest(stack, tmp, args.documents))
            )
            for service in ("agent", "document-rag"):
                p = phases[service] = Phase(service)
                task = asyncio.ensure_future(bursts(stack, args.bursts, service))
                await run_phase(stack, counts, p, task)
                p.units = {"questions": BURST * args.bursts, "answered": task.result()}
        finally:
            await counts.stop()
            await bus.close()
    finally:
        await asyncio.to_thread(stack.stop)
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run (< 90 s)")
    parser.add_argument("--documents", type=int, help="documents ingested (default 30; quick 9)")
    parser.add_argument(
        "--bursts", type=int, help="bursts of 50 per question phase (default 4; quick 2)"
    )
    args = parser.parse_args()
    args.documents = args.documents or (9 if args.quick else 30)
    args.bursts = args.bursts or (2 if args.quick else 4)
    with tempfile.TemporaryDirectory(prefix="bench-stages-") as tmp:
        phases = asyncio.run(main_async(args, Path(tmp)))
    report(phases)
    print(f"(cores here: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
