"""tg-store-shards: the sharded store's placement, as an operator sees and changes it.

Run beside the store processors, with the same ``--store-uri`` (or ``TG_STORE_URI``): it
reads and writes the placement table on the control server, and moves collections online.
"""

from __future__ import annotations

import logging
import os

import click

from trustgraph_base.usage import group
from trustgraph_flow.store.backends.sharded.move import move
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.backends.sharded.placement import ShardError
from trustgraph_flow.store.backends.sharded.stores import ROW_CACHE, ShardedStores
from trustgraph_flow.store.sparql.client import StoreUnavailable


def opened(store_uri: str, control: str, *, partial: bool = False) -> ShardedStores:
    if not store_uri:
        raise click.ClickException("no store servers: give --store-uri or set TG_STORE_URI")
    try:
        return open_sharded(store_uri, 30.0, control, within=2.0, partial=partial)
    except (ShardError, StoreUnavailable, TimeoutError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None


@group(
    epilog="\b\nExamples:\n  tg-store-shards --store-uri 'a=http://s1:7878 b=http://s2:7878' list\n"
    "  tg-store-shards where alice default\n  tg-store-shards move alice default b"
)
@click.option(
    "--store-uri",
    default=lambda: os.environ.get("TG_STORE_URI", ""),
    help="The store's servers, as the store processors are given them [env TG_STORE_URI].",
)
@click.option(
    "--store-control",
    default=lambda: os.environ.get("TG_STORE_CONTROL", ""),
    help="The server holding the placement table [default: the first; env TG_STORE_CONTROL].",
)
@click.pass_context
def main(ctx: click.Context, store_uri: str, store_control: str) -> None:
    """Show and change where the sharded store keeps each collection."""
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    # list shows what answers and names what does not; the others need every shard
    ctx.obj = opened(store_uri, store_control, partial=ctx.invoked_subcommand == "list")
    ctx.call_on_close(ctx.obj.close)


@main.command("list")
@click.pass_obj
def list_shards(stores: ShardedStores) -> None:
    """Each shard, its URL and how many collections are placed on it; a shard that does not
    answer is listed too, marked unreachable (and the command exits 1)."""
    down = []
    for name, url in sorted(stores.placement.shards().items()):
        held = stores.placement.placed_on(name)
        line = f"{name}\t{url}\t{held} collection{'s' * (held != 1)}"
        try:
            stores.shard(name).server.ask("ASK {}")
        except (StoreUnavailable, TimeoutError):
            down.append(f"{name!r} ({url})")
            line += "\tunreachable"
        click.echo(line)
    if down:
        many = len(down) > 1
        raise click.ClickException(
            f"shard{'s' * many} {', '.join(down)} {'are' if many else 'is'} unreachable"
        )


@main.command()
@click.argument("user")
@click.argument("collection")
@click.pass_obj
def where(stores: ShardedStores, user: str, collection: str) -> None:
    """The shard a collection is on (and the one it is moving to)."""
    row = stores.row(user, collection)
    if row is None:
        raise click.ClickException(f"collection {collection!r} of user {user!r} is on no shard")
    click.echo(row.on + (f" (moving to {row.to})" if row.to else ""))


@main.command("move")
@click.argument("user")
@click.argument("collection")
@click.argument("shard")
@click.option(
    "--settle",
    type=click.FloatRange(ROW_CACHE),
    default=2.0,
    show_default=True,
    help="Seconds for reads and writes begun before each step to end (at least a store process's row cache).",
)
@click.pass_obj
def move_collection(
    stores: ShardedStores, user: str, collection: str, shard: str, settle: float
) -> None:
    """Move a collection to SHARD while it is read and written (copy, switch, delete)."""
    try:
        moved = move(stores, user, collection, shard, settle)
    except (ShardError, StoreUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{collection}: {moved.source} -> {moved.target} ({moved.quads} quads copied)")


@main.command()
@click.argument("shard")
@click.pass_obj
def remove(stores: ShardedStores, shard: str) -> None:
    """Take SHARD out of the table (refused while a collection is placed on it)."""
    try:
        stores.placement.unregister(shard)
    except ShardError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"removed shard {shard}; now drop it from the store URI (every store process's and "
        "this command's): a process started with it registers it again"
    )
