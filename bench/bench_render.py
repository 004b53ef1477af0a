"""Render benchmark: a 1,000-step agent trace in a real store, shown by tg-show-explain-trace.

    python -m bench.bench_render [--quick] [--steps N]

Runs the broker (pulsar-lite), the store processor and the gateway in this process,
publishes a ``--steps``-step agent trace (every 10th step with a GraphRAG sub-trace) on the
triples-store topic, waits until the store has all of it, then times the real
``tg-show-explain-trace`` console script end to end (fresh process: start-up, one gateway
round trip, server-side assembly, rendering) as text, as text with provenance, and as
JSON. Goal: under 2 s for 1,000 steps. ``--quick`` runs fewer repetitions (< 60 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.summary import summary
from trustgraph_base.messaging import TRIPLES_STORE, Bus, EmbeddedBroker, Topics
from trustgraph_base.provenance import (
    SelectedEdge,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
    graph_rag_exploration_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple, iri
from trustgraph_base.schema import Metadata, Triples
from trustgraph_cli.client import GatewayClient
from trustgraph_cli.options import Gateway as GatewayOptions
from trustgraph_flow.gateway.server import Gateway, GatewaySettings
from trustgraph_flow.store.processor import proc as store

SESSION = "bench-render"
TRACE = uris.agent_session_uri(SESSION)
TIME = "2026-03-01T00:00:00.000Z"
GOAL_SECONDS = 2.0


def step_triples(n: int) -> list[Triple]:
    """Analysis ``n`` (and, every 10th step, the GraphRAG sub-trace it ran)."""
    step, parent = (
        uris.agent_iteration_uri(TRACE, n),
        (uris.agent_iteration_uri(TRACE, n - 1) if n > 1 else TRACE),
    )
    out = agent_iteration_triples(
        step,
        parent,
        f"Step {n}: I should look at the next fact. " * 3,
        "knowledge-query",
        {"question": f"fact number {n}?"},
        f"Fact {n} is that entity {n} relates to {n + 1}. " * 4,
    )
    if n % 10 == 0:
        q = uris.graph_rag_question_uri(f"{SESSION}-sub{n}")
        edge = (
            iri(uris.entity_uri(f"e{n}")),
            iri(uris.relation_uri("relates to")),
            iri(uris.entity_uri(f"e{n + 1}")),
        )
        out += graph_rag_question_triples(q, f"fact number {n}?", TIME, step)
        out += graph_rag_exploration_triples(uris.exploration_uri(q), q, 20)
        out += graph_rag_focus_triples(
            uris.focus_uri(q),
            uris.exploration_uri(q),
            q,
            [SelectedEdge(*edge, "It is the fact asked for.")],
        )
        out += synthesis_triples(uris.synthesis_uri(q), uris.focus_uri(q), f"Fact {n}.")
    return out


def trace_messages(steps: int, per_message: int = 50) -> list[Triples]:
    """The whole trace as Triples batches, question first, conclusion last."""
    batches = [agent_session_triples(TRACE, "Walk through every fact, please.", TIME)]
    for start in range(1, steps + 1, per_message):
        batch: list[Triple] = []
        for n in range(start, min(steps, start + per_message - 1) + 1):
            batch += step_triples(n)
        batches.append(batch)
    batches.append(
        agent_final_triples(
            uris.agent_final_uri(TRACE), uris.agent_iteration_uri(TRACE, steps), "All facts seen."
        )
    )
    return [
        Triples(metadata=Metadata(id=f"bench-{i}", user="trustgraph"), triples=b)
        for i, b in enumerate(batches)
    ]


async def wait_complete(url: str, steps: int) -> float:
    """Poll get-trace until the store has every step and the conclusion; return one round trip."""
    gw = GatewayOptions(url=url, token=None, user="trustgraph", collection="default", debug=False)
    async with GatewayClient(gw, timeout=120) as client:
        while True:
            try:
                started = time.perf_counter()
                data = await client.request("explain", {"operation": "get-trace", "id": TRACE})
                took = time.perf_counter() - started
                trace = data.get("trace") or {}
                if len(trace.get("steps", [])) == steps and trace.get("answer"):
                    return took
            except Exception:  # not there yet (not-found until the question lands)
                pass
            await asyncio.sleep(0.2)


async def timed_cli(url: str, args: list[str], runs: int) -> tuple[float, float, int]:
    """Median and max wall time of the real console script, and its output size in lines."""
    exe = str(Path(sys.executable).parent / "tg-show-explain-trace")
    env = {**os.environ, "TRUSTGRAPH_URL": url, "COLUMNS": "120"}
    samples, lines = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            exe, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
        )
        out, err = await proc.communicate()
        samples.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise RuntimeError(f"tg-show-explain-trace failed: {err.decode().strip()}")
        lines = out.count(b"\n")
    return statistics.median(samples), max(samples), lines


async def run(steps: int, runs: int) -> list[tuple[str, float, str, str]]:
    broker = EmbeddedBroker(Path(tempfile.mkdtemp(prefix="bench-render-broker-")))
    broker.start()
    prefix = f"benchrender{time.monotonic_ns()}"
    data = Path(tempfile.mkdtemp(prefix="bench-render-"))
    stop, ready = asyncio.Event(), asyncio.Event()
    settings = store.settings_cls(pulsar_url=broker.url, topic_prefix=prefix, data_dir=str(data))
    task = asyncio.create_task(store.run(settings, stop, ready))
    gateway = Gateway(
        GatewaySettings(pulsar_url=broker.url, topic_prefix=prefix, host="127.0.0.1", port=0)
    )
    bus = Bus(broker.url)
    try:
        await asyncio.wait_for(ready.wait(), 30)
        url = await gateway.start()
        messages = trace_messages(steps)
        triples = sum(len(m.triples) for m in messages)
        started = time.perf_counter()
        for message in messages:
            await bus.publish(Topics(prefix).topic(TRIPLES_STORE), message)
        round_trip = await wait_complete(url, steps)
        print(
            f"trace: {steps} steps, {steps // 10} sub-traces, {triples:,} triples, "
            f"stored in {time.perf_counter() - started:.2f}s"
        )
        print(f"get-trace round trip (server assembly + JSON): {round_trip * 1000:.0f} ms")
        return await report(url, runs, round_trip)
    finally:
        await bus.close()
        await gateway.stop()
        stop.set()
        await asyncio.gather(task, return_exceptions=True)
        broker.stop()


async def report(url: str, runs: int, round_trip: float) -> list[tuple[str, float, str, str]]:
    rows: list[tuple[str, float, str, str]] = [
        ("get-trace round trip", round_trip, "-", "server side, 1,000 steps")
    ]
    print(f"{'tg-show-explain-trace':44} {'median s':>9} {'max s':>7} {'lines':>7}")
    for label, args in (
        ("text", [TRACE]),
        ("text --show-provenance", [TRACE, "--show-provenance"]),
        ("--format json", [TRACE, "--format", "json"]),
    ):
        median, worst, lines = await timed_cli(url, args, runs)
        verdict = "ok" if median < GOAL_SECONDS else "OVER GOAL"
        print(f"{label:44} {median:9.3f} {worst:7.3f} {lines:7,}  {verdict}")
        rows.append((f"tg-show-explain-trace {label}", median, f"< {GOAL_SECONDS} s", verdict))
        summary(f"1,000-step trace render ({label})", f"{median:.2f} s", f"< {GOAL_SECONDS} s",
                f"server get-trace {round_trip * 1000:.0f} ms")  # fmt: skip
    return rows


def main() -> list[tuple[str, float, str, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (< 60 s)")
    parser.add_argument("--steps", type=int, default=1000, help="agent steps in the trace")
    args = parser.parse_args()
    rows: Any = asyncio.run(run(args.steps, 3 if args.quick else 10))
    return list(rows)


if __name__ == "__main__":
    main()
