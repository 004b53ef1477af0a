"""tg-export-audit: one self-contained audit bundle of a collection's signed traces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from trustgraph_cli.options import Gateway, command, gateway_options, run

if TYPE_CHECKING:
    from trustgraph_base.integrity.bundle import Contents
    from trustgraph_cli.client import GatewayClient

EPILOG = """\b
Examples:
  tg-export-audit ./audit-2026-11 --since 2026-11-01T00:00:00Z --until 2026-12-01T00:00:00Z
  tg-export-audit ./audit-research -U alice -C research
  tg-verify-audit ./audit-2026-11
"""
PAGE = 1000  # traces listed per request


@command(epilog=EPILOG)
@click.argument("bundle", metavar="BUNDLE", type=click.Path(file_okay=False))
@click.option("--since", default=None, help="Traces started at or after this xsd:dateTime.")
@click.option("--until", default=None, help="Traces started before this xsd:dateTime.")
@gateway_options
def main(bundle: str, since: str | None, until: str | None, gw: Gateway) -> None:
    """Write an audit bundle into the new folder BUNDLE: every ended top-level trace started
    in the window, as TriG with its sub-traces and the source chain it used, the
    collection's log (entries, tombstones, signed checkpoints) and the store's public
    keys, under a manifest of every file's SHA-256. tg-verify-audit checks it offline
    (docs/audit.md).
    """
    from pathlib import Path

    from trustgraph_base.integrity.bundle import write

    contents, skipped = run(gw, lambda: gather(gw, since, until))
    try:
        write(Path(bundle), contents)
    except OSError as exc:
        raise click.ClickException(f"cannot write the bundle to {bundle!r}: {exc}") from None
    chains = contents.log.get("chains", {})
    entries = sum(len(c) for c in chains.values())
    click.echo(
        f"wrote {len(contents.traces)} traces, {entries} log entries in {len(chains)} chain(s) "
        f"and {len(contents.keys)} key(s) to {bundle}"
        + (f" ({skipped} trace(s) still in progress left out: not signed yet)" if skipped else "")
    )


async def gather(gw: Gateway, since: str | None, until: str | None) -> tuple[Contents, int]:
    """Every ended trace of the window, its TriG, and the log, over one connection."""
    import json

    from trustgraph_base.integrity.bundle import Contents
    from trustgraph_base.provenance import now_iso
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.responses import call_explain

    async with GatewayClient(gw) as client:
        ended, skipped = await listed(client, since, until)
        traces = {}
        for trace in ended:
            request = {"operation": "export-trace", "id": trace, "format": "trig"}
            traces[trace] = (await call_explain(client, request, None, "an export")).export
        found = await call_explain(client, {"operation": "audit-log"}, None, "the log")
    log = json.loads(found.export)
    keys = log.pop("keys", {})
    contents = Contents(
        user=gw.user or "",
        collection=gw.collection,
        since=since,
        until=until,
        made_at=now_iso(),
        traces=traces,
        log=log,
        keys=keys,
    )
    return contents, skipped


async def listed(
    client: GatewayClient, since: str | None, until: str | None
) -> tuple[list[str], int]:
    """The ended top-level traces of the window (every page), and how many are still running."""
    from trustgraph_cli.responses import call_explain

    ended: list[str] = []
    skipped, cursor = 0, None
    while True:
        request: dict[str, Any] = {
            "operation": "list-traces",
            "limit": PAGE,
            "since": since,
            "until": until,
        }
        if cursor:
            request["cursor"] = cursor
        page = await call_explain(client, request, None, "a trace list")
        for t in page.traces:
            if t.status == "in-progress":
                skipped += 1
            else:
                ended.append(t.id)
        cursor = page.cursor
        if not cursor:
            return ended, skipped


if __name__ == "__main__":
    main()
