"""Agent benchmark: what explainability costs per ReAct iteration.

    python -m bench.bench_agent [--quick] [--sessions N] [--iterations K]

Everything runs in this process on a fresh pulsar-lite broker: the real text-completion
processor (offline engine), the real store (its own data directory), a stand-in GraphRAG
that answers at once (so the figure is the agent's own overhead, not retrieval) and the
agent with ``explainable`` on, then off. The agent is given K knowledge-query tools and the
stand-in never helps, so the offline policy tries each once: every session is exactly K
iterations (K+1 LLM calls) and, with explainability, K+2 trace messages. Sessions run one
after another, streamed; each mode gets a fresh topic prefix and warm-up sessions first.
Beside the wall time, the CPU time each mode used (this process, with the store's
catching up included, plus the broker process) is printed per iteration: on a machine
shared with other work the wall time swings with the load, the CPU time much less.
With explainability on, the time until the store has committed the last conclusion is
printed too (the agent does not wait for the store; the store runs in this event loop and
competes for the same CPU, as it would on one machine). ``--without-store`` leaves the
store out (the trace is published to the broker and read by no one) to separate the
agent's own cost from the store's competition for the CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.summary import summary
from trustgraph_base.messaging import (
    AGENT,
    GRAPH_RAG,
    SPARQL,
    Bus,
    Context,
    EmbeddedBroker,
    Processor,
    RequestClient,
    Topics,
)
from trustgraph_base.schema import (
    AgentRequest,
    AgentResponse,
    GraphRagRequest,
    GraphRagResponse,
    SparqlQueryRequest,
    SparqlQueryResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.llm import processor as llm
from trustgraph_flow.store import processor as store

USER = "bench"
UNHELPFUL = "No relevant information was found in the knowledge graph."

standin: Processor[ProcessorSettings] = Processor("bench-graph-rag")


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


@dataclass
class Run:
    explainable: bool
    sessions: int
    iterations: int
    seconds: float
    drain_seconds: float | None = None
    cpu_seconds: float = 0.0  # this process and the broker, until the store has caught up

    @property
    def cpu_ms_per_iteration(self) -> float:
        return 1000 * self.cpu_seconds / (self.sessions * self.iterations)

    @property
    def per_second(self) -> float:
        return self.sessions / self.seconds

    @property
    def ms_per_iteration(self) -> float:
        return 1000 * self.seconds / (self.sessions * self.iterations)


class Stack:
    """Store, text-completion, stand-in GraphRAG and agent on one topic prefix."""

    def __init__(self, url: str, data: Path, explainable: bool, k: int, with_store: bool) -> None:
        self.with_store = with_store
        self.prefix = f"b{uuid.uuid4().hex[:10]}"
        self.base = ProcessorSettings(
            pulsar_url=url, topic_prefix=self.prefix, data_dir=str(data), log_level="WARNING"
        ).model_dump()
        self.agent_settings = agent.Settings(
            **self.base, explainable=explainable, tools=tools_json(k)
        )
        self.running: list[tuple[asyncio.Event, asyncio.Task[None]]] = []

    async def start(self) -> None:
        if self.with_store:
            await self._start(store.proc, store.StoreSettings(**self.base))
        await self._start(llm.proc, llm.Settings(**self.base))
        await self._start(standin, ProcessorSettings(**self.base))
        await self._start(agent.proc, self.agent_settings)

    async def _start(self, proc: Processor[Any, Any], settings: ProcessorSettings) -> None:
        stop, ready = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(proc.run(settings, stop, ready))
        await asyncio.wait_for(ready.wait(), 30)
        self.running.append((stop, task))

    async def stop(self) -> None:
        for stop, _ in reversed(self.running):
            stop.set()
        await asyncio.gather(*(task for _, task in self.running))


async def session(client: RequestClient[AgentRequest, AgentResponse], sid: str) -> AgentResponse:
    req = AgentRequest(
        question="What is the capital of France?", user=USER, streaming=True, session_id=sid
    )
    events = [e async for e in client.stream(req, timeout=60)]
    return events[-1]


async def committed(bus: Bus, topics: Topics, final_uri: str, timeout: float = 120) -> None:
    """Wait until the store answers that the conclusion ``final_uri`` is there."""
    client: RequestClient[SparqlQueryRequest, SparqlQueryResponse] = RequestClient(
        bus, topics, SPARQL, "bench-agent-sparql"
    )
    query = f"ASK {{ GRAPH ?g {{ <{final_uri}> ?p ?o }} }}"  # a URI we minted: no user text
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            resp = await client.request(SparqlQueryRequest(query=query, user=USER), timeout=30)
            if resp.ask_result:
                return
            await asyncio.sleep(0.01)
        raise TimeoutError(f"the store did not commit {final_uri} within {timeout:g}s")
    finally:
        await client.close()


def cpu_seconds(broker_pid: int | None) -> float:
    """CPU time used so far by this process (all its threads) and the broker process."""
    used = time.process_time()
    if broker_pid is not None:
        try:
            fields = Path(f"/proc/{broker_pid}/stat").read_text().rsplit(")", 1)[1].split()
            used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass  # not Linux: this process only
    return used


async def measure(
    url: str,
    work: Path,
    *,
    explainable: bool,
    sessions: int,
    k: int,
    warmup: int,
    with_store: bool,
    broker_pid: int | None = None,
) -> Run:
    """One mode on a fresh prefix and store: warm up, then time ``sessions`` sessions."""
    stack = Stack(url, work / uuid.uuid4().hex[:8], explainable, k, with_store)
    await stack.start()
    bus = Bus(url)
    topics = Topics(stack.prefix)
    client: RequestClient[AgentRequest, AgentResponse] = RequestClient(bus, topics, AGENT, "bench")
    try:
        for i in range(warmup):
            await session(client, f"warm{i}")
        cpu = cpu_seconds(broker_pid)
        started = time.perf_counter()
        for i in range(sessions):
            last = await session(client, f"s{i}")
        seconds = time.perf_counter() - started
        assert last.content.startswith("No answer was found"), last.content
        run = Run(explainable, sessions, k, seconds)
        if explainable and with_store:
            await committed(bus, topics, f"urn:trustgraph:agent:s{sessions - 1}/final")
            run.drain_seconds = time.perf_counter() - started - seconds
        run.cpu_seconds = cpu_seconds(broker_pid) - cpu
        return run
    finally:
        await client.close()
        await bus.close()
        await stack.stop()


def report(runs: list[Run], k: int) -> None:
    on = [r for r in runs if r.explainable]
    off = [r for r in runs if not r.explainable]
    print(
        f"\n{k} iterations per session ({k + 1} LLM calls; with explainability {k + 2} trace messages)"
    )
    print(f"{'mode':<20}{'sessions/s':>12}{'ms/iteration':>15}{'ms/session':>13}{'CPU ms/it':>12}")
    for name, group in (("explainability off", off), ("explainability on", on)):
        per_s = statistics.median(r.per_second for r in group)
        ms_it = statistics.median(r.ms_per_iteration for r in group)
        cpu_it = statistics.median(r.cpu_ms_per_iteration for r in group)
        print(f"{name:<20}{per_s:>12.1f}{ms_it:>15.2f}{ms_it * k:>13.2f}{cpu_it:>12.2f}")
    ms_on = statistics.median(r.ms_per_iteration for r in on)
    ms_off = statistics.median(r.ms_per_iteration for r in off)
    cpu_on = statistics.median(r.cpu_ms_per_iteration for r in on)
    cpu_off = statistics.median(r.cpu_ms_per_iteration for r in off)
    print(
        f"overhead per iteration: {ms_on - ms_off:+.2f} ms; on/off time ratio {ms_on / ms_off:.2f}x"
    )
    print(
        f"CPU per iteration (this process + broker): {cpu_on - cpu_off:+.2f} ms "
        f"({cpu_on:.2f} vs {cpu_off:.2f}); load average {os.getloadavg()[0]:.1f}"
    )
    summary(
        "provenance overhead per agent iteration",
        f"{ms_on - ms_off:+.2f} ms",
        "small next to an LLM call",
        f"{ms_on:.1f} vs {ms_off:.1f} ms/iteration on/off ({ms_on / ms_off:.2f}x), offline engine",
    )
    drains = [r.drain_seconds for r in on if r.drain_seconds is not None]
    if not drains:
        return
    print(
        f"store caught up {1000 * statistics.median(drains):.0f} ms after the last answer (median)"
    )


async def main_async(sessions: int, k: int, rounds: int, *, warmup: int, with_store: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as tmp:
        work = Path(tmp)
        broker = EmbeddedBroker(work / "broker")
        broker.start()
        try:
            runs: list[Run] = []
            for r in range(rounds):  # alternate the modes so drift hits both alike
                for explainable in (False, True) if r % 2 == 0 else (True, False):
                    run = await measure(
                        broker.url,
                        work,
                        explainable=explainable,
                        sessions=sessions,
                        k=k,
                        warmup=warmup,
                        with_store=with_store,
                        broker_pid=broker.proc.pid if broker.proc else None,
                    )
                    runs.append(run)
                    mode = "on " if explainable else "off"
                    print(f"round {r + 1} explainability {mode}: {run.sessions} sessions in "
                          f"{run.seconds:.2f} s, {run.ms_per_iteration:.2f} ms/iteration")  # fmt: skip
            report(runs, k)
        finally:
            broker.stop()


def main() -> None:
    # The text-completion processor warns at every start that it runs offline: we know.
    logging.getLogger(llm.__name__).setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sessions (< 60 s)")
    parser.add_argument("--sessions", type=int, help="sessions per run (default 300; quick 60)")
    parser.add_argument("--iterations", type=int, default=3, help="iterations per session")
    parser.add_argument("--rounds", type=int, help="on/off pairs (default 3; quick 2)")
    parser.add_argument("--without-store", action="store_true", help="no store: agent cost only")
    args = parser.parse_args()
    sessions = args.sessions or (60 if args.quick else 300)
    rounds = args.rounds or (2 if args.quick else 3)
    asyncio.run(
        main_async(sessions, args.iterations, rounds, warmup=5, with_store=not args.without_store)
    )


if __name__ == "__main__":
    main()
