"""tg-invoke-document-rag: answer a question from the nearest document chunks."""

from __future__ import annotations

import click

from trustgraph_base.bounds import DOC_LIMIT
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
  tg-invoke-document-rag -q "What does the report say about revenue?"
  tg-invoke-document-rag -x -q "Who wrote it?" --doc-limit 10   # list each trace entity
  tg-invoke-document-rag -C research -q "Summarise the methods" > answer.txt
Then: tg-show-explain-trace <the trace id printed on stderr>
"""


@command(epilog=EPILOG)
@question_option
@explainable_option
@click.option("--no-streaming", is_flag=True, help="Wait for the whole answer, then print it.")
@bounded_option("--doc-limit", DOC_LIMIT, "How many chunks to answer from.")
@gateway_options
def main(gw: Gateway, question: str, explainable: bool, no_streaming: bool, doc_limit: int) -> None:
    """Ask QUESTION of the collection's documents; print the answer, then the trace id (stderr)."""
    request = {"query": question, "doc-limit": doc_limit}
    ask_rag(gw, "document-rag", request, explainable=explainable, streaming=not no_streaming)


if __name__ == "__main__":
    main()
