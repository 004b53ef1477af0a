"""tg-list-collections: the collections of a user, as every other command's -C names them."""

from __future__ import annotations

from typing import Any

import click

from trustgraph_cli.options import Gateway, command, format_option, gateway_options, run

EPILOG = """\b
Examples:
  tg-list-collections
  tg-list-collections --format json -U alice
  tg-list-collections -C research
"""


@command(epilog=EPILOG)
@format_option(
    "table",
    "json",
    "csv",
    help="A table, a JSON list of {collection, name, description, tags}, or the table as CSV.",
)
@gateway_options
def main(fmt: str, gw: Gateway) -> None:
    """List the user's collections: those holding documents, triples or traces, and those
    described; with -C, only that one (exit 1 when the user has no such collection). A
    store shard that is down: the others' are listed, then a line names it (exit 1)."""
    from trustgraph_cli.client import GatewayClient

    async def fetch() -> dict[str, Any]:
        async with GatewayClient(gw) as client:
            return await client.collections({"operation": "list-collections"})

    reply = run(gw, fetch)
    found: list[dict[str, Any]] = list(reply.get("collections", []))
    # A store shard that is down: the others' are listed, and it is named (exit 1).
    down = "; ".join(str(line) for line in reply.get("unreachable", []))
    from trustgraph_cli.render.output import emit_json, emit_rows, scope_text

    if "collection" in gw.named:
        found = [c for c in found if c.get("collection") == gw.collection]
        where = scope_text(gw.user, gw.collection)
        if not found and down:
            raise click.ClickException(f"{down}: {where} may be there")
        if not found:
            raise click.ClickException(f"no {where}: tg-list-collections lists them all")
    if fmt == "json":
        emit_json(found)
        unlisted(down)
        return
    from trustgraph_cli.render.style import Style

    headers = ["Collection", "Name", "Description", "Tags"]
    rows = [
        [
            str(c.get("collection", "")),
            str(c.get("name", "")),
            str(c.get("description", "")),
            ", ".join(c.get("tags") or []),
        ]
        for c in found
    ]
    owner = f"user {gw.user!r}" if gw.user is not None else "this API key's user"
    emit_rows(headers, rows, fmt, Style.detect(), flex=2, empty=f"No collections of {owner}.")
    unlisted(down)


def unlisted(down: str) -> None:
    if down:
        raise click.ClickException(f"{down}: its collections are not listed")


if __name__ == "__main__":
    main()
