"""tg-show-source-usage: every answer that rests on a document, page, chunk or edge."""

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
    no_viewer_address,
    run,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import SourceUsage, UsagePath
    from trustgraph_cli.render.style import Style

EPILOG = """\b
Examples:
  tg-show-source-usage urn:trustgraph:doc:world-facts-718bc1a1   # samples/world-facts.pdf
  tg-show-source-usage urn:trustgraph:doc:world-facts-718bc1a1/p1 --limit 10
  tg-show-source-usage world-facts-718bc1a1/p2
  tg-show-source-usage urn:trustgraph:doc:world-facts-718bc1a1/p1/c0 --format json
  tg-show-source-usage world-facts-718bc1a1/p1 --chars 22-53   # who cited that sentence
  tg-show-source-usage "<urn:trustgraph:entity:paris> <urn:trustgraph:rel:is_the_capital_of> <urn:trustgraph:entity:france>"
"""


@command(epilog=EPILOG)
@click.argument("source", metavar="URI", callback=no_viewer_address)
@limit_option("answers", bound=TRACE_LIMIT)
@click.option(
    "--chars",
    "chars",
    metavar="START-END",
    callback=lambda _ctx, _param, value: parse_chars(value),
    help="Only answers whose evidence lies on these characters of a page's text "
    "(tg-show-explain-trace --show-provenance and tg-show-evidence print them).",
)
@format_option(
    "table",
    "json",
    "csv",
    help="A table (one line per linking path), the SourceUsage JSON, or the table as CSV.",
)
@gateway_options
def main(source: str, limit: int, chars: tuple[int, int] | None, fmt: str, gw: Gateway) -> None:
    """List every top-level answer whose evidence rests on a source, newest first.

    URI is a document (URI or the id it was loaded with), a page, a chunk (a URI, or the
    document's id with /pN and /cM after it: world-facts/p2/c0), or an edge written as
    "<s> <p> <o>". An answer rests on a source through a GraphRAG focus edge
    extracted from it, a DocumentRAG selected chunk of it, or an agent tool's sub-trace
    that did either; each linking path is shown. With --chars, URI is a page (or a document
    without pages) and only the evidence on those characters counts: an edge whose
    sentence overlaps them, a DocumentRAG chunk whose sentence the answer stated does (a
    chunk no sentence of the answer was found in: the chunk).
    """
    usage: SourceUsage = run(gw, lambda: fetch_usage(gw, source, limit, chars))
    from trustgraph_cli.render.output import emit_json, emit_rows

    if fmt == "json":
        from trustgraph_cli.render.jsonout import view_json

        emit_json(view_json(usage))
        return
    from trustgraph_cli.render.style import Style

    style = Style.detect()
    empty = f"No answer uses {usage.kind} {usage.source}."
    emit_rows(*usage_rows(usage, style), fmt, style, flex=2, empty=empty)


def usage_rows(usage: SourceUsage, style: Style) -> tuple[list[str], list[list[str]]]:
    """Session ID, Type, Question, Time, and the path, one row per path."""
    from trustgraph_cli.list_explain_traces import session_id
    from trustgraph_cli.render.text import short_time
    from trustgraph_cli.render.trace import TYPE_NAMES

    rows = []
    for used in usage.traces:
        t = used.trace
        first = [session_id(t.id), TYPE_NAMES.get(t.type, t.type), t.question, short_time(t.time)]
        for n, path in enumerate(used.paths or [None]):
            lead = first if n == 0 else ["", "", "", ""]
            rows.append([*lead, path_text(path, t.id, style) if path else ""])
    return ["Session ID", "Type", "Question", "Time", "Linked through"], rows


def path_text(path: UsagePath, top: str, style: Style) -> str:
    """``edge s → p → o (chunk URI)`` or ``chunk URI``, plus the sub-trace it went through."""
    from trustgraph_cli.list_explain_traces import session_id
    from trustgraph_cli.render.parts import edge_text

    if path.kind == "edge" and path.edge is not None:
        text = f"edge {edge_text(path.edge, style)}"
        if path.chunk:
            text += f" in {path.chunk}"
    else:
        text = f"chunk {path.chunk}"
    if path.trace != top:
        text += f" (via sub-trace {session_id(path.trace)})"
    if path.cited:
        text += " ★ cited"
    if not path.used:  # found by an agent step the answer does not rely on
        text += " (a dead-end step: not used by the answer)"
    return text


def parse_chars(value: str | None) -> tuple[int, int] | None:
    """``START-END`` (or ``START–END``) as two character offsets, START < END."""
    if value is None:
        return None
    start, sep, end = value.replace("–", "-").partition("-")
    if not (sep and start.strip().isdigit() and end.strip().isdigit()):
        raise click.BadParameter(f"{value!r} is not START-END, e.g. 22-53")
    if int(start) >= int(end):
        raise click.BadParameter(f"{value!r}: START must be below END")
    return int(start), int(end)


async def fetch_usage(
    gw: Gateway, source: str, limit: int, chars: tuple[int, int] | None = None
) -> SourceUsage:
    """One EXPLAIN source-usage round trip (a not-found: did the id lack its hash?)."""
    from trustgraph_base.errors import ErrorType, ServiceError
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.responses import NotFound, call_explain, in_scope, meant_document, required

    def missing(exc: ServiceError) -> str:  # a malformed source is named as the service says
        return exc.message if exc.type == ErrorType.BAD_REQUEST else f"{in_scope(exc, gw)}."

    request: dict[str, object] = {"operation": "source-usage", "id": source, "limit": limit}
    if chars is not None:
        request["char_start"], request["char_end"] = chars
    async with GatewayClient(gw) as client:
        try:
            resp = await call_explain(client, request, missing, "a source usage")
        except NotFound as exc:
            hint = "" if exc.malformed else await meant_document(client, gw, source)
            raise NotFound(exc.message + hint, exc.malformed) from None
    return required(resp.usage, "source usage")


if __name__ == "__main__":
    main()
