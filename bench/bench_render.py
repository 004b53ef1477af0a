"""Render benchmark: long agent traces stored, assembled and shown end to end, stage by stage.

    python -m bench.bench_render [--quick] [--steps N ...] [--data DIR] [--direct] [--no-viewer]

Runs the broker (pulsar-lite), the store processor and the gateway in this process and, for
each ``--steps`` (default 1,000, the baseline, and 20,000), publishes an agent trace of that
many steps (every 10th step with a GraphRAG sub-trace) on the explain-store topic, then
times each stage: stored (publish until the store has every step and the conclusion),
assembled (a streamed get-trace through the gateway's WebSocket: first piece and all of
it), and shown by the real ``tg-show-explain-trace`` console script in a fresh process
(start-up, the streamed round trip, rendering) as text, with provenance and as JSON; and,
where chromium and Playwright are installed, the web viewer opening the trace and
scrolling to its last step. Goal (issue 18): 20,000 steps shown in <= 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.summary import summary
from tests.browser.support import missing
from trustgraph_base.messaging import EXPLAIN_STORE, Bus, EmbeddedBroker, Topics
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
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.processor import proc as store
from trustgraph_flow.store.service.writer import write_batch

TIME = "2026-03-01T00:00:00.000Z"
GOAL_SECONDS = 2.0
BASELINE: dict[str, dict[str, float]] = {}  # per command line: the first trace's figures


def uptime() -> str:
    """The load average beside a figure (the machine is shared: figures move with it)."""
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def session(steps: int) -> str:
    return f"bench-render-{steps}"


def trace_uri(steps: int) -> str:
    return uris.agent_session_uri(session(steps))


def step_triples(trace: str, n: int) -> list[Triple]:
    """Analysis ``n`` of ``trace`` (and, every 10th step, the GraphRAG sub-trace it ran)."""
    step, parent = (
        uris.agent_iteration_uri(trace, n),
        (uris.agent_iteration_uri(trace, n - 1) if n > 1 else trace),
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
        q = uris.graph_rag_question_uri(f"{trace.rsplit(':', 1)[1]}-sub{n}")
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
    trace = trace_uri(steps)
    batches = [agent_session_triples(trace, "Walk through every fact, please.", TIME)]
    for start in range(1, steps + 1, per_message):
        batch: list[Triple] = []
        for n in range(start, min(steps, start + per_message - 1) + 1):
            batch += step_triples(trace, n)
        batches.append(batch)
    batches.append(
        agent_final_triples(
            uris.agent_final_uri(trace), uris.agent_iteration_uri(trace, steps), "All facts seen."
        )
    )
    return [
        Triples(metadata=Metadata(id=f"bench-{steps}-{i}", user="trustgraph"), triples=b)
        for i, b in enumerate(batches)
    ]


def gateway_options(url: str) -> GatewayOptions:
    return GatewayOptions(url=url, token=None, user="trustgraph", collection="default", debug=False)


async def wait_complete(url: str, steps: int) -> None:
    """Poll until the store has every step and the conclusion (the last step's window)."""
    trace = trace_uri(steps)
    async with GatewayClient(gateway_options(url), timeout=120) as client:
        while True:
            try:
                request = {"operation": "get-trace", "id": trace, "step_offset": steps - 1}
                data = await client.request("explain", {**request, "step_limit": 1})
                if data.get("step_total") == steps and (data.get("trace") or {}).get("answer"):
                    return
            except Exception:  # not there yet (not-found until the question lands)
                pass
            await asyncio.sleep(0.2)


async def timed_stream(url: str, steps: int, provenance: bool) -> tuple[float, float, int, int]:
    """A streamed get-trace through the gateway: seconds to the first piece and to the last,
    the steps received and the JSON bytes."""
    request = {"operation": "get-trace", "id": trace_uri(steps), "streaming": True}
    async with GatewayClient(gateway_options(url), timeout=120) as client:
        started = time.perf_counter()
        first, got, size = 0.0, 0, 0
        async for data in client.stream("explain", {**request, "include_provenance": provenance}):
            first = first or time.perf_counter() - started
            got += len(data["trace"]["steps"])
            size += len(json.dumps(data))
        return first, time.perf_counter() - started, got, size


async def timed_cli(url: str, args: list[str], runs: int) -> dict[str, float]:
    """Medians of the real console script's wall time, its own CPU time and the CPU time of
    this process meanwhile (the store and the gateway), the max wall time, and its lines.

    CPU times say what the stages cost however loaded the shared machine is; on two free
    cores the command and the store run side by side, a piece apart.
    """
    exe = str(Path(sys.executable).parent / "tg-show-explain-trace")
    env = {**os.environ, "TRUSTGRAPH_URL": url, "COLUMNS": "120"}
    walls, cli_cpu, server_cpu, lines = [], [], [], 0
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started, cpu = time.perf_counter(), time.process_time()
        proc = await asyncio.create_subprocess_exec(
            exe, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
        )
        out, err = await proc.communicate()
        walls.append(time.perf_counter() - started)
        server_cpu.append(time.process_time() - cpu)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cli_cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if proc.returncode != 0:
            raise RuntimeError(f"tg-show-explain-trace failed: {err.decode().strip()}")
        lines = out.count(b"\n")
    return {
        "wall": statistics.median(walls),
        "max": max(walls),
        "cli_cpu": statistics.median(cli_cpu),
        "server_cpu": statistics.median(server_cpu),
        "lines": lines,
    }


def write_direct(data: Path, all_steps: list[int]) -> set[int]:
    """Write the traces not yet in ``data`` through the writer code path (no Pulsar: a
    20,000-step trace takes minutes through the broker on a loaded machine); the steps of
    every trace now there."""
    marker = data / "bench-render-traces.json"
    there = set(json.loads(marker.read_text())) if marker.exists() else set()
    todo = [n for n in all_steps if n not in there]
    if todo:
        stores = Stores(data / "store")
        for steps in todo:
            started = time.process_time()
            write_batch(stores, trace_messages(steps))
            print(
                f"{steps:,}-step trace written directly: {time.process_time() - started:.1f} s CPU"
            )
        stores.close()
        there |= set(todo)
        marker.write_text(json.dumps(sorted(there)))
    return there


async def run(
    all_steps: list[int], runs: int, data: Path | None, direct: bool, viewer_too: bool
) -> None:
    broker = EmbeddedBroker(Path(tempfile.mkdtemp(prefix="bench-render-broker-")))
    broker.start()
    prefix = f"benchrender{time.monotonic_ns()}"
    data = data or Path(tempfile.mkdtemp(prefix="bench-render-"))
    written = write_direct(data, all_steps) if direct else set()
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
        for steps in all_steps:
            messages = trace_messages(steps)
            triples = sum(len(m.triples) for m in messages)
            started = time.perf_counter()
            if steps not in written:
                for message in messages:
                    await bus.publish(Topics(prefix).topic(EXPLAIN_STORE), message)
            await wait_complete(url, steps)
            stored = time.perf_counter() - started
            how = "written directly before" if steps in written else "stored through Pulsar in"
            print(
                f"\n{steps:,}-step trace ({steps // 10:,} sub-traces, {triples:,} triples): "
                f"{how} {stored:.2f} s ({uptime()})"
            )
            await report(url, steps, runs)
        if viewer_too and missing() is None:
            await viewer(url, all_steps)
    finally:
        await bus.close()
        await gateway.stop()
        stop.set()
        await asyncio.gather(task, return_exceptions=True)
        broker.stop()


async def report(url: str, steps: int, runs: int) -> None:
    streams = [await timed_stream(url, steps, True) for _ in range(runs)]
    first = statistics.median(s[0] for s in streams)
    whole = statistics.median(s[1] for s in streams)
    got, size = streams[0][2], streams[0][3]
    print(
        f"  assembled: streamed get-trace through the gateway, first piece {first * 1000:.0f} ms, "
        f"all {got:,} steps {whole:.2f} s ({size / 1e6:.1f} MB of JSON), median of {runs}"
    )
    print(
        f"  {'shown: tg-show-explain-trace':30} {'wall s':>7} {'max s':>6} "
        f"{'CLI cpu s':>9} {'store+gw cpu s':>14} {'lines':>8}"
    )
    trace = trace_uri(steps)
    for label, args in (
        ("text", [trace]),
        ("text --show-provenance", [trace, "--show-provenance"]),
        ("--format json", [trace, "--format", "json"]),
    ):
        t = await timed_cli(url, args, runs)
        verdict = "ok" if t["wall"] <= GOAL_SECONDS else "OVER GOAL"
        base = BASELINE.setdefault(label, t)  # the first (smallest) trace of the run
        ratio = f"{t['wall'] / base['wall']:.1f}x" if base is not t else "baseline"
        print(
            f"  {label:30} {t['wall']:7.2f} {t['max']:6.2f} {t['cli_cpu']:9.2f} "
            f"{t['server_cpu']:14.2f} {t['lines']:8,.0f}  {verdict}, {ratio} ({uptime()})"
        )
        summary(
            f"{steps:,}-step trace, tg-show-explain-trace {label}",
            f"{t['wall']:.2f} s",
            f"<= {GOAL_SECONDS:g} s" if steps >= 20_000 else "baseline",
            f"{ratio} the first trace's wall time; CPU: command {t['cli_cpu']:.2f} s, "
            f"store+gateway {t['server_cpu']:.2f} s; streamed get-trace alone {whole:.2f} s; "
            f"{uptime()}",
        )


async def viewer(url: str, all_steps: list[int]) -> None:
    """The web viewer: navigation until the trace is interactive, then until its last step shows."""
    from bench.bench_viewer import ready_ms
    from tests.browser.support import browser

    async with browser() as b:
        page = await b.new_page(viewport={"width": 1280, "height": 900})
        for steps in all_steps:
            target = f"{url}#/trace/{trace_uri(steps)}"
            opened = [await ready_ms(page, target, "trace") for _ in range(3)]
            last = await page.evaluate(LAST_STEP_JS, f"Step {steps}")
            print(
                f"  viewer, {steps:,}-step trace: interactive {statistics.median(opened):.0f} ms "
                f"after navigation (median of 3); End key to step {steps:,} shown: "
                f"{last['ms']:.0f} ms, {last['rows']} rows in the DOM"
            )
            summary(
                f"{steps:,}-step trace, web viewer",
                f"open {statistics.median(opened):.0f} ms, last step +{last['ms']:.0f} ms",
                f"<= {GOAL_SECONDS:g} s" if steps >= 20_000 else "baseline",
                "navigation to interactive tree; End to the last step rendered",
            )


LAST_STEP_JS = """async (title) => {
  const tree = document.querySelector('.tree .rows');
  const t = performance.now();
  tree.dispatchEvent(new KeyboardEvent('keydown', {key: 'End', bubbles: true}));
  const shown = () => [...document.querySelectorAll('.tree .row:not(.placeholder) .title')].some(e => e.textContent === title);
  while (!shown()) {
    await new Promise(r => setTimeout(r, 5));
    if (performance.now() - t > 60000) break;
  }
  return {ms: performance.now() - t, rows: document.querySelectorAll('.tree .row').length};
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (< 2 min)")
    parser.add_argument(
        "--steps", type=int, nargs="+", default=[1000, 20_000], help="agent steps per trace"
    )
    parser.add_argument(
        "--data", type=Path, help="keep the store's files here (a rerun reuses the traces)"
    )
    parser.add_argument(
        "--direct",
        action="store_true",
        help="write the traces through the writer code path, not Pulsar (no 'stored' figure)",
    )
    parser.add_argument("--no-viewer", action="store_true", help="leave out the web viewer")
    args = parser.parse_args()
    runs = 2 if args.quick else 5
    asyncio.run(run(args.steps, runs, args.data, args.direct, not args.no_viewer))


if __name__ == "__main__":
    main()
