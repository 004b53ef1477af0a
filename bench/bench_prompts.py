"""Prompt benchmark: what reading the user's prompt costs each LLM step.

    python -m bench.bench_prompts [--quick]

The configuration processor on the embedded broker; a user with their own template of
``graph-rag-answer``. Each round is what a processor does before an LLM call
(``trustgraph_flow.prompts.book.prompted``): one ``get`` of the user's system prompt and
template, the check, and the fill. Reported: p50 and p95 over the rounds, beside the
LLM call it precedes (the offline engine's, the cheapest there is). Figures go into
docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.summary import summary
from trustgraph_base.messaging import (
    CONFIG,
    TEXT_COMPLETION,
    Bus,
    EmbeddedBroker,
    RequestClient,
    Topics,
)
from trustgraph_base.schema import ConfigRequest, ConfigValue, TextCompletionRequest
from trustgraph_flow.config import processor as config
from trustgraph_flow.llm import processor as llm
from trustgraph_flow.prompts.book import prompted

USER = "bench"
TEMPLATE = "Known facts:\n{{facts}}\n\nThe question: {{question}}\n\nA short answer:"


class Asker:
    """What ``prompted`` needs of a processor's context: its request clients."""

    def __init__(self, clients: dict[str, RequestClient[Any, Any]]) -> None:
        self.clients = clients

    def client(self, spec: Any) -> RequestClient[Any, Any]:
        return self.clients[spec.name]


def request() -> TextCompletionRequest:
    edges = [{"s": f"city {n}", "p": "is in", "o": f"country {n}"} for n in range(10)]
    return TextCompletionRequest(
        prompt="", prompt_type="graph-rag-answer", variables={"question": "Where?", "edges": edges}
    )


def percentiles(ms: list[float]) -> tuple[float, float]:
    ordered = sorted(ms)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


async def run(rounds: int, tmp: Path) -> None:
    broker = EmbeddedBroker(tmp / "broker")
    broker.start()
    stop, tasks = asyncio.Event(), []
    try:
        topics = Topics("bench")
        for module in (config, llm):
            ready = asyncio.Event()
            settings = module.proc.settings_cls(
                pulsar_url=broker.url, topic_prefix="bench", data_dir=str(tmp / module.proc.name)
            )
            tasks.append(asyncio.create_task(module.proc.run(settings, stop, ready)))
            await asyncio.wait_for(ready.wait(), 60)
        bus = Bus(broker.url)
        clients = {
            s.name: RequestClient(bus, topics, s, "bench") for s in (CONFIG, TEXT_COMPLETION)
        }
        for c in clients.values():
            await c.start()
        value = json.dumps({"prompt": TEMPLATE})
        put = [ConfigValue(type="prompt", key="template.graph-rag-answer", value=value)]
        await clients["config"].request(ConfigRequest(operation="put", values=put, user=USER))
        ctx: Any = Asker(clients)
        read, answer = [], []
        for n in range(rounds + 20):
            started = time.perf_counter()
            sent, use = await prompted(ctx, USER, request())
            took = (time.perf_counter() - started) * 1000
            assert use is not None and "Known facts:" in sent.prompt
            started = time.perf_counter()
            await clients["text-completion"].request(sent)
            if n >= 20:  # the first ones warm the broker's topics up
                read.append(took)
                answer.append((time.perf_counter() - started) * 1000)
        p50, p95 = percentiles(read)
        a50, _ = percentiles(answer)
        print(
            f"prompt read: p50 {p50:.2f} ms, p95 {p95:.2f} ms over {rounds}; LLM call p50 {a50:.2f} ms"
        )
        summary(
            "prompt read per LLM step",
            f"{p50:.2f} ms p50, {p95:.2f} ms p95",
            "< 5 ms",
            f"offline LLM call {a50:.2f} ms",
        )
        for c in clients.values():
            await c.close()
        await bus.close()
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        broker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 rounds instead of 1000")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(100 if args.quick else 1000, Path(tmp)))


if __name__ == "__main__":
    main()
