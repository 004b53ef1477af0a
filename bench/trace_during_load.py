"""An agent question asked while a large text loads: how long until its trace can be shown.

    python -m bench.trace_during_load [--mb 5] [--every 5] [--limit 900]
    python -m bench.trace_during_load --burst 25000 [--questions 3] [--paused]
    python -m bench.trace_during_load --against DIR [--rounds 1] [flags]   # DIR's tree, then this

Session 20's new-user run: while a 20 MB text loaded, an agent's trace reached the store ~3
minutes after the answer (every stage published on the one ``triples-store`` topic, the
trace behind the load's provenance and edges), and ``tg-show-explain-trace`` said "not
found" meanwhile. Here ``tg-start`` runs on a fresh data folder with samples/capitals.txt
loaded; a text of ``--mb`` MB (the
``/usr/share/doc`` README and copyright files, concatenated) is loaded with
``tg-load-document``; for as long as it runs (at most ``--limit`` s), an agent question is
asked through the gateway, then its trace asked for (the explain service's ``get-trace``,
as ``tg-show-explain-trace`` does) every 0.2 s until it is complete, and the next question
``--every`` s later. Prints each question's answer time and the seconds from its answer to
its complete trace, then their median and maximum; with ``--against``, both trees
alternated (``bench/ab.py``), ``--rounds`` times. With ``--burst N`` no text is loaded: N
chunks' provenance is published on ``triples-store`` at once (a 20 MB text's chunker sends
~25,000), then ``--questions`` questions are asked one after the other, each timed alike;
with ``--paused`` the store process is stopped (SIGSTOP) while they are published and resumed
before the first question, so they wait as the backlog of a store that fell behind.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_concurrency import BIN, EmbeddedStack
from bench.children import child_pid

_LINE = re.compile(r"trace complete ([\d.]+) s \(median\), ([\d.]+|inf) s \(max\)")
DOCS = Path("/usr/share/doc")


def text_of(size: int, out: Path) -> Path:
    """A plain text of ``size`` bytes from the machine's README and copyright files."""
    parts: list[bytes] = []
    total = 0
    files = sorted(
        p for p in DOCS.glob("*/*") if p.name == "copyright" or p.name.startswith("README")
    )
    for path in files:
        if total >= size or not path.is_file() or path.suffix == ".gz":
            continue
        data = path.read_bytes()
        parts.append(data)
        total += len(data)
    out.write_bytes(b"\n\n".join(parts)[:size].decode("utf-8", "ignore").encode())
    return out


async def timed(url: str, limit: float) -> tuple[float, float]:
    """Ask the agent; the seconds it took, and from its answer to its complete trace."""
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.options import Gateway

    gw = Gateway(url=url, token=None, user="trustgraph", collection="default", debug=False)
    session = f"during-load-{time.monotonic_ns()}"
    async with GatewayClient(gw, timeout=limit) as client:
        started = time.perf_counter()
        question = {"question": "What is the capital of France?", "session_id": session}
        await client.request("agent", question)
        answered = time.perf_counter()
        request = {"operation": "get-trace", "id": f"urn:trustgraph:agent:{session}"}
        while time.perf_counter() - answered < limit:
            try:
                view = (await client.request("explain", request)).get("trace") or {}
            except Exception:  # not found until its question lands
                view = {}
            if view.get("status") == "complete":
                return answered - started, time.perf_counter() - answered
            await asyncio.sleep(0.2)
    return answered - started, float("inf")


