"""tg-invoke-graph-rag: answer a question from the knowledge graph, explaining which edges."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    explainable_option,
    gateway_options,
    question_option,
)
from trustgraph_cli.rag_output import ask_rag, check_question

EPILOG = """\b
Examples:
  tg-invoke-graph-rag -q "What does the fox jump over?"
  tg-invoke-graph-rag -x -q "Who founded the company?"        # list each trace entity
  tg-invoke-graph-rag -q "How are A and B related?" --max-path-length 3 --max-subgraph-size 300
Then: tg-show-explain-trace <the trace id printed on stderr>
"""


F = TypeVar("F", bound=Callable[..., Any])


def _limit(flag: str, low: int, high: int, default: int, text: str) -> Callable[[F], F]:
    return click.option(
        flag, type=click.IntRange(low, high), default=default, show_default=True, help=text
    )


@command(epilog=EPILOG)
@question_option
@explainable_option
@click.option("--no-streaming", is_flag=True, help="Wait for the whole answer, then print it.")
@_limit("--entity-limit", 1, 1000, 50, "Entities to start from (nearest to the question).")
@_limit("--triple-limit", 1, 1000, 30, "Edges fetched per entity and direction.")
@_limit("--max-subgraph-size", 1, 10_000, 150, "Most edges retrieved in all.")
@_limit("--max-path-length", 1, 5, 2, "Hops out from the starting entities.")
@_limit("--max-edges-selected", 1, 200, 10, "Most edges the LLM may select.")
@gateway_options
def main(
    gw: Gateway,
    question: str,
    explainable: bool,
    no_streaming: bool,
    **limits: int,
) -> None:
    """Ask QUESTION of the knowledge graph; print the answer, then the trace id (stderr)."""
    check_question(question)
    request: dict[str, Any] = {"query": question, **limits}
    ask_rag(gw, "graph-rag", request, explainable=explainable, streaming=not no_streaming)


if __name__ == "__main__":
    main()
