"""tg-list-explain-traces: the top-level traces of a collection, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_base.bounds import TRACE_LIMIT
from trustgraph_cli.options import (
    Gateway,
    command,
    format_option,
    gateway_options,
    limit_option,
    run,
    window_options,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import TraceSummary
    from trustgraph_cli.render.style import Style

EPILOG = """\b
Examples:
  tg-list-explain-traces
  tg-list-explain-traces -l 10 --format json
  tg-list-explain-traces -U alice -C research
  tg-list-explain-traces --status failed
  tg-list-explain-traces --since 2026-12-01T00:00:00Z --until 2026-12-02T00:00:00Z
"""
VERDICTS = ("supported", "partly-supported", "unsupported", "unverified")
STATUSES = ("complete", "in-progress", "failed", "interrupted")


@command(epilog=EPILOG)
@limit_option("traces", bound=TRACE_LIMIT)
@format_option(
    "table",
    "json",
    "csv",
    help="A table, a JSON list of {id, type, question, time, status}, or the table as CSV.",
)
@click.option(
    "--verdict",
    type=click.Choice(VERDICTS),
    default=None,
    help="Only traces whose answer has this verdict (its claims checked against the evidence "
    "they cite); unverified: traces with no verification recorded.",
)
@click.option(
    "--status",
    type=click.Choice(STATUSES),
    default=None,
    help="Only traces in this state: failed is a run that ended in an error (an agent's "
    "conclusion then says so), interrupted one whose process died.",
)
@window_options("Traces started")
@gateway_options
def main(
    limit: int,
    fmt: str,
    verdict: str | None,
    status: str | None,
    since: str | None,
    until: str | None,
    gw: Gateway,
) -> None:
    """List every top-level explain trace (agent, GraphRAG, DocumentRAG), newest first.

    Traces run by an agent's tools are not listed: they appear inside the agent's trace
    (tg-show-explain-trace).
    """
    traces: list[TraceSummary] = run(
        gw, lambda: fetch_traces(gw, limit, verdict, status, since=since, until=until)
    )
    from trustgraph_cli.render.output import emit_json, emit_rows, scope_text

    if fmt == "json":
        emit_json([t.model_dump(mode="json", exclude_none=True) for t in traces])
        return
    from trustgraph_cli.render.style import Style

    headers, rows = trace_rows(traces)
    if verdict is not None:
        headers.append("Verdict")
        rows = [[*row, t.verdict or verdict] for row, t in zip(rows, traces, strict=True)]
    where = scope_text(gw.user, gw.collection)
    which = " ".join(filter(None, [status, verdict]))
    empty = f"No {which} traces in {where}." if which else f"No traces in {where}."
    emit_rows(headers, rows, fmt, Style.detect(), flex=2, empty=empty)


def trace_table(traces: list[TraceSummary], style: Style) -> list[str]:
    """``trace_rows`` as a table (the Question cut to fit)."""
    from trustgraph_cli.render.table import render_table

    return render_table(*trace_rows(traces), style, flex=2)


def trace_rows(traces: list[TraceSummary]) -> tuple[list[str], list[list[str]]]:
    """Session ID, Type, Question (cut to fit), Time, and Status when any is not complete.

    The Session ID is the bare id (tg-show-explain-trace takes it as it is); the type
    column says which kind of trace it names, and the JSON output keeps the full URI.
    """
    from trustgraph_cli.render.text import short_time
    from trustgraph_cli.render.trace import TYPE_NAMES

    headers = ["Session ID", "Type", "Question", "Time"]
    with_status = any(t.status != "complete" for t in traces)
    if with_status:
        headers.append("Status")
    rows = []
    for t in traces:
        row = [session_id(t.id), TYPE_NAMES.get(t.type, t.type), t.question, short_time(t.time)]
        rows.append([*row, t.status] if with_status else row)
    return headers, rows


def session_id(trace_id: str) -> str:
    """``urn:trustgraph:agent:ID`` → ``ID``; any other id as it is."""
    from trustgraph_base.provenance.uris import session_id_of

    return session_id_of(trace_id) or trace_id


async def fetch_traces(
    gw: Gateway,
    limit: int,
    verdict: str | None = None,
    status: str | None = None,
    *,
    since: str | None = None,
    until: str | None = None,
) -> list[TraceSummary]:
    """One EXPLAIN list-traces round trip (narrowed to one answer verdict, one status and
    a window of start times when given)."""
    from trustgraph_cli.responses import explain_once

    request: dict[str, object] = {"operation": "list-traces", "limit": limit}
    for key, value in (("since", since), ("until", until)):
        if value is not None:
            request[key] = value
    if verdict is not None:
        request["verdict"] = verdict
    if status is not None:
        request["status"] = status
    reply = await explain_once(gw, request, "a trace list", blank=lambda r: not r.traces)
    return list(reply.traces)


if __name__ == "__main__":
    main()
