"""tg-show-document-hierarchy: document → pages → chunks → extracted edges."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import click

from trustgraph_base.bounds import CHUNK_WINDOW
from trustgraph_cli.options import (
    Gateway,
    command,
    cut_option,
    format_option,
    gateway_options,
    limit_option,
    no_viewer_address,
    run,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ChunkNode, DocumentView
    from trustgraph_cli.client import GatewayClient

WINDOW = 200  # chunks shown unless --limit says otherwise: as many as a viewer page

EPILOG = """\b
Examples:
  tg-show-document-hierarchy urn:trustgraph:doc:world-facts-718bc1a1   # samples/world-facts.pdf
  tg-show-document-hierarchy world-facts-718bc1a1 --show-content --max-content 80
  tg-show-document-hierarchy urn:trustgraph:doc:world-facts-718bc1a1 --format json
  tg-show-document-hierarchy world-facts-718bc1a1 --limit 2 --offset 1   # chunks 2 and 3
"""


@command(epilog=EPILOG)
@click.argument("doc_id", metavar="DOC_ID", callback=no_viewer_address)
@click.option("--show-content", is_flag=True, help="Show each chunk's text (from the librarian).")
@cut_option("--max-content", 200, "content previews")
@limit_option(
    "chunks (with their pages): a window of a large document", bound=CHUNK_WINDOW, default=WINDOW
)
@click.option(
    "--offset",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Skip this many chunks first (pages by number, each page's chunks by index).",
)
@format_option(
    "text", "json", help="A text tree, or the DocumentView JSON (with full content when asked)."
)
@gateway_options
def main(
    doc_id: str,
    show_content: bool,
    max_content: int,
    limit: int,
    offset: int,
    fmt: str,
    gw: Gateway,
) -> None:
    """Show how a document was split and what was extracted from it.

    DOC_ID is the document URI (as tg-load-document prints it) or the bare id it was
    loaded with. A large document is shown a window of chunks at a time: the first 200,
    or --limit N chunks after --offset M; a line says which, of how many, and the next.
    """
    window = Window(offset, limit)
    doc, total = run(gw, lambda: fetch_document(gw, doc_id, show_content, window))
    from trustgraph_cli.render.output import emit, emit_json

    count = len(all_chunks(doc))
    if fmt == "json":
        from trustgraph_cli.render.jsonout import view_json

        emit_json({**view_json(doc), "chunk_total": total})
        return
    from trustgraph_cli.render.document import render_document
    from trustgraph_cli.render.style import Style

    style = Style.detect()
    shown = window.shown(count, total) if window.cut(count, total) else None
    emit(render_document(doc, style, max_content=max_content, window=shown), style)


class Window(NamedTuple):
    """The chunks asked for: ``limit`` after ``offset``."""

    offset: int
    limit: int

    def cut(self, count: int, total: int | None) -> bool:
        """Whether the view leaves some of the document's chunks out (then a line says so)."""
        if total is None:  # a store that does not count them: a full window may leave some
            return self.offset > 0 or count >= self.limit
        return self.offset > 0 or count < total

    def shown(self, count: int, total: int | None) -> str:
        """``6-10 of 13 (the next: --offset 10)``: where the window is in the document."""
        if total is None:  # a store that does not count them
            return f"{count:,} from chunk {self.offset + 1:,}"
        if not count:
            return f"none: the document has {total:,} (--offset below {total:,})"
        last = self.offset + count
        span = f"{last:,}" if count == 1 else f"{self.offset + 1:,}-{last:,}"
        more = f" (the next: --offset {last})" if last < total else ""
        return f"{span} of {total:,}{more}"


def too_large(doc_id: str, window: Window) -> str:
    """The line for a window over the size of one reply, naming the option."""
    return (
        f"the hierarchy of {doc_id!r} is too large for one reply at {window.limit} chunks: "
        "ask fewer with --limit N (and --offset M to skip the first M)."
    )


async def fetch_document(
    gw: Gateway, doc_id: str, with_content: bool, window: Window
) -> tuple[DocumentView, int | None]:
    """One EXPLAIN document-hierarchy round trip, plus one get-content for every chunk shown;
    the document's chunk count."""
    from trustgraph_base.errors import ErrorType, ServiceError
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.lazy import preload
    from trustgraph_cli.render.output import scope_text
    from trustgraph_cli.responses import (
        NotFound,
        call_explain,
        elsewhere,
        in_scope,
        meant_document,
    )

    loading = preload(
        "trustgraph_base.wire", "trustgraph_base.schema.explain", "trustgraph_cli.render.document"
    )
    missing = f"no document {doc_id!r} in {scope_text(gw.user, gw.collection)}."

    def said(exc: ServiceError) -> str:  # the store's reason: not here, or removed (when, why)
        return f"{in_scope(exc, gw)}." if exc.type == ErrorType.NOT_FOUND else missing

    request = {
        "operation": "document-hierarchy",
        "id": doc_id,
        "chunk_offset": window.offset,
        "chunk_limit": window.limit,
    }
    total = None
    async with GatewayClient(gw) as client:
        try:
            resp = await call_explain(client, request, said, "a hierarchy")
            doc, total = resp.document, resp.chunk_total
        except NotFound as exc:
            probe = {"operation": "document-hierarchy", "id": doc_id, "chunk_limit": 1}
            hint = "" if exc.malformed else await elsewhere(client, gw, probe)
            if not (hint or exc.malformed):  # a default id given without its hash?
                hint = await meant_document(client, gw, doc_id)
            doc, missing = None, exc.message + hint
        except ServiceError as exc:
            if exc.type == ErrorType.RESULT_TOO_LARGE:
                raise click.ClickException(too_large(doc_id, window)) from None
            raise
        finally:
            await loading
        if doc is None or not (doc.pages or doc.chunks or total):
            await explain_unfinished(client, doc_id, missing if doc is None else None)
        if doc is None:
            raise click.ClickException(missing)
        if not with_content:
            return doc, total
        ids = [c.uri for c in all_chunks(doc)]
        contents = await chunk_contents(client, ids) if ids else {}
    return with_contents(doc, {uri: _text(b64) for uri, b64 in contents.items()}), total


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
