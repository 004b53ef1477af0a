"""tg-remove-document: remove a document and what was derived from it, following lineage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    from trustgraph_base.schema.documents import LibrarianResponse

EPILOG = """\b
Examples:
  tg-remove-document urn:trustgraph:doc:world-facts-718bc1a1
  tg-remove-document world-facts-718bc1a1 --reason "takedown request 2026-114"
  tg-remove-document urn:trustgraph:doc:world-facts-718bc1a1 --purge-traces --format json
"""


@command(epilog=EPILOG)
@click.argument("doc_id", metavar="DOC", callback=no_viewer_address)
@click.option(
    "--purge-traces",
    is_flag=True,
    help="Delete the traces whose answers used the document, instead of marking them.",
)
@click.option("--reason", default="", help="Why it is removed (recorded on the erasure activity).")
@format_option("text", "json", help="A summary line, or {document, removal} JSON.")
@gateway_options
def main(doc_id: str, purge_traces: bool, reason: str, fmt: str, gw: Gateway) -> None:
    """Remove a document: its content, pages, chunks, vectors and the edges no other document supports.

    DOC is the document URI or the id it was loaded with; failed and stuck loads can be
    removed too. Every answer that used the document is kept and marked (PROV
    prov:wasInvalidatedBy an erasure activity with the time and --reason), and
    tg-show-explain-trace shows "source removed on …" where the link was; with
    --purge-traces those traces are deleted instead.
    """
    resp: LibrarianResponse = run(gw, lambda: remove(gw, doc_id, purge_traces, reason))
    from trustgraph_cli.render.output import emit_json

    if fmt == "json":
        from trustgraph_cli.render.jsonout import view_json

        emit_json(
            {
                "document": view_json(resp.document) if resp.document else None,
                "removal": view_json(resp.removal) if resp.removal else None,
            }
        )
        return
    click.echo(summary(resp, doc_id))


def summary(resp: LibrarianResponse, doc_id: str) -> str:
    """``Removed DOC ("title"): …`` in one or two lines."""
    from trustgraph_cli.render.text import plural

    info, report = resp.document, resp.removal
    name = info.id if info else doc_id
    title = f' ("{info.title}")' if info and info.title else ""
    if report is None:
        return f"Removed {name}{title} (the graph store held nothing extracted from it)."
    lines = [
        f"Removed {name}{title}: pages, chunks and vectors, and "
        f"{plural(report.edges_removed, 'edge')} no other document supports."
    ]
    if report.purged:
        lines.append(f"Deleted {plural(len(report.purged), 'answer')} that used it.")
    elif report.marked:
        lines.append(
            f"Kept {plural(len(report.marked), 'answer')} that used it, marked as resting on a removed "
            f"source ({report.erasure})."
        )
    else:
        lines.append("No answer used it.")
    return "\n".join(lines)


async def remove(gw: Gateway, doc_id: str, purge_traces: bool, reason: str) -> LibrarianResponse:
    """One librarian remove-document round trip."""
    from trustgraph_base.schema.documents import LibrarianResponse
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.output import scope_text
    from trustgraph_cli.responses import unknown_as, validated

    request: dict[str, Any] = {
        "operation": "remove-document",
        "document-id": doc_id,
        "purge_traces": purge_traces,
        "reason": reason,
    }
    async with GatewayClient(gw) as client:
        missing = (
            f"no document {doc_id!r} in {scope_text(gw.user, gw.collection)}. "
            "List them with tg-list-documents."
        )
        with unknown_as(missing):
            data = await client.librarian(request)
    return validated(LibrarianResponse, data, "a removal")


if __name__ == "__main__":
    main()
