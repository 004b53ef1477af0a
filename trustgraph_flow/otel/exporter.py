"""The OTLP exporter: every trace also sent as OpenTelemetry spans (docs/otel.md).

    tg-proc-otel-export --otlp-endpoint http://127.0.0.1:6006 [--otlp-headers k=v,…]

A processor of its own on the ``explain-store`` topic, the traces' (subscription
``otel-export.explain-store``), beside the store: it never reads a load's provenance on
``triples-store``. The agent and the RAG services never wait for it, and a collector that
is slow or down costs them nothing. Trace messages are taken
in batches (the runtime's batch consumer, as the store takes them): an agent's few messages
a step are decoded once its burst pauses, not each as it comes while the agent, its LLM
and its tools use the machine's cores (the exporter's CPU 1.4-1.8 -> 0.8-1.2 ms per
agent iteration, docs/performance.md, session 15). They are gathered into whole traces
(``gather``), turned into spans (``from_prov``) and sent in batches from a
bounded queue (``sender``); what is sent and dropped is counted, logged each minute and kept
in ``<data-dir>/otel-export/counters.json``. ``tg-start`` runs it when ``TG_OTLP_ENDPOINT``
is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import Field

from trustgraph_base.messaging import EXPLAIN, EXPLAIN_STORE_INTAKE, Context, Processor
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.otel.from_prov import spans
from trustgraph_flow.otel.gather import Gathered
from trustgraph_flow.otel.sender import Sender, parse_headers, traces_url
from trustgraph_flow.otel.sources import Explain, all_edge_sources
from trustgraph_flow.otel.trace import Trace

log = logging.getLogger(__name__)

TICK = 0.2  # seconds between looks for ready traces
REPORT = 60.0  # seconds between counter log lines


class Settings(ProcessorSettings):
    """Where the spans go."""

    otlp_endpoint: str = ""
    """The OTLP/HTTP collector, e.g. http://127.0.0.1:6006 (Phoenix); /v1/traces is added."""
    otlp_headers: str = ""
    """Headers for the collector, k1=v1,k2=v2 (values URL-encoded), e.g. Authorization=Basic%20…"""
    otlp_queue: int = Field(default=50_000, ge=1)
    """Spans held for sending at most; more are dropped (and counted)."""
    otlp_linger: float = Field(default=0.5, ge=0)
    """Seconds a finished trace waits for late entities (claims, verification) before it is sent."""
    otlp_idle: float = Field(default=60.0, gt=0)
    """Seconds without news after which an unfinished trace is sent as it is."""


@dataclass
class State:
    gathered: Gathered
    sender: Sender
    counters_file: Path


Ctx = Context[Settings, State]
proc: Processor[Settings, State] = Processor("otel-export", Settings)


@proc.lifespan
async def open_export(ctx: Context[Settings]) -> AsyncIterator[State]:
    """The buffer, the sender and the task that moves ready traces from one to the other."""
    s = ctx.settings
    if not s.otlp_endpoint:
        raise SystemExit("otel-export: no collector: set TG_OTLP_ENDPOINT (or --otlp-endpoint)")
    try:
        headers = parse_headers(s.otlp_headers)
    except ValueError as exc:
        raise SystemExit(f"otel-export: {exc}") from None
    sender = Sender(traces_url(s.otlp_endpoint), headers, max_queue=s.otlp_queue)
    state = State(
        Gathered(linger=s.otlp_linger, idle=s.otlp_idle),
        sender,
        Path(s.data_dir) / "otel-export" / "counters.json",
    )
    log.info("exporting traces as OTLP spans to %s", sender.url)
    explain = ctx.client(EXPLAIN)
    tasks = [asyncio.create_task(sender.run()), asyncio.create_task(_move(state, explain))]
    try:
        yield state
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        _hand_over(state, state.gathered.flush())
        await sender.drain(5.0)
        sender.write_counters(state.counters_file)
        log.info("OTLP export: %s", sender.counters)


async def _move(state: State, explain: Explain) -> None:
    """Hand ready traces to the sender; keep the counters file current (at most once a
    second) and log them each minute."""
    last_report = last_write = time.monotonic()
    written = None
    while True:
        await asyncio.sleep(TICK)
        ready = state.gathered.ready()
        await all_edge_sources(explain, ready)
        _hand_over(state, ready)
        state.sender.counters.dropped_traces += _given_up(state)
        now = time.monotonic()
        if state.sender.counters != written and now - last_write >= 1.0:
            state.sender.write_counters(state.counters_file)
            written, last_write = replace(state.sender.counters), now
        if now - last_report >= REPORT:
            last_report = now
            log.info("OTLP export: %s", state.sender.counters)


def _given_up(state: State) -> int:
    """Traces the buffer gave up since last asked (too many held), counted as dropped."""
    n, state.gathered.given_up = state.gathered.given_up, 0
    return n


def _hand_over(state: State, traces: list[Trace]) -> None:
    for trace in traces:
        try:
            made = spans(trace)
        except Exception:  # a trace we cannot read must not stop the others
            log.exception("could not turn trace %s into spans", trace.root)
            continue
        state.sender.counters.traces += 1
        state.sender.offer(made)


@proc.batch_consumer(EXPLAIN_STORE_INTAKE, max_batch=256, max_wait=0.05, max_linger=TICK)
async def on_trace_messages(batch: list[StoreTriples], ctx: Ctx) -> None:
    """Gather the messages' trace entities; nothing is sent from here."""
    for message in batch:
        meta = message.metadata
        ctx.state.gathered.add(message.quads, scope=(meta.user, meta.collection))


def main() -> None:
    """Console-script entry point (tg-proc-otel-export)."""
    proc.main()


if __name__ == "__main__":
    main()
