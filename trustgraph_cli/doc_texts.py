"""The text of page-less documents (text and Markdown), to give their spans' lines and
columns: a trace's sources name the documents, the librarian holds their bytes, read as the
decoder reads them (UTF-8, a byte-order mark dropped, a terminal's bold and underline taken
out: ``terminal_text.as_shown``), so offsets count the same characters."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import SourceRef, TraceView
    from trustgraph_cli.options import Gateway


def text_sources(view: TraceView) -> set[str]:
    """The page-less text and Markdown documents a trace's edges and chunks come from."""
    refs: list[SourceRef] = [ref for e in view.edges for ref in e.sources]
    refs += [ref for c in view.chunks for ref in c.sources]
    found = {
        ref.document
        for ref in refs
        if ref.page is None and (ref.mime_type or "").startswith("text/")
    }
    for step in view.steps:
        for sub in step.subtraces:
            found |= text_sources(sub)
    return found


async def document_texts(gw: Gateway, docs: list[str]) -> dict[str, str]:
    """Each document's text; one librarian request per reply's worth (3 MiB). A document
    the librarian no longer has is left out (its places show characters only)."""
    import base64

    from trustgraph_base.errors import ServiceError
    from trustgraph_base.terminal_text import as_shown
    from trustgraph_cli.client import GatewayClient

    out: dict[str, str] = {}
    async with GatewayClient(gw) as client:
        for doc in docs:
            data = b""
            try:
                while True:
                    part = await client.librarian(
                        {"operation": "get-content", "id": doc, "offset": len(data)}
                    )
                    piece = base64.b64decode(part.get("content") or "")
                    data += piece
                    if not piece or len(data) >= int(part.get("total") or 0):
                        break
            except ServiceError:
                continue
            out[doc] = as_shown(data.decode("utf-8-sig", errors="replace"))
    return out
