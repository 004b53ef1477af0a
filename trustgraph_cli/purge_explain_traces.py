"""tg-purge-explain-traces: delete the traces older than a period (retention)."""

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
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ExplainResponse

EPILOG = """\b
Examples:
  tg-purge-explain-traces --older-than 30d --dry-run
  tg-purge-explain-traces --older-than 30d
  tg-purge-explain-traces --older-than 1w12h -U alice --format json
"""


def duration(ctx: click.Context | None, param: click.Parameter | None, value: str) -> float:
    from trustgraph_base.durations import parse_duration

    try:
        return parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@command(epilog=EPILOG)
@click.option(
    "--older-than",
    "older_than",
    required=True,
    callback=duration,
    metavar="PERIOD",
    help="Delete top-level traces started longer ago than this: 30d, 12h, 90m, 2w, 1d12h.",
)
@click.option("--dry-run", is_flag=True, help="Only list what would be deleted.")
@limit_option("traces", bound=TRACE_LIMIT)
@format_option(
    "table",
    "json",
    "csv",
    help="A count and a table of the traces, {count, traces} JSON, or the table as CSV.",
)
@gateway_options
def main(older_than: float, dry_run: bool, limit: int, fmt: str, gw: Gateway) -> None:
    """Delete every top-level explain trace (with its sub-traces) older than a period.

    Age is the question's start time; traces without one are kept. The store can also
    do this by itself: start it with TG_RETENTION=30d (docs/lineage.md).
    """
    resp: ExplainResponse = run(gw, lambda: purge(gw, older_than, dry_run, limit))
    from trustgraph_cli.render.output import emit, emit_json, emit_rows

    if fmt == "json":
        emit_json(
            {
                "count": resp.count,
                "dry_run": dry_run,
                "traces": [t.model_dump(mode="json") for t in resp.deleted],
            }
        )
        return
    from trustgraph_cli.list_explain_traces import trace_rows, trace_table
    from trustgraph_cli.render.style import Style
    from trustgraph_cli.render.text import plural

    style = Style.detect()
    if fmt == "csv":
        emit_rows(*trace_rows(resp.deleted), fmt, style)
        return
    verb = "Would delete" if dry_run else "Deleted"
    head = f"{verb} {plural(resp.count, 'trace')}"
    if not resp.deleted:
        emit(f"{head}.", style)
        return
    shown = "" if len(resp.deleted) == resp.count else f" (the oldest {len(resp.deleted)} shown)"
    emit("\n".join([f"{head}{shown}:", *trace_table(resp.deleted, style)]), style)


async def purge(gw: Gateway, older_than: float, dry_run: bool, limit: int) -> ExplainResponse:
    """One EXPLAIN purge-traces round trip."""
    from trustgraph_cli.responses import explain_once

    request = {
        "operation": "purge-traces",
        "older_than": older_than,
        "dry_run": dry_run,
        "limit": limit,
    }
    return await explain_once(gw, request, "a purge")


if __name__ == "__main__":
    main()
