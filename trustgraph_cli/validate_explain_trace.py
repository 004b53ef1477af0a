"""tg-validate-explain-trace: check a trace against the SHACL shapes of its type."""

from __future__ import annotations

from typing import Any

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    format_option,
    gateway_options,
    no_viewer_address,
    run,
)

EPILOG = """\b
Examples:
  trace=$(tg-list-explain-traces -l 1 --format csv | sed -n 2p | cut -d, -f1)   # the newest trace
  tg-validate-explain-trace "$trace"
  tg-validate-explain-trace "$trace" --format json

\b
Exit status: 0 the trace and its source chain conform, 1 a shape is violated (each
violation printed: the node, the property and what is wrong), or the trace was not found.
The shapes are in docs/shapes/ (docs/provenance.md, "SHACL shapes").
"""


@command(epilog=EPILOG)
@click.argument("trace_id", metavar="ID", callback=no_viewer_address)
@format_option("text", "json", help="A verdict and a line per violation, or the result as JSON.")
@gateway_options
def main(trace_id: str, fmt: str, gw: Gateway) -> None:
    """Validate an explain trace, its sub-traces and the source chain it rests on
    (chunks, pages, documents, subgraphs) against the project's SHACL shapes.
    """
    from trustgraph_cli.export_explain_trace import fetch_export

    jsonld: str = run(gw, lambda: fetch_export(gw, trace_id, "jsonld"))
    from trustgraph_cli.shapes import data_graph, validate

    data = data_graph(jsonld)
    violations = validate(data)
    result: dict[str, Any] = {
        "id": trace_id,
        "conforms": not violations,
        "statements": len(data),
        "violations": [v.__dict__ for v in violations],
    }
    if fmt == "json":
        from trustgraph_cli.render.output import emit_json

        emit_json(result)
    else:
        verdict = (
            "CONFORMS" if not violations else f"DOES NOT CONFORM: {len(violations)} violation(s)"
        )
        click.echo(f"{verdict}  ({len(data)} statements checked against docs/shapes/)")
        for v in violations:
            click.echo(f"  ! {v.line()}")
    if violations:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
