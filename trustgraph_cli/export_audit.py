"""tg-export-audit: one self-contained audit bundle of a collection's signed traces."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

from trustgraph_cli.options import Gateway, command, gateway_options, run, window_options
from trustgraph_cli.paging import pages

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
LOG_PAGE = 2000  # log entries per request (a reply holds at most 4 MB)


@command(epilog=EPILOG)
@click.argument("bundle", metavar="BUNDLE", type=click.Path(file_okay=False))
@window_options("Traces started")
@gateway_options
def main(bundle: str, since: str | None, until: str | None, gw: Gateway) -> None:
    """Write an audit bundle into the new folder BUNDLE: every ended top-level trace started
    in the window, as TriG with its sub-traces and the source chain it used, the signed
    extraction provenance of the documents they used, the collection's log (entries,
    tombstones, signed checkpoints) and the store's public keys, under a manifest of every
    file's SHA-256 that the store signs. tg-verify-audit checks it offline (docs/audit.md).
    """
    from pathlib import Path

    from trustgraph_base.integrity.bundle import write
    from trustgraph_cli.render.text import plural

    folder = Path(bundle)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise click.ClickException(f"{bundle} is not empty: name a new folder for the bundle")
    (contents, files, seal), skipped = run(gw, lambda: gather(gw, since, until))
    try:
        write(folder, files, seal)
    except OSError as exc:
        raise click.ClickException(f"cannot write the bundle to {bundle!r}: {exc}") from None
    chains = contents.log.get("chains", {})
    entries = sum(len(c) for c in chains.values())
    click.echo(
        f"wrote {plural(len(contents.traces), 'trace')}, "
        f"{plural(len(contents.documents), 'document')}, "
        f"{plural(entries, 'log entry', 'log entries')} in {plural(len(chains), 'chain')} and "
        f"{plural(len(contents.keys), 'key')} to {bundle}, its manifest signed"
        + (
            f" ({plural(skipped, 'trace')} still in progress left out: not signed yet)"
            if skipped
            else ""
        )
    )


async def gather(
    gw: Gateway, since: str | None, until: str | None
) -> tuple[tuple[Contents, dict[str, bytes], str], int]:
    """Every ended trace of the window and its TriG, the log, the signed documents the
    traces used, and the built bundle's seal, over one connection."""

    from trustgraph_base.errors import ErrorType, ServiceError
    from trustgraph_base.integrity.bundle import Contents, build, manifest_digest
    from trustgraph_base.provenance import now_iso
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.output import scope_text
    from trustgraph_cli.responses import call_explain

    async with GatewayClient(gw) as client:
        ended, skipped = await listed(client, since, until)
        traces = {}
        for trace in ended:
            request = {"operation": "export-trace", "id": trace, "format": "trig"}
            traces[trace] = (await call_explain(client, request, None, "an export")).export
        log = await paged_log(client)
        documents = {}
        for doc in sorted(used_documents(traces.values()) & signed_documents(log)):
            documents[doc] = await exported_document(client, doc)
        contents = Contents(
            user=gw.user or "",
            collection=gw.collection,
            since=since,
            until=until,
            made_at=now_iso(),
            traces=traces,
            keys=log.pop("keys", {}),
            log=log,
            documents=documents,
        )
        files = build(contents)
        window = f"{since or 'the start'} to {until or 'now'}"
        request = {
            "operation": "seal-bundle",
            "id": manifest_digest(files),
            "reason": f"audit export of {len(traces)} traces started {window}",
        }
        where = scope_text(gw.user, gw.collection)

        def missing(exc: ServiceError) -> str:  # no such collection: a mistyped -C, say
            if exc.type != ErrorType.NOT_FOUND:
                return exc.message
            return f"nothing to export: there is no {where} (tg-list-collections lists them)."

        seal = (await call_explain(client, request, missing, "the manifest's signature")).export
    return (contents, files, seal), skipped


async def paged_log(client: GatewayClient) -> dict[str, Any]:
    """The collection's log, ``LOG_PAGE`` entries a request (progress on stderr), as one."""
    import json

    log: dict[str, Any] = {"chains": {}, "heads": {}}
    done, heads = 0, {}  # the last page's heads
    request = {"operation": "audit-log", "limit": LOG_PAGE}
    async for resp in pages(client, request, "", "the log"):
        page = json.loads(resp.export)
        heads = page.get("heads", {})
        for chain, entries in page.get("chains", {}).items():
            log["chains"].setdefault(chain, []).extend(entries)
            done += len(entries)
            # A chain's head as read with its entries (the log may grow meanwhile).
            if chain in heads:
                log["heads"][chain] = heads[chain]
        log["keys"] = page.get("keys", {})
        if resp.cursor:
            total = page.get("total", done)
            click.echo(f"read {done:,} of {total:,} log entries…", err=True)
    for chain, head in heads.items():  # chains with no entry at all
        log["heads"].setdefault(chain, head)
    return log


async def exported_document(client: GatewayClient, doc: str) -> str:
    """A document's signed extraction provenance as TriG, read in pages (a 3 MB text's is
    6.7 MB, more than a reply carries); the pages joined are one TriG document."""
    request = {"operation": "export-document", "id": doc}
    parts = [resp.export async for resp in pages(client, request, "", f"document {doc!r}")]
    return "".join(parts)


def used_documents(trig: Iterable[str]) -> set[str]:
    """The documents whose source chain these traces' TriG carries."""
    import pyoxigraph as ox

    from trustgraph_base.provenance.namespaces import GRAPH_SOURCE
    from trustgraph_base.provenance.uris import doc_of

    source = ox.NamedNode(GRAPH_SOURCE)
    return {
        doc
        for text in trig
        for q in ox.parse(text.encode(), format=ox.RdfFormat.TRIG)
        if q.graph_name == source
        and type(q.subject) is ox.NamedNode
        and (doc := doc_of(q.subject.value)) is not None
    }


def signed_documents(log: dict[str, Any]) -> set[str]:
    """The documents the log holds a live entry for (``log.json``'s shape)."""
    newest: dict[str, dict[str, Any]] = {}
    for stored in log.get("chains", {}).values():
        for item in stored:
            record = item["record"]["entry"]
            if record["kind"] == "document":
                newest[record["subject"]] = item
    return {doc for doc, item in newest.items() if not item.get("tombstone")}


async def listed(
    client: GatewayClient, since: str | None, until: str | None
) -> tuple[list[str], int]:
    """The ended top-level traces of the window (every page), and how many are still running."""
    ended: list[str] = []
    skipped = 0
    request = {"operation": "list-traces", "limit": PAGE, "since": since, "until": until}
    async for page in pages(client, request, None, "the trace list"):
        for t in page.traces:
            if t.status == "in-progress":
                skipped += 1
            else:
                ended.append(t.id)
    return ended, skipped


if __name__ == "__main__":
    main()
