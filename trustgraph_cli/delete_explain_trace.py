"""tg-delete-explain-trace: delete one trace with its sub-traces."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    format_option,
    gateway_options,
    no_viewer_address,
    run,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import TraceSummary

EPILOG = """\b
Examples:
  trace=$(tg-list-explain-traces -l 1 --format csv | sed -n 2p | cut -d, -f1)   # the newest trace
  tg-delete-explain-trace "$trace" --format json
  tg-delete-explain-trace "$trace" -C research   # a trace of another collection
"""


@command(epilog=EPILOG)
@click.argument("trace_id", metavar="ID", callback=no_viewer_address)
@format_option(
    "text",
    "json",
    help="A summary line, or the deleted trace's {id, type, question, time, status}.",
)
@gateway_options
def main(trace_id: str, fmt: str, gw: Gateway) -> None:
    """Delete an explain trace and every sub-trace it ran (an agent's GraphRAG/DocumentRAG calls).

    ID is a trace URI (as tg-list-explain-traces prints it) or a bare session id. Only
    the trace goes: documents and knowledge are not touched.
    """
    trace: TraceSummary = run(gw, lambda: delete(gw, trace_id))
    from trustgraph_cli.render.output import emit_json

    if fmt == "json":
        emit_json(trace.model_dump(mode="json"))
        return
    click.echo(f'Deleted trace {trace.id} ("{trace.question}") and its sub-traces.')


async def delete(gw: Gateway, trace_id: str) -> TraceSummary:
    """One EXPLAIN delete-trace round trip."""
    from trustgraph_cli.responses import explain_once, no_trace

    missing = no_trace(trace_id, gw)
    request = {"operation": "delete-trace", "id": trace_id}
    resp = await explain_once(gw, request, "a deletion", missing, trace=trace_id)
    if not resp.deleted:
        raise click.ClickException(missing)
    return resp.deleted[0]


if __name__ == "__main__":
    main()
