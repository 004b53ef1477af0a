"""tg-invoke-graph-rag: answer a question from the knowledge graph, explaining which edges."""

from __future__ import annotations

from typing import Any

import click

from trustgraph_base import bounds
from trustgraph_cli.options import (
    Gateway,
    bounded_option,
    command,
    explainable_option,
    gateway_options,
    question_option,
)
from trustgraph_cli.rag_output import ask_rag

EPILOG = """\b
Examples:
  tg-invoke-graph-rag -q "What does the fox jump over?"
  tg-invoke-graph-rag -x -q "Who founded the company?"        # list each trace entity
  tg-invoke-graph-rag -q "How are A and B related?" --max-path-length 3 --max-subgraph-size 300
Then: tg-show-explain-trace <the trace id printed on stderr>
"""


@command(epilog=EPILOG)
@question_option
@explainable_option
@click.option("--no-streaming", is_flag=True, help="Wait for the whole answer, then print it.")
@bounded_option(
    "--entity-limit", bounds.ENTITY_LIMIT, "Entities to start from (nearest to the question)."
)
@bounded_option("--triple-limit", bounds.TRIPLE_LIMIT, "Edges fetched per entity and direction.")
@bounded_option("--max-subgraph-size", bounds.MAX_SUBGRAPH_SIZE, "Most edges retrieved in all.")
@bounded_option("--max-path-length", bounds.MAX_PATH_LENGTH, "Hops out from the starting entities.")
@bounded_option("--max-edges-selected", bounds.MAX_EDGES_SELECTED, "Most edges the LLM may select.")
@gateway_options
def main(
    gw: Gateway,
    question: str,
    explainable: bool,
    no_streaming: bool,
    **limits: int,
) -> None:
    """Ask QUESTION of the knowledge graph; print the answer, then the trace id (stderr)."""
    request: dict[str, Any] = {"query": question, **limits}
    ask_rag(gw, "graph-rag", request, explainable=explainable, streaming=not no_streaming)


if __name__ == "__main__":
    main()
