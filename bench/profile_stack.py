"""Where each process of the stack spends its time during agent questions: py-spy on every one.

    python -m bench.profile_stack [--bursts 4] [--top 15] [--gil] [--out DIR]

Starts ``tg-start`` (offline engine) on a fresh data directory, loads the text samples,
asks 20 agent questions to warm it, then records every process of the stack with py-spy
(sampling, from outside: no process is changed) while it answers ``--bursts`` bursts of
50 agent questions. Prints, per process, its CPU per question (from /proc, as
``bench_stages``), the broker's messages per question (``broker_counts``) and the
functions most often on top of its stacks (self) and, of the project's own, anywhere in them
(inclusive). The raw
stacks (py-spy's collapsed format) stay in ``--out`` for a closer look.

py-spy is not a dependency of the project: ``pip install py-spy`` into the venv first (it
needs ptrace on the stack's processes: the same user, or ``CAP_SYS_PTRACE``). Samples are
of threads py-spy finds running, not of CPU time: a thread waiting for the GIL counts, and
one in ``epoll_wait`` or ``sleep`` often does too; ``--gil`` samples only the thread holding
the GIL (Python's own work; the C threads of pulsar-client and gRPC are not seen).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import aiohttp

from bench.bench_concurrency import TIMEOUT, EmbeddedStack, ask, cpu_by_process
from bench.bench_stages import BURST, SAMPLES
from bench.broker_counts import metrics_url, per_unit, reading

_LINE = re.compile(r":\d+\)$")


def children(root: int) -> dict[str, int]:
    """The stack's processes by name (a processor's module, else the program), and tg-start."""
    found = {"launcher": root}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == root:
            module = next((a.decode() for a in argv if a.startswith(b"trustgraph_flow.")), "")
            name = module.removeprefix("trustgraph_flow.").removesuffix(".processor")
            found[name or Path(argv[0].decode()).name] = int(entry.name)
    return found


def hot(path: Path, top: int) -> list[str]:
    """The ``top`` functions by samples on top of the stack, then anywhere in it."""
    own: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [_LINE.sub(")", f) for f in stack.split(";") if f]
        if not frames or not count.isdigit():
            continue
        n = int(count)
        total += n
        own[frames[-1]] += n
        for frame in {f for f in frames if "trustgraph_" in f}:  # the project's own
            anywhere[frame] += n
    if not total:
        return ["  (no samples)"]
    out = [f"  {total} samples; self:"]
    out += [f"    {100 * n / total:5.1f}% {f}" for f, n in own.most_common(top)]
    out.append("  inclusive (the project's functions):")
    out += [f"    {100 * n / total:5.1f}% {f}" for f, n in anywhere.most_common(top * 2)]
    return out


async def questions(url: str, n: int) -> int:
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        return sum(o.correct for o in await asyncio.gather(*(ask(http, url, i) for i in range(n))))


def profile(args: argparse.Namespace, spy: str, stack: EmbeddedStack) -> None:
    assert stack.proc is not None
    for n, sample in enumerate(SAMPLES):
        stack.load(sample, "--id", f"profile-{n}")
    asyncio.run(questions(stack.url, 20))  # warm: first subscriptions, caches
    procs = children(stack.proc.pid)
    spies = {
        name: subprocess.Popen(
            [
                spy,
                "record",
                "--pid",
                str(pid),
                "--rate",
                "200",
                "--format",
                "raw",
                "--nonblocking",
                *(["--gil"] if args.gil else []),
                "-o",
                str(args.out / f"{name}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, pid in procs.items()
    }
    broker = metrics_url(stack.data)
    cpu, published = cpu_by_process(stack.proc.pid), reading(broker)
    good = sum(asyncio.run(questions(stack.url, BURST)) for _ in range(args.bursts))
    after, published_after = cpu_by_process(stack.proc.pid), reading(broker)
    for proc in spies.values():
        proc.send_signal(2)  # py-spy writes its file on SIGINT
    for proc in spies.values():
        proc.wait(60)
    q = BURST * args.bursts
    print(f"{q} agent questions, {good} answered right; py-spy stacks in {args.out}")
    print("broker per agent question: " + per_unit(published, published_after, q))
    per_question = {k: 1000 * (v - cpu.get(k, 0.0)) / q for k, v in after.items()}
    for name, ms in sorted(per_question.items(), key=lambda kv: -kv[1]):
        path = args.out / f"{name}.txt"
        if ms < 0.05 or not path.exists():
            continue
        print(f"\n{name}: {ms:.2f} ms of CPU per question (with py-spy's own interruptions)")
        print("\n".join(hot(path, args.top)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bursts", type=int, default=4, help="bursts of 50 questions")
    parser.add_argument("--top", type=int, default=15, help="functions shown per process")
    parser.add_argument(
        "--gil", action="store_true", help="sample only the thread holding the GIL (py-spy --gil)"
    )
    parser.add_argument("--out", type=Path, help="where py-spy's stacks go (default: a new dir)")
    args = parser.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        raise SystemExit("py-spy is not installed: pip install py-spy (into this venv)")
    args.out = args.out or Path(tempfile.mkdtemp(prefix="profile-stacks-"))  # kept
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="profile-stack-") as tmp:
        stack = EmbeddedStack(Path(tmp) / "stack", 0.0)
        stack.start()
        try:
            profile(args, spy, stack)
        finally:
            stack.stop()


if __name__ == "__main__":
    main()
