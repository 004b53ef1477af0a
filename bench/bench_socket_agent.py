"""The gateway's and the client's CPU per streamed agent question over the WebSocket.

    python -m bench.bench_socket_agent [--questions 40]
    python -m bench.bench_socket_agent --against DIR [--rounds 3] [--questions 40]

``tg-start`` on a fresh data folder with samples/capitals.txt loaded; agent questions asked
one after the other over the gateway's WebSocket with ``streaming`` on (every thought,
observation and explain event is a frame, as ``tg-invoke-agent`` asks), each frame read as
``tg-invoke-agent`` reads it. Prints the gateway process's CPU and this process's (the
client's) per question, after 3 questions of warm-up. ``bench_agent`` has no gateway and
``bench_stages`` asks through REST without streaming (one reply a question): this is the
path where the gateway passes a session's explain events on. ``--against DIR`` runs this
file with DIR's code (stack and client) and this tree's, alternated, ``--rounds`` times.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_agent import process_cpu
from bench.bench_concurrency import EmbeddedStack
from bench.children import child_pid

_LINE = re.compile(r"gateway ([\d.]+) ms CPU a question, client ([\d.]+) ms")
QUESTION = {"question": "What is the capital of France?", "streaming": True}


def reader() -> Any:
    """The model ``tg-invoke-agent`` reads a frame as, in the tree this runs with."""
    try:
        from trustgraph_cli.read_answers import AgentAnswer
    except ImportError:  # a tree before read_answers: every explain triple validated
        from trustgraph_base.schema.agent import AgentResponse

        return AgentResponse
    return AgentAnswer


async def asked(url: str, questions: int, pid: int) -> tuple[float, float, float]:
    """The gateway's and the client's CPU ms per question, and frames per question."""
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.options import Gateway
    from trustgraph_cli.responses import validated

    model = reader()
    gw = Gateway(url=url, token=None, user="trustgraph", collection="default", debug=False)
    async with GatewayClient(gw, timeout=60) as client:

        async def one() -> int:
            frames = 0
            async for data in client.stream("agent", QUESTION):
                validated(model, data, "an agent answer")
                frames += 1
            return frames

        for _ in range(3):
            await one()
        gateway, mine, frames = process_cpu(pid), time.process_time(), 0
        for _ in range(questions):
            frames += await one()
        gateway, mine = process_cpu(pid) - gateway, time.process_time() - mine
    return 1000 * gateway / questions, 1000 * mine / questions, frames / questions


def once(questions: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-socket-agent-") as tmp:
        stack = EmbeddedStack(Path(tmp) / "data", 0.0)
        stack.start()
        try:
            stack.load()
            assert stack.proc is not None
            g, c, f = asyncio.run(
                asked(
                    stack.url,
                    questions,
                    child_pid(stack.proc.pid, "trustgraph_flow.gateway.server"),
                )
            )
        finally:
            stack.stop()
    print(f"{questions} streamed agent questions over the WebSocket: gateway {g:.2f} ms CPU a "
          f"question, client {c:.2f} ms ({f:.0f} frames a question)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--questions", type=int, default=40, help="timed questions (40)")
    parser.add_argument("--against", type=Path, help="the other tree, alternated with this")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each tree (3)")
    args = parser.parse_args()
    if args.against is None:
        once(args.questions)
        return
    from bench.ab import HERE, alternate

    def measure(tree: Path) -> dict[str, float]:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        argv = [sys.executable, __file__, "--questions", str(args.questions)]
        out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True).stdout
        found = _LINE.search(out)
        if found is None:
            return {"gateway": float("nan"), "client": float("nan")}
        return {"gateway": float(found.group(1)), "client": float(found.group(2))}

    alternate({"against": args.against.resolve(), "this": HERE}, args.rounds, measure,
              lambda head, row: f"{head}: gateway {row['gateway']:.2f} ms, client {row['client']:.2f} ms CPU a question")  # fmt: skip


if __name__ == "__main__":
    main()
