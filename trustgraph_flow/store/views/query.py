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
from trustgraph_base.rdf.terms import Term
from trustgraph_base.schema.store import (
    ALL_GRAPHS,
    MAX_PATTERNS,
    SparqlQueryRequest,
    SparqlQueryResponse,
    TriplePattern,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_flow.store.core.backend import QuadStore, SparqlEndpoint
from trustgraph_flow.store.core.convert import (
    DEFAULT_GRAPH,
    ConversionError,
    named,
    serialized,
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
    """Match a pattern: ``g`` None or ``""`` = the default graph, ``"*"`` = every graph.
    Asked ``nquads``, the matches are written as N-Quads text by pyoxigraph, not as a
    model a triple (``triple_of``) that pydantic then writes as JSON (a reply of 421
    triples matched and encoded in 0.7 ms of CPU instead of 3.2–3.6, in process)."""
    quads = matched(store, req)
    if req.nquads:
        text = serialized(quads, ox.RdfFormat.N_QUADS).decode() if quads else ""
        return TriplesQueryResponse.model_construct(nquads=text)
    return TriplesQueryResponse(triples=[triple_of(q) for q in quads])


def matched(store: QuadStore | None, req: TriplesQueryRequest) -> list[ox.Quad]:
    """The quads a request matches, in the order its reply holds them."""
    if req.patterns is not None and (req.s, req.p, req.o) != (None, None, None):
        raise ServiceError(ErrorType.BAD_REQUEST, "give either s/p/o or patterns, not both")
    if store is None:
        return []
    g = graph_of(req)
    found: list[ox.Quad] = []
    seen: set[ox.Quad] | None = set() if req.distinct else None
    if req.patterns is None:
        _matches(store, req, g, req.limit, found, seen)
    else:
        graphs = {req.g: g}  # a pattern's own graph, read once per name
        for pattern in req.patterns:
            if pattern.g is not None and pattern.g not in graphs:
                graphs[pattern.g] = graph_named(pattern.g)
            own = graphs[pattern.g] if pattern.g is not None else g
            _matches(store, pattern, own, pattern.limit or req.limit, found, seen)
    if req.follow:
        _followed(store, req, g, found, seen)
    return found


def _followed(
    store: QuadStore,
    req: TriplesQueryRequest,
    g: ox.NamedNode | ox.DefaultGraph | None,
    found: list[ox.Quad],
    seen: set[ox.Quad] | None,
) -> None:
    """``follow``: each distinct subject of the matches (first matched first), its triples
    with each of the predicates in turn, as the patterns ``{s, p}`` would add them."""
    assert req.follow
    subjects = list(dict.fromkeys(q.subject for q in found))
    asked = len(subjects) * len(req.follow)
    if asked > MAX_PATTERNS:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"follow asks {asked} patterns ({len(subjects)} subjects x {len(req.follow)} "
            f"predicates), over the {MAX_PATTERNS} a request may: ask fewer patterns at once",
        )
    predicates = [pattern_term(p, "follow") for p in req.follow]
    for s in subjects:
        for p in predicates:
            _add(store.quads_for_pattern(s, p, None, g), req.limit, found, seen)  # type: ignore[arg-type]


def _matches(
    store: QuadStore,
    pattern: TriplePattern | TriplesQueryRequest,
    g: ox.NamedNode | ox.DefaultGraph | None,
    limit: int,
    found: list[ox.Quad],
    seen: set[ox.Quad] | None = None,
) -> None:
    """Add a pattern's first ``limit`` matches in ``g`` to ``found``, less those in ``seen``
    (given: the ``distinct`` request's, which they join)."""
    s, p, o = (
        pattern_term(t, r) for t, r in ((pattern.s, "s"), (pattern.p, "p"), (pattern.o, "o"))
    )
    quads = store.quads_for_pattern(s, p, o, g)  # type: ignore[arg-type]
    if s is None and isinstance(o, ox.NamedNode) and trace_kind(o.value) == "agent":
        quads = in_run_order(quads)
    _add(quads, limit, found, seen)


def _add(
    quads: Iterable[ox.Quad], limit: int, found: list[ox.Quad], seen: set[ox.Quad] | None
) -> None:
    first = islice(quads, limit)
    found.extend(first if seen is None else _unseen(first, seen))


def _unseen(quads: Iterable[ox.Quad], seen: set[ox.Quad]) -> Iterator[ox.Quad]:
    for q in quads:
        if q not in seen:
            seen.add(q)
            yield q


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
    return graph_named(req.g)


def graph_named(name: str | None) -> ox.NamedNode | ox.DefaultGraph | None:
    """The graph ``name`` says, as ``TriplesQueryRequest.g`` is read: ``"*"`` every graph
    (None), ``""`` or None the default graph, else that graph; ServiceError for a bad name."""
    if name == ALL_GRAPHS:
        return None
    if not name:
        return DEFAULT_GRAPH
    try:
        return named(name)
    except ValueError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"bad graph name {name!r}: {exc}") from None


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
