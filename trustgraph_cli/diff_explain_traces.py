"""tg-diff-explain-traces: two answers and the evidence each rests on, side by side."""

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
    from trustgraph_base.schema.explain import EvidenceItem, TraceDiff, TraceSummary
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.style import Style

EPILOG = """\b
Examples:
  a=$(tg-list-explain-traces --format csv | sed -n 2p | cut -d, -f1)   # the newest trace
  b=$(tg-list-explain-traces --format csv | sed -n 3p | cut -d, -f1)   # the one before
  tg-diff-explain-traces "$a" "$b"
  tg-diff-explain-traces "$a" "$b" --format json
"""

LEVELS = (
    ("documents", "Documents"),
    ("pages", "Pages"),
    ("chunks", "Chunks"),
    ("edges", "Edges"),
    ("prompts", "Prompts"),  # the prompt (id, digest) of each LLM step: a changed one shows here
)


@command(epilog=EPILOG)
@click.argument("trace_a", metavar="A", callback=no_viewer_address)
@click.argument("trace_b", metavar="B", callback=no_viewer_address)
@format_option("text", "json", help="Text, or the TraceDiff JSON (both, only_a, only_b per level).")
@gateway_options
def main(trace_a: str, trace_b: str, fmt: str, gw: Gateway) -> None:
    """Compare the evidence of two answers: used by both, only by A, only by B.

    A and B are trace URIs or bare session ids, of any type (agent, GraphRAG,
    DocumentRAG); an agent's evidence is that of the sub-traces its tools ran. Levels:
    document, page, chunk and edge. Evidence an answer cites is marked [cited A] / [cited B].
    """
    result: TraceDiff = run(gw, lambda: fetch_diff(gw, trace_a, trace_b))
    from trustgraph_cli.render.output import emit, emit_json

    if fmt == "json":
        from trustgraph_cli.render.jsonout import view_json

        emit_json(view_json(result))
        return
    from trustgraph_cli.render.style import Style

    style = Style.detect()
    emit("\n".join(render_diff(result, style)), style)


def render_diff(d: TraceDiff, style: Style) -> list[str]:
    """The two answers, then per level a count line and one line per item."""
    from trustgraph_cli.render.text import safe

    lines = [*_side("A", d.a, d.answer_a, style), *_side("B", d.b, d.answer_b, style)]
    for name, title in LEVELS:
        level = getattr(d, name)
        lines.append("")
        lines.append(
            style.paint(
                f"{title}: {len(level.both)} both, {len(level.only_a)} only A, "
                f"{len(level.only_b)} only B",
                "bold",
            )
        )
        for tag, items in (
            ("both  ", level.both),
            ("only A", level.only_a),
            ("only B", level.only_b),
        ):
            lines += [f"  {tag}  {safe(_item(i))}" for i in items]
    return lines


def _side(tag: str, t: TraceSummary, answer: str | None, style: Style) -> list[str]:
    from trustgraph_cli.render.text import safe
    from trustgraph_cli.render.trace import TYPE_NAMES

    return [
        style.paint(f"{tag}: {TYPE_NAMES.get(t.type, t.type)} {t.id}", "bold"),
        f"   Question: {safe(t.question)}",
        f"   Answer: {safe(answer or '(none)')}",
    ]


def _item(item: EvidenceItem) -> str:
    text = f"{item.label} ({item.id})" if item.label else item.id
    marks = "".join(f" [cited {side.upper()}]" for side in item.cited_by)
    return text + marks


async def fetch_diff(gw: Gateway, trace_a: str, trace_b: str) -> TraceDiff:
    """One EXPLAIN diff-traces round trip. A trace not found that another of the user's
    collections holds is named with it, as tg-show-explain-trace names it (``elsewhere``)."""
    from trustgraph_cli.responses import explain_once, in_scope, required

    async def missing(client: GatewayClient) -> str:  # the one of the two not here
        return trace_b if await here(client, trace_a) else trace_a

    request = {"operation": "diff-traces", "id": trace_a, "other": trace_b}
    resp = await explain_once(
        gw,
        request,
        "a diff",
        lambda exc: f"{in_scope(exc, gw)}. List them with tg-list-explain-traces.",
        trace=missing,
    )
    return required(resp.diff, "diff")


async def here(client: GatewayClient, trace: str) -> bool:
    """Whether the collection of the command holds ``trace`` (asked at once: no wait)."""
    from trustgraph_base.errors import ServiceError

    try:
        await client.request(
            "explain", {"operation": "get-trace", "id": trace, "step_limit": 1, "wait": 0}
        )
    except ServiceError:
        return False
    return True


if __name__ == "__main__":
    main()
