"""tg-query-triples: triples matching a pattern, from the store behind the gateway."""

from __future__ import annotations

from typing import Any

import click

from trustgraph_base.bounds import TRIPLE_QUERY_LIMIT
from trustgraph_cli.options import (
    Gateway,
    command,
    format_option,
    gateway_options,
    graph_option,
    limit_option,
    run,
)
from trustgraph_cli.terms import TermParam

EPILOG = """\b
Examples:
  tg-query-triples -p http://www.w3.org/2000/01/rdf-schema#label -l 10
  tg-query-triples -s '<urn:trustgraph:doc:world-facts-718bc1a1>' -g urn:graph:source --format json
  tg-query-triples -o '"Alice"@en' -g ''      # '' is the default graph (no -g: every graph)
"""


@command(epilog=EPILOG)
@click.option("-s", "--subject", type=TermParam(kinds="ib"), help="Subject: <iri>, IRI or _:blank.")
@click.option("-p", "--predicate", type=TermParam(kinds="i"), help="Predicate IRI.")
@click.option(
    "-o", "--object", "obj", type=TermParam(bare_literal=True), help='Object: <iri>, "literal"…'
)
@graph_option
@limit_option("triples", bound=TRIPLE_QUERY_LIMIT, default=1000)
@format_option(
    "text",
    "json",
    help="One triple a line in N-Triples form, or a JSON list of {s, p, o, g} terms.",
)
@gateway_options
def main(
    gw: Gateway, subject: Any, predicate: Any, obj: Any, graph: str | None, limit: int, fmt: str
) -> None:
    """Print the triples matching -s/-p/-o (any may be left open) in one or all graphs."""
    if graph:
        check_graph(graph)
    request: dict[str, Any] = {"limit": limit}
    for key, term in (("s", subject), ("p", predicate), ("o", obj)):
        if term is not None:
            request[key] = term.model_dump(mode="json", exclude_none=True)
    # The wire's g: missing is the default graph, "*" every graph (TrustGraph's reading);
    # this command searches every graph unless -g names one.
    request["g"] = "*" if graph is None else graph

    async def query() -> list[dict[str, Any]]:
        from trustgraph_base.schema.store import TriplesQueryResponse
        from trustgraph_base.wire import to_json
        from trustgraph_cli.client import GatewayClient
        from trustgraph_cli.responses import must_exist, validated

        async with GatewayClient(gw) as client:
            data = await client.request("triples", request)
            reply = validated(TriplesQueryResponse, data, "a triples answer")
            if not reply.triples:
                await must_exist(client, gw)
        return [to_json(t) for t in reply.triples]

    triples = run(gw, query)
    if fmt == "json":
        import json

        click.echo(json.dumps(triples, indent=2, ensure_ascii=False))
        return
    from trustgraph_cli.render.text import safe
    from trustgraph_cli.terms import format_triple

    for triple in triples:
        click.echo(safe(format_triple(triple)))


def check_graph(graph: str) -> None:
    """A graph name must be an absolute IRI (usage error naming it otherwise)."""
    from trustgraph_base.rdf.terms import check_iri

    try:
        check_iri(graph)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'-g' / '--graph'") from None


if __name__ == "__main__":
    main()
