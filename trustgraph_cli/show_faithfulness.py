"""tg-show-faithfulness: a collection's share of supported claims, per day or hour."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    format_option,
    gateway_options,
    run,
    window_options,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import FaithfulnessBucket

EPILOG = """\b
Examples:
  tg-show-faithfulness -C research
  tg-show-faithfulness -C research --by hour --since 2026-12-01T00:00:00Z
  tg-show-faithfulness --format json | jq '.[] | select(.share < 0.8)'
"""
HEADERS = ["Period", "Answers", "Claims", "Supported", "Share", "Abstained"]


@command(epilog=EPILOG)
@click.option(
    "--by",
    type=click.Choice(["day", "hour"]),
    default="day",
    show_default=True,
    help="The period of each row (UTC).",
)
@window_options("Answers given")
@format_option(
    "table",
    "json",
    "csv",
    help="A table, a JSON list of {period, answers, claims, supported, share, abstained}, "
    "or the table as CSV.",
)
@gateway_options
def main(by: str, since: str | None, until: str | None, fmt: str, gw: Gateway) -> None:
    """Show how faithful a collection's answers were over time: per day (or hour), the
    answers whose claims were verified, their claims, how many of those the cited evidence
    supports and that share, and the answers that abstained ("the documents do not say").

    Every GraphRAG and DocumentRAG answer's claims are checked against the evidence they
    cite when it is given (tg-show-explain-trace shows each verdict); answers recorded
    before verification existed are not counted.
    """
    found: list[FaithfulnessBucket] = run(gw, lambda: fetch(gw, by, since, until))
    from trustgraph_cli.render.output import emit_json, emit_rows, scope_text
    from trustgraph_cli.render.style import Style

    if fmt == "json":
        emit_json([b.model_dump(mode="json") for b in found])
        return
    rows = [
        [
            b.period,
            str(b.answers),
            str(b.claims),
            str(b.supported),
            "-" if b.share is None else f"{b.share:.0%}",
            str(b.abstained),
        ]
        for b in found
    ]
    empty = f"No verified answers in {scope_text(gw.user, gw.collection)}."
    emit_rows(HEADERS, rows, fmt, Style.detect(), empty=empty)


async def fetch(
    gw: Gateway, by: str, since: str | None, until: str | None
) -> list[FaithfulnessBucket]:
    """One EXPLAIN faithfulness round trip."""
    from trustgraph_cli.responses import explain_once

    request: dict[str, object] = {"operation": "faithfulness", "by": by}
    if since:
        request["since"] = since
    if until:
        request["until"] = until
    reply = await explain_once(
        gw, request, "the faithfulness figures", blank=lambda r: not r.faithfulness
    )
    return list(reply.faithfulness)


if __name__ == "__main__":
    main()
