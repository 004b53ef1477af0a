"""Answers from a real model: SmolLM2-135M-Instruct on llama-cpp-python's server, the embedded
stack (``tg-start``) pointed at it through a recording proxy (tests/support/realmodel.py).

    python -m bench.bench_realmodel            # 3 answers of each kind
    python -m bench.bench_realmodel --quick    # 1 of each

Loads the four samples, then asks the agent (``--max-iterations 4``), GraphRAG and
DocumentRAG the same questions through their ``tg-invoke-*`` commands (``--no-streaming``:
llama-cpp-python's server reports no usage on a stream). Per answer: the LLM calls the server saw, their
tokens in/out (the server's ``usage``) and time, and the answer's wall time (the command,
start to exit). The explainability overhead is put as a share of that real answer time two
ways: an upper bound (everything that is not the LLM: CLI start, retrieval, broker, trace)
and the trace's own cost (entities published × the per-entity cost bench_agent measures,
+5 ms per iteration in docs/agent.md). Needs the ``[realmodel]`` extra; says so otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.summary import summary

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
DOCUMENTS = ["capitals.txt", "scientists.txt", "writers.md", "world-facts.pdf"]
QUESTIONS = [
    "What is the capital of France?",
    "Where was Marie Curie born?",
    "Who wrote Les Misérables?",
]
AGENT_ITERATIONS = "4"  # a few steps: each is seconds to tens of seconds on 2 shared cores
KINDS = {
    "agent": ["tg-invoke-agent", "--max-iterations", AGENT_ITERATIONS],
    "graph-rag": ["tg-invoke-graph-rag"],
    "document-rag": ["tg-invoke-document-rag"],
}
TRACE_ENTITY_MS = 5.0  # bench_agent: what one published trace entity costs the loop (docs/agent.md)


@dataclass
class Answer:
    kind: str
    ok: bool
    wall_s: float
    calls: int
    in_tokens: int
    out_tokens: int
    llm_s: float
    entities: int


async def run(cmd: str, *args: str, env: dict[str, str]) -> tuple[int, str, str, float]:
    from tests.support.stack import run_cli

    started = time.monotonic()
    result = await run_cli(cmd, *args, env=env, timeout=1800)
    return result.code, result.stdout, result.stderr, time.monotonic() - started


async def entities_of(trace: str, env: dict[str, str]) -> int:
    """How many trace entities the answer published (question, its stages or steps, end)."""
    code, out, _, _ = await run("tg-show-explain-trace", trace, "--format", "json", env=env)
    if code != 0:
        return 0
    view = json.loads(out)
    if view["type"] == "agent":
        return 2 + len(view["steps"])
    return 4 if view["type"] == "graph-rag" else 3


async def measure(runs: int) -> tuple[list[Answer], dict[str, float]]:
    from tests.support.realmodel import llama_server, real_stack
    from tests.support.recording_proxy import recording_proxy

    answers: list[Answer] = []
    with tempfile.TemporaryDirectory(prefix="bench-realmodel-") as tmp:
        root = Path(tmp)
        async with (
            llama_server(root / "server.log") as upstream,
            recording_proxy(upstream) as proxy,
            real_stack(proxy.base_url, root / "stack") as stack,
        ):
            started = time.monotonic()
            for name in DOCUMENTS:
                code, _, err, _ = await run("tg-load-document", str(SAMPLES / name), env=stack.env)
                if code != 0:
                    raise SystemExit(f"loading {name} failed: {err.strip()}")
            ingest = {
                "wall_s": time.monotonic() - started,
                "calls": len(proxy.calls),
                "in": sum(c.usage.get("prompt_tokens", 0) for c in proxy.calls),
                "out": sum(c.usage.get("completion_tokens", 0) for c in proxy.calls),
            }
            for question in QUESTIONS[:runs]:
                for kind, cmd in KINDS.items():
                    before = len(proxy.calls)
                    code, _, err, wall = await run(
                        *cmd, "--no-streaming", "-q", question, env=stack.env
                    )
                    calls = proxy.calls[before:]
                    trace = err.strip().splitlines()[-1].removeprefix("trace: ") if err else ""
                    entities = await entities_of(trace, stack.env) if code == 0 else 0
                    answers.append(
                        Answer(
                            kind,
                            code == 0,
                            wall,
                            len(calls),
                            sum(c.usage.get("prompt_tokens", 0) for c in calls),
                            sum(c.usage.get("completion_tokens", 0) for c in calls),
                            sum(c.elapsed_ms for c in calls) / 1000.0,
                            entities,
                        )
                    )
                    print(
                        f"  {kind:13} {'ok' if code == 0 else 'FAILED':6} {wall:6.1f} s, "
                        f"{len(calls)} LLM calls",
                        flush=True,
                    )
    return answers, ingest


def report(answers: list[Answer], ingest: dict[str, float]) -> None:
    print(
        f"\ningest of {len(DOCUMENTS)} samples: {ingest['wall_s']:.1f} s, "
        f"{ingest['calls']:.0f} LLM calls, {ingest['in']:.0f} tokens in / {ingest['out']:.0f} out"
    )
    head = (
        f"{'kind':13} {'answers':>7} {'calls':>6} {'tok in':>7} {'tok out':>7} "
        f"{'LLM s':>6} {'wall s':>7} {'non-LLM':>8} {'trace':>6}"
    )
    print(head)
    for kind in KINDS:
        mine = [a for a in answers if a.kind == kind and a.ok]
        failed = sum(1 for a in answers if a.kind == kind and not a.ok)
        if not mine:
            print(f"{kind:13} {0:>7} (all {failed} failed)")
            summary(f"real model: {kind} per answer", "FAILED", "-", f"{failed} failed")
            continue

        def med(values: list[float]) -> float:
            return statistics.median(values)

        calls, tin, tout = (
            med([a.calls for a in mine]),
            med([a.in_tokens for a in mine]),
            med([a.out_tokens for a in mine]),
        )
        llm, wall = med([a.llm_s for a in mine]), med([a.wall_s for a in mine])
        non_llm = 1 - llm / wall if wall else 0.0
        trace = med([a.entities for a in mine]) * TRACE_ENTITY_MS / 1000.0 / wall if wall else 0.0
        print(
            f"{kind:13} {len(mine):>7} {calls:6.0f} {tin:7.0f} {tout:7.0f} {llm:6.1f} "
            f"{wall:7.1f} {non_llm:8.1%} {trace:6.2%}" + (f"  ({failed} failed)" if failed else "")
        )
        summary(
            f"real model: {kind} per answer",
            f"{wall:.1f} s, {calls:.0f} LLM calls",
            "-",
            f"{tin:.0f} tok in / {tout:.0f} out; LLM {llm:.1f} s",
        )
        summary(
            f"real model: {kind} explainability",
            f"{trace:.2%} of answer time",
            "-",
            f"all non-LLM time {non_llm:.1%} (upper bound)",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one answer of each kind")
    parser.add_argument("--runs", type=int, default=3, help="questions asked of each kind (≤ 3)")
    args = parser.parse_args()
    from tests.support.realmodel import missing

    reason = missing()
    if reason:
        print(reason)
        summary("real model", "skipped", "-", reason)
        return
    runs = 1 if args.quick else max(1, min(args.runs, len(QUESTIONS)))
    answers, ingest = asyncio.run(measure(runs))
    report(answers, ingest)
    if not all(a.ok for a in answers):
        sys.exit(1)


if __name__ == "__main__":
    main()