def once(mb: float, every: float, limit: float) -> None:
    """Questions one after the other, ``every`` s apart, for as long as the load runs."""
    with tempfile.TemporaryDirectory(prefix="bench-trace-load-") as tmp:
        work = Path(tmp)
        text = text_of(int(mb * 1e6), work / "large.txt")
        stack = EmbeddedStack(work / "data", 0.0)
        stack.start()
        stack.load()  # a small sample first, whole: the agent has facts to answer from
        began = time.perf_counter()
        loading = subprocess.Popen(
            [str(BIN / "tg-load-document"), str(text)],
            env=stack.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        lags: list[tuple[float, float, float]] = []  # (s into the load, answer s, trace s)
        try:
            while loading.poll() is None and time.perf_counter() - began < limit:
                at = time.perf_counter() - began
                answer, trace = asyncio.run(timed(stack.url, limit))
                lags.append((at, answer, trace))
                print(f"  {at:.0f} s into the load: answered in {answer:.1f} s, "
                      f"trace complete {trace:.1f} s later", flush=True)  # fmt: skip
                time.sleep(every)
            loaded = loading.poll() is not None
        finally:
            loading.kill()
            stack.stop()
    traces = [t for _, _, t in lags]
    print(f"{mb:g} MB text {'loaded' if loaded else 'still loading'} in "
          f"{time.perf_counter() - began:.0f} s; {len(lags)} questions during it: trace complete "
          f"{statistics.median(traces):.1f} s (median), {max(traces):.1f} s (max) after the answer")  # fmt: skip


async def burst(broker_url: str, n: int) -> float:
    """``n`` chunks' provenance published at once on ``triples-store``, as a large text's
    chunker sends it (a 20 MB text: ~25,000 chunks); the seconds it took."""
    from trustgraph_base.messaging import TRIPLES_STORE, Bus, Topics
    from trustgraph_base.provenance import chunk_triples, uris
    from trustgraph_base.schema import Metadata, Triples

    doc = "urn:trustgraph:doc:burst"
    page = uris.page_uri(doc, 1)
    bus, topic = Bus(broker_url), Topics("tg").topic(TRIPLES_STORE)
    started = time.perf_counter()
    for first in range(0, n, 1000):
        messages = [
            Triples(
                metadata=Metadata(id=f"{doc}/m{i}"),
                triples=chunk_triples(
                    uris.chunk_uri(page, i), page, i, i * 800, 800, "urn:x:chunk"
                ),
            )
            for i in range(first, min(n, first + 1000))
        ]
        await asyncio.gather(*(bus.publish(topic, m, batching=True) for m in messages))
    await bus.close()
    return time.perf_counter() - started


def after_burst(n: int, questions: int, limit: float, paused: bool) -> None:
    """Questions one after the other right after a burst of ``n`` provenance messages (with
    ``paused``, published while the store is stopped: the backlog of a store behind)."""
    with tempfile.TemporaryDirectory(prefix="bench-trace-burst-") as tmp:
        stack = EmbeddedStack(Path(tmp) / "data", 0.0)
        stack.start()
        try:
            stack.load()  # the agent has facts to answer from
            assert stack.proc is not None
            store = child_pid(stack.proc.pid, "trustgraph_flow.store.processor")
            if paused:
                os.kill(store, signal.SIGSTOP)
            sent = asyncio.run(burst(stack.broker_url, n))
            if paused:
                os.kill(store, signal.SIGCONT)
            print(f"  {n:,} provenance messages published in {sent:.1f} s", flush=True)
            traces = []
            for _ in range(questions):
                answer, trace = asyncio.run(timed(stack.url, limit))
                traces.append(trace)
                print(
                    f"  answered in {answer:.1f} s, trace complete {trace:.1f} s later", flush=True
                )
        finally:
            stack.stop()
    print(f"{questions} questions after {n:,} messages: trace complete "
          f"{statistics.median(traces):.1f} s (median), {max(traces):.1f} s (max) after the answer")  # fmt: skip


def main() -> None:
    if "--against" in sys.argv:
        from bench.ab import HERE, ab_args, alternate, run_in

        other, rounds, flags = ab_args(__doc__ or "", "trace_during_load")

        def measure(tree: Path) -> dict[str, float]:
            found = _LINE.search(run_in(tree, "trace_during_load", flags))
            if found is None:
                return {"median": float("nan"), "max": float("nan")}
            return {"median": float(found.group(1)), "max": float(found.group(2))}

        alternate({"against": other, "this": HERE}, rounds, measure,
                  lambda head, row: f"{head}: trace complete {row['median']:.1f} s (median), {row['max']:.1f} s (max) after the answer")  # fmt: skip
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=float, default=5.0, help="the text's size (default 5)")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between questions")
    parser.add_argument("--limit", type=float, default=900.0, help="seconds to run at most")
    parser.add_argument(
        "--burst", type=int, default=0, help="N messages published at once, no text"
    )
    parser.add_argument("--questions", type=int, default=3, help="asked after --burst")
    parser.add_argument("--paused", action="store_true", help="the store stopped during --burst")
    args = parser.parse_args()
    if args.burst:
        after_burst(args.burst, args.questions, args.limit, args.paused)
    else:
        once(args.mb, args.every, args.limit)


if __name__ == "__main__":
    main()
