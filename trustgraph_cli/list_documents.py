"""tg-list-documents: the documents of a collection and how far each got through the pipeline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trustgraph_cli.options import (
    Gateway,
    command,
    format_option,
    gateway_options,
    limit_option,
    run,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.documents import DocumentInfo

EPILOG = """\b
Examples:
  tg-list-documents
  tg-list-documents --format json -C research
  tg-list-documents -l 20
"""


@command(epilog=EPILOG)
@limit_option("documents", default=1000)
@format_option(
    "table",
    "json",
    "csv",
    help="A table, a JSON list of {id, title, type, status, pages, chunks, edges, time, error, held},"
    " or the table as CSV.",
)
@gateway_options
def main(limit: int, fmt: str, gw: Gateway) -> None:
    """List the documents loaded into a collection, with their processing status."""
    docs: list[DocumentInfo] = run(gw, lambda: fetch_documents(gw))[:limit]
    from trustgraph_cli.render.output import emit_json, emit_rows, scope_text

    if fmt == "json":
        emit_json([document_row(d) for d in docs])
        return
    from trustgraph_cli.render.style import Style
    from trustgraph_cli.render.text import short_time

    headers = ["ID", "Title", "Type", "Status", "Pages", "Chunks", "Edges", "Time"]
    rows = [
        [
            d.id,
            d.title,
            d.mime_type,
            d.status if d.held is None else f"{d.status}, held",
            str(d.pages),
            str(d.chunks),
            str(d.edges),
            short_time(d.time),
        ]
        for d in docs
    ]
    empty = f"No documents in {scope_text(gw.user, gw.collection)}."
    emit_rows(headers, rows, fmt, Style.detect(), flex=1, empty=empty)
    import click

    from trustgraph_cli.document_progress import held_note
    from trustgraph_cli.render.text import safe

    for d in docs:
        if d.held is not None:
            click.echo(f"Warning: {safe(held_note(d))}", err=True)


def document_row(d: DocumentInfo) -> dict[str, Any]:
    """The stable JSON keys of one document."""
    return {
        "id": d.id,
        "title": d.title,
        "type": d.mime_type,
        "status": d.status,
        "pages": d.pages,
        "chunks": d.chunks,
        "edges": d.edges,
        "time": d.time,
        "error": d.error,
        "held": d.held,
    }


async def fetch_documents(gw: Gateway) -> list[DocumentInfo]:
    """One librarian list-documents round trip (an empty list: is the collection there?)."""
    from trustgraph_base.schema.documents import LibrarianResponse
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.responses import must_exist, validated

    async with GatewayClient(gw) as client:
        data = await client.librarian({"operation": "list-documents"})
        docs = list(validated(LibrarianResponse, data, "a document list").documents)
        if not docs:
            await must_exist(client, gw)
    return docs


if __name__ == "__main__":
    main()
