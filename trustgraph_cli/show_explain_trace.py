"""tg-show-explain-trace: one trace, assembled by the server, as text or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_cli.options import Gateway, command, format_option, gateway_options, run

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import TraceView

EPILOG = """\b
Examples:
  tg-show-explain-trace urn:trustgraph:agent:3f1c2d0e-5b7a-4c1e-9d2f-0a1b2c3d4e5f
  tg-show-explain-trace urn:trustgraph:question:42 --show-provenance --max-answer 0
  tg-show-explain-trace 3f1c2d0e-5b7a-4c1e-9d2f-0a1b2c3d4e5f --format json
"""


@command(epilog=EPILOG)
@click.argument("trace_id", metavar="ID")
@click.option(
    "--max-answer",
    type=click.IntRange(min=0),
    default=500,
    show_default=True,
    help="Cut answers, thoughts and observations longer than this (0: never).",
)
@click.option(
    "--show-provenance",
    is_flag=True,
    help="Show each edge's or chunk's source: chunk → page → document.",
)
@format_option("text", "json", help="A text tree, or the TraceView JSON (everything, never cut).")
@gateway_options
def main(trace_id: str, max_answer: int, show_provenance: bool, fmt: str, gw: Gateway) -> None:
    """Show one explain trace: an agent run, a GraphRAG or a DocumentRAG answer.

    ID is a trace URI (as tg-list-explain-traces prints it) or a bare session id.
    Sub-traces (a GraphRAG run by an agent tool) appear under the step that ran them.
    """
    view: TraceView = run(gw, lambda: fetch_trace(gw, trace_id, show_provenance))
    from trustgraph_cli.render.output import emit, emit_json

    if fmt == "json":
        from trustgraph_cli.render.jsonout import sources_not_requested, view_json

        data = view_json(view)
        emit_json(data if show_provenance else sources_not_requested(data))
        return
    from trustgraph_cli.render.style import Style
    from trustgraph_cli.render.trace import TraceOptions, render_trace

    style = Style.detect()
    opts = TraceOptions(max_answer=max_answer, show_provenance=show_provenance)
    emit(render_trace(view, style, opts), style)


async def fetch_trace(gw: Gateway, trace_id: str, include_provenance: bool) -> TraceView:
    """One EXPLAIN get-trace round trip, validated into a ``TraceView``."""
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.lazy import preload
    from trustgraph_cli.render.output import scope_text
    from trustgraph_cli.responses import call_explain

    loading = preload(
        "trustgraph_base.wire", "trustgraph_base.schema.explain", "trustgraph_cli.render.trace"
    )
    missing = f"no trace {trace_id!r} in {scope_text(gw.user, gw.collection)}."
    request = {"operation": "get-trace", "id": trace_id, "include_provenance": include_provenance}
    async with GatewayClient(gw) as client:
        try:
            resp = await call_explain(client, request, missing, "a trace")
        finally:
            await loading
    if resp.trace is None:
        raise click.ClickException(missing)
    return resp.trace


if __name__ == "__main__":
    main()
