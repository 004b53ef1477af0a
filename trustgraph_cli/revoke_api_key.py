"""tg-revoke-api-key: revoke an API key by id (admin token only); it stops working at once."""

from __future__ import annotations

import click

from trustgraph_cli.create_api_key import call
from trustgraph_cli.options import Gateway, admin_options, command, run

EPILOG = """\b
Examples:
  tg-revoke-api-key --key-id 3f2a9c0d1e4b5a6f
"""


@command(epilog=EPILOG)
@click.option("--key-id", required=True, help="The id of the key (see tg-list-api-keys).")
@admin_options
def main(key_id: str, gw: Gateway) -> None:
    """Revoke an API key: requests made with it are refused from now on."""
    run(gw, lambda: call(gw, {"operation": "revoke-api-key", "key_id": key_id}))
    click.echo(f"Revoked key {key_id}")


if __name__ == "__main__":
    main()
