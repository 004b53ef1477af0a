"""tg-create-api-key: a per-user API key (admin token only); the key is printed once."""

from __future__ import annotations

from typing import Any

import click

from trustgraph_cli.options import Gateway, admin_options, command, run

EPILOG = """\b
Examples:
  tg-create-api-key --user-id alice --name laptop
  tg-create-api-key --user-id bob --name ci --collection research --expires 2027-01-31T00:00:00Z
"""


@command(epilog=EPILOG)
@click.option("--user-id", required=True, help="The user the key acts as.")
@click.option("--name", required=True, help="A label for the key (e.g. 'laptop', 'ci').")
@click.option("--expires", default=None, help="ISO-8601 expiry (default: never).")
@click.option(
    "--collection",
    "collections",
    multiple=True,
    help="Limit the key to this collection (repeat for several; default: all of the user's).",
)
@admin_options
def main(
    user_id: str, name: str, expires: str | None, collections: tuple[str, ...], gw: Gateway
) -> None:
    """Create an API key for a user. The key is printed on stdout, once: keep it."""
    key: dict[str, Any] = {"user_id": user_id, "name": name}
    if expires:
        key["expires"] = expires
    if collections:
        key["collections"] = list(collections)
    resp = run(gw, lambda: call(gw, {"operation": "create-api-key", "key": key}))
    rec = resp.get("api_key", {})
    click.echo(f"Key id: {rec.get('id', '')}", err=True)
    click.echo(f"Name: {rec.get('name', '')}", err=True)
    click.echo(f"Prefix: {rec.get('prefix', '')}", err=True)
    if rec.get("collections"):
        click.echo(f"Collections: {', '.join(rec['collections'])}", err=True)
    click.echo("API key (shown once, capture now):", err=True)
    click.echo(resp.get("api_key_plaintext", ""))


async def call(gw: Gateway, request: dict[str, Any]) -> dict[str, Any]:
    """One IAM round trip (shared by the three key commands)."""
    from trustgraph_cli.client import GatewayClient

    async with GatewayClient(gw) as client:
        return await client.iam(request)


if __name__ == "__main__":
    main()
