"""tg-sparql: run a read-only SPARQL query over your collection through the gateway."""

from __future__ import annotations

from typing import Any, TextIO

import click

from trustgraph_cli.options import Gateway, command, format_option, gateway_options, run

EPILOG = """\b
Examples:
  tg-sparql 'SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } LIMIT 5'
  tg-sparql --format json -f - < query.rq
  tg-sparql 'ASK { GRAPH <urn:graph:retrieval> { ?s ?p ?o } }'
"""


@command(epilog=EPILOG)
@click.argument("query", required=False)
@click.option(
    "-f", "--file", "file", type=click.File("r"), help="Read the query from FILE (- = stdin)."
)
@format_option(
    "table",
    "json",
    "csv",
    help="A table (triples one a line for CONSTRUCT/DESCRIBE), SPARQL 1.1 Results JSON, or CSV.",
)
@gateway_options
def main(gw: Gateway, query: str | None, file: TextIO | None, fmt: str) -> None:
    """Run QUERY (SELECT, ASK, CONSTRUCT or DESCRIBE) and print its result."""
    if (query is None) == (file is None):
        raise click.UsageError("give the query as QUERY or with -f FILE (exactly one)")
    text = query if query is not None else read_query(file) if file is not None else ""
    if not text.strip():
        raise click.UsageError("the query is empty")

    async def ask() -> dict[str, Any]:
        from trustgraph_base.errors import ErrorType, ServiceError
        from trustgraph_base.schema.store import SparqlQueryResponse
        from trustgraph_base.wire import to_json
        from trustgraph_cli.client import GatewayClient
        from trustgraph_cli.responses import must_exist, validated

        async with GatewayClient(gw) as client:
            try:
                data = await client.request("sparql", {"query": text})
            except ServiceError as exc:  # the gateway's for a mistyped -C: said as the others say
                if exc.type == ErrorType.NOT_FOUND:
                    await must_exist(client, gw)
                raise
            reply = validated(SparqlQueryResponse, data, "a SPARQL answer")
            if reply.may_be_blank():
                await must_exist(client, gw)
        wire: dict[str, Any] = to_json(reply)
        return wire

    click.echo(render(run(gw, ask), fmt), nl=False)


def read_query(file: TextIO) -> str:
    """The query file's text; a file that is not UTF-8 text is a usage error, in one line."""
    try:
        return file.read()
    except UnicodeDecodeError as exc:
        name = getattr(file, "name", "-")
        raise click.BadParameter(
            f"{name!r} is not UTF-8 text (byte {exc.start}).", param_hint="'-f' / '--file'"
        ) from None


def render(reply: dict[str, Any], fmt: str) -> str:
    """The text to print for one SPARQL reply in ``fmt``."""
    import json

    from trustgraph_cli.render.text import safe
    from trustgraph_cli.terms import format_triple

    kind = reply.get("query-type") or "select"
    if kind == "ask":
        value = bool(reply.get("ask-result"))
        if fmt == "json":
            return json.dumps({"head": {}, "boolean": value}) + "\n"
        return ("true" if value else "false") + "\n"
    if kind in ("construct", "describe"):
        triples = reply.get("triples", [])
        if fmt == "json":
            return json.dumps(triples, indent=2, ensure_ascii=False) + "\n"
        return "".join(safe(format_triple(t)) + "\n" for t in triples)
    variables: list[str] = reply.get("variables", [])
    rows: list[dict[str, Any]] = [
        {
            v: term
            for v, term in zip(variables, b.get("values", []), strict=False)
            if term is not None
        }
        for b in reply.get("bindings", [])
    ]
    if fmt == "json":
        return json.dumps(results_json(variables, rows), indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return results_csv(variables, rows)
    return results_table(variables, rows)


def results_json(variables: list[str], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """SPARQL 1.1 Query Results JSON."""
    from trustgraph_cli.terms import sparql_json_term

    bindings = [{k: sparql_json_term(v) for k, v in row.items()} for row in rows]
    return {"head": {"vars": variables}, "results": {"bindings": bindings}}


def results_csv(variables: list[str], rows: list[dict[str, Any]]) -> str:
    """SPARQL 1.1 Query Results CSV: plain values, blank nodes as ``_:id``."""
    from trustgraph_base.rdf.results import results_csv as write_csv
    from trustgraph_cli.render.text import safe
    from trustgraph_cli.terms import display_term

    return write_csv(variables, rows, lambda term: safe(display_term(term)))


def results_table(variables: list[str], rows: list[dict[str, Any]]) -> str:
    """An aligned text table of N-Triples-formatted values."""
    from trustgraph_cli.render.text import plural

    cells = [[table_term(row[v]) if v in row else "" for v in variables] for row in rows]
    widths = [max([len(v), *(len(r[i]) for r in cells)]) for i, v in enumerate(variables)]
    lines = ["  ".join(v.ljust(w) for v, w in zip(variables, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.append(f"({plural(len(rows), 'row')})")
    return "".join(line.rstrip() + "\n" for line in lines)


NUMERIC = ("integer", "decimal", "double", "float", "boolean", "int", "long")


def table_term(term: dict[str, Any]) -> str:
    """N-Triples form, except numbers and booleans, which read better bare; controls escaped."""
    from trustgraph_cli.render.text import safe
    from trustgraph_cli.terms import XSD, format_term

    if term.get("t") == "l" and term.get("dt") in {XSD + n for n in NUMERIC}:
        return safe(str(term["v"]))
    return safe(format_term(term))


if __name__ == "__main__":
    main()
