"""tg-list-api-keys: the API keys of one user, or of every user (admin token only)."""

from __future__ import annotations

import click

from trustgraph_cli.create_api_key import call
from trustgraph_cli.options import Gateway, admin_options, command, format_option, run

EPILOG = """\b
Examples:
  tg-list-api-keys --user-id alice
  tg-list-api-keys --format json
"""


@command(epilog=EPILOG)
@click.option("--user-id", default=None, help="Only this user's keys (default: every user's).")
@format_option(
    "table",
    "json",
    "csv",
    help="A table, the JSON list of key records (never the keys), or the table as CSV.",
)
@admin_options
def main(user_id: str | None, fmt: str, gw: Gateway) -> None:
    """List API keys: id, user, name, prefix, collections, created, expires."""
    request = {"operation": "list-api-keys"}
    if user_id:
        request["user_id"] = user_id
    keys = run(gw, lambda: call(gw, request)).get("api_keys", [])
    from trustgraph_cli.render.output import emit_json, emit_rows

    if fmt == "json":
        emit_json(keys)
        return
    from trustgraph_cli.render.style import Style

    headers = ["id", "user", "name", "prefix", "collections", "created", "expires"]
    rows = [
        [
            str(k.get("id", "")),
            str(k.get("user_id", "")),
            str(k.get("name", "")),
            str(k.get("prefix", "")),
            ", ".join(k.get("collections") or []) or "all",
            str(k.get("created", "")),
            str(k.get("expires") or "never"),
        ]
        for k in keys
    ]
    emit_rows(headers, rows, fmt, Style.detect(), flex=2, empty="No keys.")


if __name__ == "__main__":
    main()
