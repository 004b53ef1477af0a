"""Concurrency: 50 agent questions at once against one question alone, on the embedded stack.

    python -m bench.bench_concurrency [--quick] [--concurrent 50] [--latency 0.2]

The stack is the one users run: ``tg-start`` (pulsar-lite broker, every processor in its own
process, the gateway) on a fresh data directory, with ``samples/capitals.txt`` loaded, and
the offline engine. Questions go through the gateway's REST API (``POST …/service/agent``)
and each asks for a different capital, so every answer is checked as that question's own:
a request that fails, times out or gets another question's answer counts as lost.

In the same run, on the same stack: ``--rounds`` bursts of ``--concurrent`` questions sent
at once, every latency kept, each burst after a turn of questions asked one at a time (the
``--single`` of them split evenly between the turns). The single-question time is the
median of all of those, so it was measured under the same load as the bursts around it (on
a shared machine the load moves within a run). The goal is p95 of the bursts <= 2x it.

Two modes, each on its own stack: the offline engine answering at once, and answering after
``--latency`` seconds (``TG_OFFLINE_LATENCY``; 0.2 s is SmolLM2-135M's short completion on
these machines, docs/performance.md). At once, every question is CPU from end to end, so a
burst can at best finish in (questions x CPU per question / cores): the CPU each question
costs the stack's processes is measured and that floor printed beside the figure. With a
model's latency, a question mostly waits, and what the burst shows is whether anything
queues questions behind one another (a concurrency limit, a single-file loop). The CPU each
process spends per question over the bursts is printed too: the figure the machine's load
moves least.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from bench.capitals import CAPITALS
from bench.summary import summary
from trustgraph_base.messaging.broker import free_port

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "capitals.txt"
BIN = Path(sys.executable).parent
COUNTRIES = list(CAPITALS)
TIMEOUT = 120.0


def cpu_by_process(root: int) -> dict[str, float]:
    """User+system CPU seconds of ``root`` (``launcher``) and of its children (the stack's
    processes) by name (a processor's module, or the broker), each with its own children
    (Milvus Lite's server under vectors, the SPARQL workers under the store) counted in."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        name = next((a.decode() for a in argv if a.startswith(b"trustgraph_flow.")), "")
        name = name.removeprefix("trustgraph_flow.").removesuffix(".processor")
        stats[pid] = (
            name or Path(argv[0].decode()).name,
            (int(fields[11]) + int(fields[12])) / tick,
        )
    # tg-start itself: its relay thread carries every process's broker traffic.
    found: dict[str, float] = {"launcher": stats[root][1]} if root in stats else {}
    todo = [(pid, "") for pid in children.get(root, [])]
    while todo:
        pid, owner = todo.pop()
        if pid not in stats:
            continue
        name, cpu = stats[pid]
        owner = owner or name
        found[owner] = found.get(owner, 0.0) + cpu
        todo.extend((child, owner) for child in children.get(pid, []))
    return found


class EmbeddedStack:
    """``tg-start`` on a fresh data directory and a free port, stopped with SIGTERM."""

    def __init__(self, data: Path, latency: float) -> None:
        self.data = data
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.env = {**os.environ, "TG_OFFLINE_LATENCY": str(latency), "TRUSTGRAPH_URL": self.url}
        self.env.pop("TG_LLM_BASE_URL", None)
        self.env.pop("OPENAI_BASE_URL", None)
        self.proc: subprocess.Popen[str] | None = None
        self.broker_url = ""

    def start(self) -> None:
        argv = [str(BIN / "tg-start"), "--data-dir", str(self.data), "--port", str(self.port)]
        self.proc = subprocess.Popen(argv, env=self.env, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("broker up on "):
                self.broker_url = line.split()[-1]
            if "explaingraph is up" in line:
                return
        raise RuntimeError(f"tg-start exited ({self.proc.wait()}) before it was up")

    def load(self, path: Path = SAMPLE, *args: str) -> None:
        subprocess.run(
            [str(BIN / "tg-load-document"), str(path), *args],
            env=self.env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=TIMEOUT,
        )

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class Outcome:
    seconds: float
    correct: bool
    detail: str = ""


async def ask(http: aiohttp.ClientSession, url: str, n: int) -> Outcome:
    """Ask question ``n`` (a country's capital); correct only if the answer is its own."""
    country = COUNTRIES[n % len(COUNTRIES)]
    expected = f"{CAPITALS[country]} is the capital of {country}"
    endpoint = url + "api/v1/flow/default/service/agent"
    started = time.perf_counter()
    try:
        async with http.post(
            endpoint, json={"question": f"What is the capital of {country}?"}
        ) as resp:
            body = await resp.json()
    except (aiohttp.ClientError, TimeoutError) as exc:
        return Outcome(time.perf_counter() - started, False, repr(exc))
    seconds = time.perf_counter() - started
    content = str(body.get("content", body))
    return Outcome(seconds, expected in content, content[:120])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@dataclass
class Mode:
    latency: float
    single: list[float] = field(default_factory=list)
    burst: list[float] = field(default_factory=list)
    burst_walls: list[float] = field(default_factory=list)
    asked: int = 0
    lost: list[str] = field(default_factory=list)
    cpu_per_question: float = 0.0
    cpu_burst: dict[str, float] = field(default_factory=dict)  # seconds per process, bursts
    load: list[float] = field(default_factory=list)  # the 1-minute load average, per burst

    @property
    def single_time(self) -> float:
        return statistics.median(self.single)

    @property
    def p95_ratio(self) -> float:
        return percentile(self.burst, 0.95) / self.single_time


async def measure(
    stack: EmbeddedStack, mode: Mode, *, singles: int, concurrent: int, rounds: int
) -> None:
    limits = aiohttp.TCPConnector(limit=0)  # no client-side queue: every burst goes at once
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(connector=limits, timeout=timeout) as http:
        for n in range(8):  # warm up: every process has served a question
            await ask(http, stack.url, n)
        assert stack.proc is not None
        alone = 0
        for burst in range(rounds):
            # A turn of single questions, then a burst: the baseline sees the same load.
            for _ in range(singles * (burst + 1) // rounds - alone):
                out = await ask(http, stack.url, alone)
                alone += 1
                mode.single.append(out.seconds)
                mode.asked += 1
                if not out.correct:
                    mode.lost.append(out.detail)
            cpu_before = cpu_by_process(stack.proc.pid)
            started = time.perf_counter()
            outs = await asyncio.gather(*(ask(http, stack.url, n) for n in range(concurrent)))
            mode.burst_walls.append(time.perf_counter() - started)
            for name, cpu in cpu_by_process(stack.proc.pid).items():
                spent = cpu - cpu_before.get(name, 0.0)
                mode.cpu_burst[name] = mode.cpu_burst.get(name, 0.0) + spent
            mode.load.append(os.getloadavg()[0])
            mode.burst.extend(o.seconds for o in outs)
            mode.asked += len(outs)
            mode.lost.extend(o.detail for o in outs if not o.correct)
        mode.cpu_per_question = sum(mode.cpu_burst.values()) / (rounds * concurrent)


def report(mode: Mode, concurrent: int) -> None:
    p50, p95 = percentile(mode.burst, 0.5), percentile(mode.burst, 0.95)
    single = mode.single_time
    cores = os.cpu_count() or 1
    floor = concurrent * mode.cpu_per_question / cores
    name = "at once" if not mode.latency else f"{mode.latency:g} s per LLM call"
    print(f"\noffline engine answering {name}")
    print(f"  single question: median {1000 * single:.0f} ms "
          f"(p95 {1000 * percentile(mode.single, 0.95):.0f} ms, n={len(mode.single)})")  # fmt: skip
    print(f"  {concurrent} at once: p50 {1000 * p50:.0f} ms, p95 {1000 * p95:.0f} ms "
          f"({p95 / single:.2f}x single), burst wall "
          f"{1000 * statistics.median(mode.burst_walls):.0f} ms (median of {len(mode.burst_walls)})")  # fmt: skip
    print(f"  CPU per question (all stack processes): {1000 * mode.cpu_per_question:.1f} ms; "
          f"{concurrent} questions on {cores} cores need >= {1000 * floor:.0f} ms of wall")  # fmt: skip
    busiest = sorted(mode.cpu_burst.items(), key=lambda kv: -kv[1])
    walls = sum(mode.burst_walls)
    used = sum(cpu for _, cpu in busiest) / walls
    print(f"  the stack's processes used {used:.2f} of the {cores} cores over the bursts; busiest "
          "(CPU s / wall s): "
          + ", ".join(f"{name} {cpu / walls:.2f}" for name, cpu in busiest[:5]))  # fmt: skip
    per_question = [(name, 1000 * cpu / len(mode.burst)) for name, cpu in busiest]
    print("  CPU per question by process (ms): "
          + ", ".join(f"{name} {ms:.1f}" for name, ms in per_question if ms >= 0.05))  # fmt: skip
    load = f"{min(mode.load):.1f}-{max(mode.load):.1f}"
    print(f"  load average over the bursts: {load} ({cores} cores)")
    print(f"  lost: {len(mode.lost)} of {mode.asked}")
    for detail in mode.lost[:5]:
        print(f"    e.g. {detail}")
    goal = "p95 <= 2x single, 0 lost" if mode.latency else "CPU-bound: see note"
    summary(
        f"{concurrent} concurrent agent questions, LLM {name}",
        f"p95 {p95 / single:.2f}x single",
        goal,
        f"p95 {1000 * p95:.0f} ms vs single {1000 * single:.0f} ms same run; "
        f"{len(mode.lost)} lost of {mode.asked}; CPU {1000 * mode.cpu_per_question:.0f} ms/question "
        f"(CPU floor for the burst {1000 * floor:.0f} ms); the stack used {used:.2f} of {cores} "
        f"cores; load average {load}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (< 60 s)")
    parser.add_argument("--concurrent", type=int, default=50, help="questions per burst")
    parser.add_argument("--rounds", type=int, help="bursts per mode (default 4; quick 2)")
    parser.add_argument("--single", type=int, help="one-at-a-time questions (default 30; quick 12)")
    parser.add_argument("--latency", type=float, default=0.2, help="modelled LLM seconds per call")
    args = parser.parse_args()
    rounds = args.rounds or (2 if args.quick else 4)
    singles = args.single or (12 if args.quick else 30)
    with tempfile.TemporaryDirectory(prefix="bench-concurrency-") as tmp:
        for latency in (args.latency, 0.0):
            stack = EmbeddedStack(Path(tmp) / f"stack-{latency:g}", latency)
            mode = Mode(latency)
            try:
                stack.start()
                stack.load()
                asyncio.run(
                    measure(stack, mode, singles=singles, concurrent=args.concurrent, rounds=rounds)
                )
            finally:
                stack.stop()
            report(mode, args.concurrent)


if __name__ == "__main__":
    main()
