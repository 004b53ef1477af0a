"""tg-show-document-hierarchy: document → pages → chunks → extracted edges."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    cut_option,
    format_option,
    gateway_options,
    run,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ChunkNode, DocumentView
    from trustgraph_cli.client import GatewayClient

EPILOG = """\b
Examples:
  tg-show-document-hierarchy urn:trustgraph:doc:world-facts-718bc1a1   # samples/world-facts.pdf
  tg-show-document-hierarchy world-facts-718bc1a1 --show-content --max-content 80
  tg-show-document-hierarchy urn:trustgraph:doc:world-facts-718bc1a1 --format json
"""


@command(epilog=EPILOG)
@click.argument("doc_id", metavar="DOC_ID")
@click.option("--show-content", is_flag=True, help="Show each chunk's text (from the librarian).")
@cut_option("--max-content", 200, "content previews")
@format_option(
    "text", "json", help="A text tree, or the DocumentView JSON (with full content when asked)."
)
@gateway_options
def main(doc_id: str, show_content: bool, max_content: int, fmt: str, gw: Gateway) -> None:
    """Show how a document was split and what was extracted from it.

    DOC_ID is the document URI (as tg-load-document prints it) or the bare id it was
    loaded with.
    """
    doc: DocumentView = run(gw, lambda: fetch_document(gw, doc_id, show_content))
    from trustgraph_cli.render.output import emit, emit_json

    if fmt == "json":
        from trustgraph_cli.render.jsonout import view_json

        emit_json(view_json(doc))
        return
    from trustgraph_cli.render.document import render_document
    from trustgraph_cli.render.style import Style

    style = Style.detect()
    emit(render_document(doc, style, max_content=max_content), style)


async def fetch_document(gw: Gateway, doc_id: str, with_content: bool) -> DocumentView:
    """One EXPLAIN document-hierarchy round trip, plus one get-content for every chunk."""
    from trustgraph_base.errors import ErrorType, ServiceError
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.lazy import preload
    from trustgraph_cli.render.output import scope_text
    from trustgraph_cli.responses import NotFound, call_explain, in_scope

    loading = preload(
        "trustgraph_base.wire", "trustgraph_base.schema.explain", "trustgraph_cli.render.document"
    )
    missing = f"no document {doc_id!r} in {scope_text(gw.user, gw.collection)}."

    def said(exc: ServiceError) -> str:  # the store's reason: not here, or removed (when, why)
        return f"{in_scope(exc, gw)}." if exc.type == ErrorType.NOT_FOUND else missing

    request = {"operation": "document-hierarchy", "id": doc_id}
    async with GatewayClient(gw) as client:
        try:
            doc = (await call_explain(client, request, said, "a hierarchy")).document
        except NotFound as exc:
            doc, missing = None, exc.message
        finally:
            await loading
        if doc is None or not (doc.pages or doc.chunks):
            await explain_unfinished(client, doc_id, missing if doc is None else None)
        if doc is None:
            raise click.ClickException(missing)
        if not with_content:
            return doc
        ids = [c.uri for c in all_chunks(doc)]
        contents = await chunk_contents(client, ids) if ids else {}
    return with_contents(doc, {uri: _text(b64) for uri, b64 in contents.items()})


async def chunk_contents(client: GatewayClient, ids: list[str]) -> dict[str, str]:
    """Each chunk's text (base64), from one librarian get-content round trip."""
    from trustgraph_base.schema.documents import LibrarianResponse
    from trustgraph_cli.responses import validated

    data = await client.librarian({"operation": "get-content", "ids": ids})
    return validated(LibrarianResponse, data, "chunk contents").contents


async def explain_unfinished(client: GatewayClient, doc_id: str, missing: str | None) -> None:
    """A document with no hierarchy: say why when the librarian knows (failed), else return.

    ``missing`` is the not-found message, kept when the librarian does not know it either.
    """
    from trustgraph_base.schema.documents import LibrarianResponse
    from trustgraph_cli.render.text import safe
    from trustgraph_cli.responses import unknown_as, validated

    request = {"operation": "get-document", "document-id": doc_id}
    if missing is None:
        data = await client.librarian(request)
    else:
        with unknown_as(missing):
            data = await client.librarian(request)
    info = validated(LibrarianResponse, data, "a librarian reply").document
    if info is None:
        return
    if info.status == "failed":
        reason = safe(info.error or "no reason recorded")
        raise click.ClickException(
            f"document {info.id!r} failed and has no pages or chunks: {reason}. "
            "Fix the file and load it again."
        )
    if info.status != "complete":
        raise click.ClickException(
            f"document {info.id!r} is still {info.status} ({info.pages} pages, "
            f"{info.chunks_done}/{info.chunks} chunks extracted): nothing to show yet. "
            "Follow it with tg-list-documents."
        )


def all_chunks(doc: DocumentView) -> list[ChunkNode]:
    """Every chunk, page by page, then the page-less ones."""
    return [c for page in doc.pages for c in page.chunks] + list(doc.chunks)


def with_contents(doc: DocumentView, texts: dict[str, str]) -> DocumentView:
    """The view with each chunk's content filled in ("" when the librarian has none)."""

    def fill(chunks: list[ChunkNode]) -> list[ChunkNode]:
        return [c.model_copy(update={"content": texts.get(c.uri, "")}) for c in chunks]

    pages = [p.model_copy(update={"chunks": fill(p.chunks)}) for p in doc.pages]
    return doc.model_copy(update={"pages": pages, "chunks": fill(doc.chunks)})


def _text(b64: str) -> str:
    import base64

    return base64.b64decode(b64).decode("utf-8", errors="replace")


if __name__ == "__main__":
    main()
