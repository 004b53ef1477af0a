"""Agent benchmark: what explainability costs per ReAct iteration.

    python -m bench.bench_agent [--quick] [--pairs N] [--iterations K] [--without-store]

Two agents run side by side on one fresh pulsar-lite broker, each on its own topic
prefix with its own text-completion processor (offline engine) and a stand-in GraphRAG
that answers at once (so the figure is the agent's own overhead, not retrieval): one
with ``explainable`` on, one with it off. Every processor is its own process, as
``tg-start`` runs them; the store serves the explainable agent's prefix (the other
publishes no trace). The agent is given K knowledge-query tools and the stand-in never
helps, so the offline policy tries each once: every session is exactly K iterations (K+1
LLM calls) and, with explainability, 2K+2 trace entities in K+2 messages (the question, one
per step, the conclusion).

Sessions are interleaved — on, off, then off, on, … — so drift in the machine's load
hits both modes alike, and each adjacent on/off pair gives one difference per iteration;
the median and the spread (quartiles) of those differences are the figure. After each
explainable session the bench waits, untimed, until the store has committed its
conclusion, so the store's catching up never lands in the next session's time. Beside
the wall time: the CPU time each mode's processes (agent, text-completion, stand-in) and
the broker used per iteration, and the store process's CPU per explainable iteration (the
ingest cost of the trace, issue 18.1), and how much of it fell inside the timed sessions (the
store writing a trace while its session still runs, on the same cores). The load average is printed before and after: on
a shared machine the wall time swings with it. ``--without-store`` leaves the store out
(the trace is published and read by no one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from bench.bench_store import committed, start_processor, start_store
from bench.summary import summary
from trustgraph_base.messaging import (
    AGENT,
    GRAPH_RAG,
    TRIPLES_QUERY,
    Bus,
    Context,
    EmbeddedBroker,
    Processor,
    RequestClient,
    ServiceSpec,
    Topics,
)
from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
    GraphRagRequest,
    GraphRagResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_cli.read_answers import AgentAnswer
from trustgraph_flow.llm.offline import NOT_SAID

USER = "bench"
UNHELPFUL = "No relevant information was found in the knowledge graph."
AGENT_READ = ServiceSpec(AGENT.name, AgentRequest, AgentAnswer)

standin: Processor[ProcessorSettings] = Processor("bench-graph-rag")
# Whose CPU time is counted per session: this process, then a stack's processes in order.
ROLES = ("client", "text-completion", "stand-in", "agent")
STANDIN = "--standin"  # python -m bench.bench_agent FLAGS --standin: the stand-in alone
# Polls for an explainable session's conclusion: the store holds a lone batch ~20 ms before
# it writes it, so polls before then would only add the store's answers to its CPU per
# iteration (a third of it, polling every 2 ms).
POLLS = {"first_poll": 0.025, "every": 0.005}


@standin.service(GRAPH_RAG)
async def graph_rag(req: GraphRagRequest, ctx: Context[ProcessorSettings]) -> GraphRagResponse:
    """Answer at once, never helpfully: the agent goes on to its next tool."""
    return GraphRagResponse(response=UNHELPFUL)


def tools_json(k: int) -> str:
    """K knowledge-query tools (kq1..kqK): the offline policy tries each once."""
    arg = [{"name": "question", "type": "string", "description": "what to ask"}]
    return json.dumps(
        [
            {"name": f"kq{i}", "kind": "knowledge-query", "description": "Facts.", "arguments": arg}
            for i in range(1, k + 1)
        ]
    )


def load() -> str:
    """``uptime``'s load averages (1, 5 and 15 minutes)."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def process_cpu(pid: int | None) -> float:
    """CPU seconds used so far by process ``pid`` (all its threads): its CPU-time clock, in
    nanoseconds (Linux: the clock id ``clock_getcpuclockid`` gives), else /proc's 10 ms
    ticks, which a session's few milliseconds cannot be told apart with; 0 when unreadable."""
    if pid is None:
        return 0.0
    try:
        return time.clock_gettime(((~pid) << 3) | 2)  # CPUCLOCK_SCHED of the whole process
    except OSError:
        pass
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def threads_cpu(pid: int | None) -> dict[str, float]:
    """CPU seconds used so far by the live threads of process ``pid``, by thread name (/proc's
    10 ms ticks): Python's threads are all ``python``, RocksDB's background (compaction,
    flush) ``rocksdb:low`` and ``rocksdb:high``; a thread that ended is not counted."""
    out: dict[str, float] = {}
    for stat in Path(f"/proc/{pid}/task").glob("*/stat") if pid else ():
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        out[name] = out.get(name, 0.0) + ticks / os.sysconf("SC_CLK_TCK")
    return out


