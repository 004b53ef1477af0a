"""Defaults and bounds that both the message schema and the CLI need, each written once.

Pydantic-free on purpose: every ``tg-*`` command imports it at start-up (≤ 0.15 s,
``bench/bench_cli_start.py``). The schema turns a ``Bound`` into a ``Field``
(``schema.core.bounded``), the CLI into a ``click.IntRange`` (``options.bounded_option``).
"""

from __future__ import annotations

from typing import NamedTuple

DEFAULT_USER = "trustgraph"
DEFAULT_COLLECTION = "default"
NAME_MAX = 200  # characters in a user or collection name
QUESTION_MAX = 20_000  # characters in a question
EXPLAIN_READ_MAX = 64  # IRIs a RAG request's ``explain_read`` may name
LISTING_WAIT = 2.0
"""Seconds a check that a collection exists waits for the user's collections (their list
needs the librarian, and a stack may have none): then the answer stands, unrefused (the
list commands, tg-sparql, the gateway's SPARQL Protocol endpoint)."""


class Bound(NamedTuple):  # not a dataclass: ``dataclasses`` alone is ~10 ms of a start-up
    """An integer setting's default (None: the service decides) and inclusive range."""

    default: int | None
    low: int
    high: int


# GraphRAG (``GraphRagRequest``, ``tg-invoke-graph-rag``)
ENTITY_LIMIT = Bound(50, 1, 1000)
TRIPLE_LIMIT = Bound(30, 1, 1000)
MAX_SUBGRAPH_SIZE = Bound(150, 1, 10_000)
MAX_PATH_LENGTH = Bound(2, 1, 5)
MAX_EDGES_SELECTED = Bound(10, 1, 200)
# DocumentRAG (``DocumentRagRequest``, ``tg-invoke-document-rag``)
DOC_LIMIT = Bound(5, 1, 100)
# the agent (``AgentRequest``, ``tg-invoke-agent``)
MAX_ITERATIONS = Bound(None, 1, 1000)
# explain (``ExplainRequest``: the trace list, source usage, purge)
TRACE_LIMIT = Bound(50, 1, 10_000)
# a document hierarchy's window of chunks (``document-hierarchy``, tg-show-document-hierarchy)
CHUNK_WINDOW = Bound(None, 1, 10_000)
# triples (``TriplesQueryRequest``, ``tg-query-triples``)
TRIPLE_QUERY_LIMIT = Bound(10_000, 1, 1_000_000)
# a document's chunking (``LibrarianRequest``, ``tg-load-document``)
CHUNK_SIZE = Bound(None, 50, 100_000)
CHUNK_OVERLAP = Bound(None, 0, 50_000)
