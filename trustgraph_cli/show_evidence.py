"""tg-show-evidence: an answer's claims, the evidence each cites, and where it is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    cut_option,
    format_option,
    gateway_options,
    no_viewer_address,
    run,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import TraceView

EPILOG = """\b
Examples:
  trace=$(tg-list-explain-traces -l 1 --format csv | sed -n 2p | cut -d, -f1)   # the newest trace
  tg-show-evidence "$trace"
  tg-show-evidence "$trace" --max-quote 0
  tg-show-evidence "$trace" --format json
"""


@command(epilog=EPILOG)
@click.argument("trace_id", metavar="TRACE", callback=no_viewer_address)
@cut_option("--max-quote", 300, "claims and quoted evidence")
@format_option("text", "json", help="Text, or JSON (every quote whole).")
@gateway_options
def main(trace_id: str, max_quote: int, fmt: str, gw: Gateway) -> None:
    """Show each claim of an answer, the evidence it cites, and where that evidence is.

    TRACE is a trace URI or a bare session id (GraphRAG, DocumentRAG, or an agent run:
    then the answers of the GraphRAG and DocumentRAG runs its tools made). For each
    sentence of the answer: the focus edges or chunks it cites, each with the sentence
    of its document that holds it, the document, the page and the characters
    ("page 1, chars 22–53"; for a text or Markdown document its line, columns and
    characters, "line 2, cols 1–32, chars 19–50").
    """
    report = run(gw, lambda: fetch_report(gw, trace_id))
    from trustgraph_cli.render.output import emit, emit_json

    if fmt == "json":
        emit_json(report)
        return
    if not report:  # an agent run whose tools gave no RAG answer, an imported OTel trace
        from trustgraph_cli.render.text import safe

        trace = safe(trace_id)
        click.echo(
            f"No claims to show: trace {trace} holds no GraphRAG or DocumentRAG answer "
            f"(its steps: tg-show-explain-trace {trace}).",
            err=True,
        )
        return
    from trustgraph_cli.render.evidence import evidence_lines
    from trustgraph_cli.render.style import Style

    emit("\n".join(evidence_lines(report, max_quote)), Style.detect())


async def fetch_report(gw: Gateway, trace_id: str) -> list[Any]:
    """The trace with its provenance, and the text of every chunk its claims cite."""
    from trustgraph_cli.doc_texts import document_texts
    from trustgraph_cli.render.evidence import (
        add_lines,
        evidence_report,
        rag_views,
        text_documents,
    )
    from trustgraph_cli.render.style import Style
    from trustgraph_cli.show_explain_trace import trace_pieces

    view: TraceView | None = None
    async for piece, _ in trace_pieces(gw, trace_id, True):
        view = (
            piece if view is None else view.model_copy(update={"steps": view.steps + piece.steps})
        )
    assert view is not None
    cited = {uri for rag in rag_views(view) for claim in rag.claims for uri in claim.cited}
    chunks = [c.uri for rag in rag_views(view) for c in rag.chunks if c.uri in cited]
    chunks += [  # the chunks a cited edge was read from: the claim's sentence may be there
        ref.chunk
        for rag in rag_views(view)
        for e in rag.edges
        if e.uri in cited
        for ref in e.sources
        if ref.chunk
    ]
    report = evidence_report(view, await chunk_texts(gw, chunks), Style(unicode=True))
    add_lines(report, await document_texts(gw, text_documents(report)))
    return report


async def chunk_texts(gw: Gateway, chunks: list[str]) -> dict[str, str]:
    """Each chunk's text from the librarian (one request); a chunk it no longer has is left out."""
    if not chunks:
        return {}
    import base64

    from trustgraph_cli.client import GatewayClient

    async with GatewayClient(gw) as client:
        data = await client.librarian({"operation": "get-content", "ids": sorted(set(chunks))})
    contents = data.get("contents") or {}
    return {uri: base64.b64decode(text).decode() for uri, text in contents.items()}
