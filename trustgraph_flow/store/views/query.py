"""Triple-pattern queries and read-only SPARQL over one collection's store.

User strings never become query text: pattern terms are pyoxigraph terms passed to
``quads_for_pattern``; SPARQL text is the caller's own query over their own store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain, islice
from typing import TypeVar

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance.agent_order import agent_trace_order
from trustgraph_base.provenance.uris import trace_kind
from trustgraph_base.rdf.terms import Term, Triple
from trustgraph_base.schema.store import (
    ALL_GRAPHS,
    SparqlQueryRequest,
    SparqlQueryResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_flow.store.core.backend import QuadStore, SparqlEndpoint
from trustgraph_flow.store.core.convert import (
    DEFAULT_GRAPH,
    ConversionError,
    named,
    to_ox,
    triple_of,
)
from trustgraph_flow.store.sparql.check import check_query
from trustgraph_flow.store.sparql.results import answer

_MAX_ROWS = 100_000
_MAX_ORDERED = 10_000
T = TypeVar("T")


def pattern_term(
    term: Term | None, role: str
) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None:
    if term is None:
        return None
    try:
        return to_ox(term)
    except (ValueError, TypeError, ConversionError) as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"bad {role} term: {exc}") from None


def triples_query(store: QuadStore | None, req: TriplesQueryRequest) -> TriplesQueryResponse:
    """Match a pattern: ``g`` None or ``""`` = the default graph, ``"*"`` = every graph."""
    if req.patterns is not None and (req.s, req.p, req.o) != (None, None, None):
        raise ServiceError(ErrorType.BAD_REQUEST, "give either s/p/o or patterns, not both")
    if store is None:
        return TriplesQueryResponse()
    g = graph_of(req)
    patterns = req.patterns if req.patterns is not None else [req]
    found: list[Triple] = []
    for pattern in patterns:
        s, p, o = (
            pattern_term(t, r) for t, r in ((pattern.s, "s"), (pattern.p, "p"), (pattern.o, "o"))
        )
        quads = store.quads_for_pattern(s, p, o, g)  # type: ignore[arg-type]
        if s is None and isinstance(o, ox.NamedNode) and trace_kind(o.value) == "agent":
            quads = in_run_order(quads)
        found.extend(triple_of(q) for q in islice(quads, req.limit))
    return TriplesQueryResponse(triples=found)


def in_run_order(quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
    """What names an agent trace's entity (what derives from a step), in the order the run
    made it (``agent_trace_order``): the store's own order is arbitrary, and a reader that
    walks the trace by these links — TrustGraph's ``tg-show-explain-trace`` does — then
    shows a step's tool calls and observation before the next step and the conclusion last.
    Past ``_MAX_ORDERED`` matches (not a trace's: its entities have a few each) the store's
    order stands."""
    rest = iter(quads)
    head = list(islice(rest, _MAX_ORDERED + 1))
    if len(head) > _MAX_ORDERED:
        return chain(head, rest)
    head.sort(key=lambda q: agent_trace_order(getattr(q.subject, "value", "")))
    return iter(head)


def graph_of(req: TriplesQueryRequest) -> ox.NamedNode | ox.DefaultGraph | None:
    """The graph a request names (None: every graph); ServiceError for a bad name."""
    if req.g == ALL_GRAPHS:
        g: ox.NamedNode | ox.DefaultGraph | None = None
    elif not req.g:
        g = DEFAULT_GRAPH
    else:
        try:
            g = named(req.g)
        except ValueError as exc:
            raise ServiceError(ErrorType.BAD_REQUEST, f"bad graph name {req.g!r}: {exc}") from None
    return g


def sparql(
    store: QuadStore | None,
    req: SparqlQueryRequest,
    deadline: float | None = None,
    *,
    timeout: float = 30.0,
    form: str | None = None,
    dataset: tuple[list[str], list[str]] | None = None,
) -> SparqlQueryResponse:
    """Run a read-only query; updates are refused, syntax errors answered with their position.

    On a pyoxigraph store, ``deadline`` (``time.monotonic``) stops a streamed result between
    rows, so a query the caller has stopped waiting for does not keep its thread for long;
    a SPARQL server's store runs the query itself within ``timeout`` seconds. ``form`` is
    what ``check_query`` said of the text when it was checked already; ``dataset``, the
    graphs it queries (default: the request's protocol dataset).
    """
    if form is None:  # else checked already (the processor: by a worker, ``sparql/worker.py``)
        form = check_query(req.query)  # updates, SERVICE and unreadable text never reach a store
    if isinstance(store, SparqlEndpoint):
        return store.sparql(req.query, form, timeout, dataset or req.dataset())
    # Parse-check against an empty in-memory store so a missing collection still reports syntax errors.
    target = store if isinstance(store, ox.Store) else ox.Store()
    return answer(target, req.query, deadline, form, dataset or req.dataset())
