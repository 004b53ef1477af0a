"""What each process of an idle stack costs doing nothing: CPU a second, by thread.

    python -m bench.bench_idle [--settle 15] [--seconds 10] [--questions 20]

Starts ``tg-start`` (offline engine) on a fresh data directory, loads one text sample, asks
``--questions`` agent questions (every subscription made, every cache warm), waits
``--settle`` seconds (past the last kick of a quiet subscription: ``kicks.KICK_AT``, 8 s),
then reads each thread's CPU time (``/proc/<pid>/task/<tid>/schedstat``, nanoseconds: the
10 ms ticks of ``/proc/<pid>/stat`` are too coarse for a process idling at ~1 ms a second)
over ``--seconds``. Prints, per process, its CPU a second and that of its main thread
(``main``: the event loop), its other threads by name (``python``: pulsar-client's, the
one that runs its timers and reads its connections) and its children's (Milvus Lite's
server under vectors). The launcher's own threads only (its relays' thread shows as
``tg-start``), not its children's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from bench.bench_concurrency import EmbeddedStack
from bench.bench_stages import SAMPLES
from bench.profile_stack import children, questions

Threads = dict[tuple[str, int], float]


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (its children, theirs, ...)."""
    by_parent: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                by_parent.setdefault(_parent(int(entry.name)), []).append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    found, todo = [], list(by_parent.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(by_parent.get(child, []))
    return found


def thread_cpu(pid: int, with_children: bool) -> Threads:
    """CPU seconds of each thread of ``pid`` (and of its descendants'), by (name, tid)."""
    out: Threads = {}
    for proc in [pid, *(descendants(pid) if with_children else [])]:
        try:
            tasks = list(Path(f"/proc/{proc}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                name = (task / "comm").read_text().strip()
                ns = int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            if proc != pid:
                name = f"child {name}"
            elif int(task.name) == pid:
                name = "main"
            out[(name, int(task.name))] = ns / 1e9
    return out


def snapshot(procs: dict[str, int]) -> dict[str, Threads]:
    return {name: thread_cpu(pid, name != "launcher") for name, pid in procs.items()}


def report(before: dict[str, Threads], after: dict[str, Threads], seconds: float) -> None:
    rows: dict[str, tuple[float, dict[str, float]]] = {}
    for proc, threads in after.items():
        by_name: dict[str, float] = {}
        for (name, tid), cpu in threads.items():
            spent = cpu - before.get(proc, {}).get((name, tid), 0.0)
            by_name[name] = by_name.get(name, 0.0) + 1000 * spent / seconds
        rows[proc] = (sum(by_name.values()), by_name)
    total = 0.0
    for proc, (ms, by_name) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        total += ms
        parts = sorted(by_name.items(), key=lambda kv: -kv[1])
        shown = ", ".join(f"{name} {v:.2f}" for name, v in parts if v >= 0.01)
        print(f"  {proc:16s} {ms:6.2f} ms/s  ({shown})")
    print(f"idle stack: {total:.1f} ms of CPU a second; load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settle", type=float, default=15.0, help="seconds idle before")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds measured")
    parser.add_argument("--questions", type=int, default=20, help="agent questions first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as tmp:
        stack = EmbeddedStack(Path(tmp) / "stack", 0.0)
        stack.start()
        try:
            assert stack.proc is not None
            stack.load(SAMPLES[0], "--id", "idle-0")
            asyncio.run(questions(stack.url, args.questions))
            time.sleep(args.settle)
            procs = children(stack.proc.pid)
            before, started = snapshot(procs), time.perf_counter()
            time.sleep(args.seconds)
            after, seconds = snapshot(procs), time.perf_counter() - started
            print(f"idle {seconds:.1f} s, {args.settle:g} s after {args.questions} questions:")
            report(before, after, seconds)
        finally:
            stack.stop()


if __name__ == "__main__":
    main()