@dataclass
class Mode:
    """What one mode's timed sessions took: wall seconds per session, CPU summed."""

    explainable: bool
    seconds: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)  # by role (ROLES)
    cpu_broker: float = 0.0
    cpu_store: float = 0.0  # the store's, inside this mode's timed sessions

    @property
    def cpu_here(self) -> float:
        """The client's, the agent's, text-completion's and the stand-in's CPU seconds."""
        return sum(self.cpu.values())

    @property
    def name(self) -> str:
        return "explainability on" if self.explainable else "explainability off"


class Stack:
    """Text-completion, stand-in GraphRAG and an agent on one topic prefix, each its own
    process (the store, when there is one, is a process of its own on the same prefix)."""

    def __init__(self, url: str, data: Path, explainable: bool, k: int) -> None:
        self.url = url
        self.explainable = explainable
        self.prefix = f"b{uuid.uuid4().hex[:10]}"
        self.data = data
        self.k = k
        self.procs: list[asyncio.subprocess.Process] = []

    async def start(self) -> None:
        explainable = "--explainable" if self.explainable else "--no-explainable"
        for module, what, flags in (
            ("trustgraph_flow.llm.processor", "text-completion", ()),
            ("bench.bench_agent", "the stand-in GraphRAG", (STANDIN,)),
            ("trustgraph_flow.agent.processor", "the agent", (explainable, "--tools", tools_json(self.k))),
        ):  # fmt: skip
            data = self.data / module
            data.mkdir(parents=True, exist_ok=True)
            # ERROR: text-completion warns at every start that it runs offline; we know.
            proc = await start_processor(
                module, self.url, self.prefix, data, what, *flags, level="ERROR"
            )
            self.procs.append(proc)

    @property
    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs]

    async def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.returncode is None:
                proc.terminate()
        for proc in self.procs:
            await proc.wait()


async def session(client: RequestClient[AgentRequest, AgentAnswer], sid: str) -> AgentResponse:
    """One session, each reply let go once the next arrives, as a streaming caller (the
    gateway, ``tg-invoke-agent``) does, reading what ``tg-invoke-agent`` reads
    (``AgentAnswer``: of the explain triples, only the verdict's are validated). Keeping a session's replies (71 inline triples with
    explainability: some 300 models) set off the client's garbage collector about once a
    session, and a full collection every ~200: +0.07-0.11 ms of client CPU per explainable
    iteration that no streaming caller pays."""
    req = AgentRequest(
        question="What is the capital of France?", user=USER, streaming=True, session_id=sid
    )
    last: AgentResponse | None = None
    async for event in client.stream(req, timeout=60):
        last = event
    assert last is not None and last.content.startswith(NOT_SAID), last
    return last


async def timed(
    mode: Mode,
    client: RequestClient[AgentRequest, AgentAnswer],
    sid: str,
    pids: list[int],
    broker_pid: int | None,
    store_pid: int | None = None,
) -> None:
    """One session of ``mode``, its wall time and CPU added to the mode's (the store's too,
    ``store_pid``: what it does while the session runs, on the same cores)."""
    before = [time.process_time(), *(process_cpu(pid) for pid in pids)]
    broker, store = process_cpu(broker_pid), process_cpu(store_pid)
    started = time.perf_counter()
    await session(client, sid)
    mode.seconds.append(time.perf_counter() - started)
    after = [time.process_time(), *(process_cpu(pid) for pid in pids)]
    for role, used in zip(ROLES, (b - a for a, b in zip(before, after, strict=True)), strict=True):
        mode.cpu[role] = mode.cpu.get(role, 0.0) + used
    mode.cpu_broker += process_cpu(broker_pid) - broker
    mode.cpu_store += process_cpu(store_pid) - store


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def report(off: Mode, on: Mode, k: int, store_cpu: float | None, loads: tuple[str, str]) -> None:
    pairs = len(on.seconds)
    diffs = [1000 * (a - b) / k for a, b in zip(on.seconds, off.seconds, strict=True)]
    print(
        f"\n{pairs} on/off pairs of sessions, interleaved; {k} iterations per session "
        f"({k + 1} LLM calls; with explainability {2 * k + 2} trace entities in {k + 2} messages)"
    )
    print(f"{'mode':<20}{'ms/iteration (median)':>23}{'CPU ms/it procs':>17}{'+ broker':>10}")
    for mode in (off, on):
        ms = 1000 * statistics.median(mode.seconds) / k
        here = 1000 * mode.cpu_here / (pairs * k)
        broker = 1000 * mode.cpu_broker / (pairs * k)
        print(f"{mode.name:<20}{ms:>23.2f}{here:>17.2f}{broker:>10.2f}")
    print(
        "CPU ms/iteration by process, off → on: "
        + ", ".join(
            f"{role} {1000 * off.cpu.get(role, 0) / (pairs * k):.2f} → "
            f"{1000 * on.cpu.get(role, 0) / (pairs * k):.2f}"
            for role in ROLES
        )
    )
    q1, median, q3 = quartiles(diffs)
    ms_on = 1000 * statistics.median(on.seconds) / k
    ms_off = 1000 * statistics.median(off.seconds) / k
    cpu = 1000 * (on.cpu_here + on.cpu_broker - off.cpu_here - off.cpu_broker) / (pairs * k)
    print(
        f"overhead per iteration (on − off, per pair): median {median:+.2f} ms, "
        f"quartiles {q1:+.2f} / {q3:+.2f} ms; on/off median time {ms_on / ms_off:.2f}x"
    )
    print(
        f"CPU overhead per iteration (agent, text-completion, stand-in, client + broker): {cpu:+.2f} ms"
    )
    if store_cpu is not None:
        print(
            f"store process CPU per explainable iteration: {1000 * store_cpu / (pairs * k):.2f} ms"
            f" ({1000 * on.cpu_store / (pairs * k):.2f} of it inside the timed sessions)"
        )
    print(f"load average before: {loads[0]}; after: {loads[1]}")
    summary(
        "provenance overhead per agent iteration",
        f"{median:+.2f} ms",
        "≤ 1 ms",
        f"median of {pairs} interleaved on/off pairs (quartiles {q1:+.2f}/{q3:+.2f} ms), "
        f"{ms_on:.1f} vs {ms_off:.1f} ms/iteration; CPU {cpu:+.2f} ms; load {loads[1]}",
    )


