"""Text rendering of a document hierarchy (``DocumentView``): document → pages → chunks → edges."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustgraph_cli.render.parts import edge_text
from trustgraph_cli.render.style import Style
from trustgraph_cli.render.text import plural, preview
from trustgraph_cli.render.tree import Node, render_tree

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ChunkNode, DocumentView, PageNode


def render_document(
    doc: DocumentView, style: Style, *, max_content: int = 200, window: str | None = None
) -> str:
    """The tree in the SPEC.md style; content lines only where the view carries content.
    ``window``: which of the document's chunks the view holds, when not all of them."""
    root = Node("Document", doc.id, value_paint=(), title_paint=("bold", "magenta"))
    if doc.title is not None:
        root.add("Title", f'"{doc.title}"')
    root.add("Type", doc.mime_type)
    if window is not None:
        root.add("Chunks", window, "yellow")
    elif not doc.pages and not doc.chunks:
        root.add("Pages", "none yet (the document may still be processing)", "yellow")
    root.children = [_page(p, style, max_content) for p in doc.pages]
    root.children += [_chunk(c, style, max_content) for c in doc.chunks]
    return "\n".join(render_tree(root, style))


def _page(page: PageNode, style: Style, max_content: int) -> Node:
    node = Node(f"Page {page.number}", page.uri, title_paint=("bold", "cyan"))
    node.add("Used by", answers(page.used_by, page.cited_by))
    if page.content is not None:
        node.add("Content", preview(page.content, max_content), "green")
    node.children = [_chunk(c, style, max_content) for c in page.chunks]
    return node


def _chunk(chunk: ChunkNode, style: Style, max_content: int) -> Node:
    node = Node(f"Chunk {chunk.index}", chunk.uri, title_paint=("bold",))
    node.add("Used by", answers(chunk.used_by, chunk.cited_by))
    if chunk.content is not None:
        node.add("Content", preview(chunk.content, max_content), "green")
    node.children = [Node(edge_text(e, style), title_paint=()) for e in chunk.edges]
    return node


def answers(count: int | None, cited: int | None = None) -> str | None:
    """``3 answers (1 cited it, 2 only retrieved it)`` (tg-show-source-usage lists them);
    None when the server did not count."""
    if count is None:
        return None
    text = plural(count, "answer")
    if cited is None or not count:
        return text
    return f"{text} ({cited} cited it, {count - cited} only retrieved it)"
