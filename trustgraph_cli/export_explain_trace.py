"""tg-export-explain-trace: one trace and the source chain it points at, in an RDF or PROV format."""

from __future__ import annotations

import click

from trustgraph_cli.options import Gateway, command, gateway_options, no_viewer_address, run

EPILOG = """\b
Examples:
  trace=$(tg-list-explain-traces -l 1 --format csv | sed -n 2p | cut -d, -f1)   # the newest trace
  tg-export-explain-trace "$trace" -o trace.trig
  tg-export-explain-trace "$trace" --format provn
  tg-export-explain-trace "$trace" --format jsonld -o trace.jsonld
  tg-export-explain-trace "$trace" --format turtle --rdf11   # for rdflib and prov's PROV-O reader
"""

FORMATS = ["trig", "turtle", "jsonld", "provn", "provjson"]


@command(epilog=EPILOG)
@click.argument("trace_id", metavar="ID", callback=no_viewer_address)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="trig",
    show_default=True,
    help="trig (named graphs, RDF 1.2), turtle (one graph), jsonld, provn, provjson (PROV, via the prov package).",
)
@click.option(
    "--rdf11",
    is_flag=True,
    help="trig and turtle: each quoted edge as an rdf:Statement (RDF 1.1) instead of a triple term.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),  # not path_type: pathlib is slow to import
    default=None,
    help="Write to this file instead of stdout.",
)
@gateway_options
def main(trace_id: str, fmt: str, rdf11: bool, output: str | None, gw: Gateway) -> None:
    """Export an explain trace, its sub-traces and the source chain it rests on.

    The export holds the trace in urn:graph:retrieval, the chunks, pages and documents
    it used (and the subgraph statements of its edges) in urn:graph:source, and each
    used edge with its labels. TriG keeps the named graphs; JSON-LD and the PROV formats
    write each quoted edge as an rdf:Statement (docs/lineage.md), as TriG and Turtle do
    with --rdf11.
    """
    if rdf11 and fmt not in ("trig", "turtle"):
        raise click.UsageError(f"--rdf11 is for trig and turtle: {fmt} is RDF 1.1 already")
    text: str = run(gw, lambda: fetch_export(gw, trace_id, fmt, rdf11=rdf11))
    if output is None:  # a colour code in stored text shown as text, not dropped as colour
        from trustgraph_cli.render.text import safe

        click.echo(safe(text), nl=not text.endswith("\n"))
        return
    try:
        with open(output, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise click.ClickException(f"cannot write {output!r}: {exc.strerror or exc}.") from None
    click.echo(f"wrote {fmt} export of {trace_id} to {output}", err=True)


async def fetch_export(gw: Gateway, trace_id: str, fmt: str, *, rdf11: bool = False) -> str:
    """One EXPLAIN export-trace round trip."""
    from trustgraph_cli.responses import explain_once, no_trace

    request: dict[str, object] = {"operation": "export-trace", "id": trace_id, "format": fmt}
    if rdf11:
        request["rdf11"] = True
    resp = await explain_once(gw, request, "an export", no_trace(trace_id, gw), trace=trace_id)
    return resp.export