async def main_async(pairs: int, k: int, *, warmup: int, with_store: bool) -> None:
    loads = [load()]
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as tmp:
        work = Path(tmp)
        broker = EmbeddedBroker(work / "broker")
        broker.start()
        broker_pid = broker.proc.pid if broker.proc else None
        stacks = [
            Stack(broker.url, work / "off", False, k),
            Stack(broker.url, work / "on", True, k),
        ]
        store_proc = None
        bus = Bus(broker.url)
        try:
            if with_store:
                store_proc = await start_store(broker.url, stacks[1].prefix, work / "on" / "store")
            for stack in stacks:
                await stack.start()
            clients: list[RequestClient[AgentRequest, AgentAnswer]] = [
                RequestClient(bus, Topics(s.prefix), AGENT_READ, f"bench-{s.explainable}")
                for s in stacks
            ]
            query: RequestClient[TriplesQueryRequest, TriplesQueryResponse] = RequestClient(
                bus, Topics(stacks[1].prefix), TRIPLES_QUERY, "bench-agent-query"
            )
            modes = [Mode(False), Mode(True)]
            for i in range(warmup):
                for client in clients:
                    await session(client, f"warm{i}")
            if with_store:
                await committed(query, f"urn:trustgraph:agent:warm{warmup - 1}/final", **POLLS)
            store_cpu = process_cpu(store_proc.pid if store_proc else None)
            for i in range(pairs):
                order = (0, 1) if i % 2 == 0 else (1, 0)  # alternate which mode goes first
                for m in order:
                    store = store_proc.pid if store_proc and m == 1 else None
                    await timed(modes[m], clients[m], f"s{i}", stacks[m].pids, broker_pid, store)
                    if m == 1 and with_store:  # untimed: the store catches up
                        await committed(query, f"urn:trustgraph:agent:s{i}/final", **POLLS)
                if (i + 1) % max(1, pairs // 4) == 0:
                    print(f"{i + 1} of {pairs} pairs; load average {load()}", flush=True)
            used = process_cpu(store_proc.pid if store_proc else None) - store_cpu
            loads.append(load())
            report(modes[0], modes[1], k, used if with_store else None, (loads[0], loads[1]))
            await query.close()
            for client in clients:
                await client.close()
        finally:
            await bus.close()
            for stack in reversed(stacks):
                await stack.stop()
            if store_proc is not None and store_proc.returncode is None:
                store_proc.terminate()
                await store_proc.wait()
            broker.stop()


def main() -> None:
    if STANDIN in sys.argv:  # a child of this bench: the stand-in GraphRAG, alone
        standin.main([arg for arg in sys.argv[1:] if arg != STANDIN])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer pairs (< 60 s)")
    parser.add_argument(
        "--pairs", type=int, help="on/off pairs of sessions (default 1000; quick 200)"
    )
    parser.add_argument("--iterations", type=int, default=3, help="iterations per session")
    parser.add_argument("--without-store", action="store_true", help="no store: agent cost only")
    args = parser.parse_args()
    pairs = args.pairs or (200 if args.quick else 1000)
    if pairs < 2 or args.iterations < 1:
        parser.error("--pairs must be at least 2 and --iterations at least 1")
    asyncio.run(main_async(pairs, args.iterations, warmup=5, with_store=not args.without_store))


if __name__ == "__main__":
    main()
