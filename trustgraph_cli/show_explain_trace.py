"""tg-show-explain-trace: one trace, assembled by the server, as text or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    cut_option,
    format_option,
    gateway_options,
    no_viewer_address,
    run,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from trustgraph_base.schema.explain import StageMetrics, TraceView

EPILOG = """\b
Examples:
  trace=$(tg-list-explain-traces -l 1 --format csv | sed -n 2p | cut -d, -f1)   # the newest trace
  tg-show-explain-trace "$trace"
  tg-show-explain-trace "$trace" --show-provenance --max-answer 0
  tg-show-explain-trace "$trace" --format json
"""


@command(epilog=EPILOG)
@click.argument("trace_id", metavar="ID", callback=no_viewer_address)
@cut_option("--max-answer", 500, "answers, thoughts and observations")
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
    from trustgraph_base.gcpause import gc_paused

    with gc_paused():  # what a long trace allocates lives to the end: nothing to collect
        run(gw, lambda: show(gw, trace_id, show_provenance, fmt, max_answer))


async def show(gw: Gateway, trace_id: str, provenance: bool, fmt: str, max_answer: int) -> None:
    """Print the trace as its pieces arrive, as a text tree or as one JSON document."""
    from trustgraph_cli.render.output import emit

    if fmt == "json":
        await show_json(gw, trace_id, provenance)
        return
    from trustgraph_cli.render.style import Style
    from trustgraph_cli.render.trace import PieceRenderer, TraceOptions

    style = Style.detect()
    opts = TraceOptions(max_answer=max_answer, show_provenance=provenance)
    renderer: PieceRenderer | None = None
    async for piece, total in trace_pieces(gw, trace_id, provenance):
        if provenance:  # text documents' lines and columns, counted in their text
            from trustgraph_cli.doc_texts import document_texts, text_sources

            wanted = sorted(text_sources(piece) - set(opts.texts))
            opts.texts.update(await document_texts(gw, wanted) if wanted else {})
        renderer = renderer or PieceRenderer(style, opts, total)
        lines = renderer.lines(piece)
        if lines:
            emit("\n".join(lines), style)


async def show_json(gw: Gateway, trace_id: str, include_provenance: bool) -> None:
    """The trace's JSON document, its steps printed as their pieces arrive.

    The same bytes as the whole trace (its pieces joined) dumped at once: what comes before
    the steps is the first piece's, what comes after them waits for the last piece (the
    stage metrics are every piece's together).
    """
    from trustgraph_cli.render.jsonout import StreamedView

    first: TraceView | None = None
    metrics: dict[str, StageMetrics] = {}
    out: StreamedView | None = None
    async for piece, total in trace_pieces(gw, trace_id, include_provenance):
        first = first or piece
        metrics.update(piece.metrics)
        if total and out is None:
            out = StreamedView(include_provenance)
            out.head(piece)
        if out is not None:
            out.steps(piece.steps)
    assert first is not None
    whole = first.model_copy(update={"metrics": metrics})
    if out is None:  # no steps (a RAG trace): one piece, printed whole
        StreamedView(include_provenance).whole(whole)
    else:
        out.tail(whole)


async def trace_pieces(
    gw: Gateway, trace_id: str, include_provenance: bool
) -> AsyncIterator[tuple[TraceView, int]]:
    """A streamed get-trace: each piece (the trace with its next agent steps, in order) as it
    arrives, and how many steps the trace has; a trace of any length fits in the replies."""
    from trustgraph_base.errors import ErrorType, ServiceError
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.lazy import preload
    from trustgraph_cli.render.output import scope_text
    from trustgraph_cli.responses import NOT_FOUND_TYPES, NotFound, elsewhere, validated

    loading = preload(
        "trustgraph_base.wire", "trustgraph_base.schema.explain", "trustgraph_cli.render.trace"
    )
    missing = f"no trace {trace_id!r} in {scope_text(gw.user, gw.collection)}."
    request = {
        "operation": "get-trace",
        "id": trace_id,
        "include_provenance": include_provenance,
        "streaming": True,
    }
    async with GatewayClient(gw) as client:
        try:
            replies = client.stream("explain", request)
            try:
                async for data in replies:
                    await loading
                    from trustgraph_base.schema.explain import ExplainResponse

                    resp = validated(ExplainResponse, data, "a trace")
                    if resp.trace is None:
                        raise click.ClickException(missing)
                    yield resp.trace, resp.step_total or 0
            except ServiceError as exc:
                if exc.type == ErrorType.NOT_FOUND:  # perhaps in another collection
                    probe = {"operation": "get-trace", "id": trace_id, "step_limit": 1}
                    raise NotFound(missing + await elsewhere(client, gw, probe)) from None
                if exc.type in NOT_FOUND_TYPES:
                    raise NotFound(missing, malformed=True) from None
                raise
        finally:
            await loading
