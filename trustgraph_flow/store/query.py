"""Triple-pattern queries and read-only SPARQL over one collection's store.

User strings never become query text: pattern terms are pyoxigraph terms passed to
``quads_for_pattern``; SPARQL text is the caller's own query over their own store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TypeVar

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.rdf.terms import Term, Triple
from trustgraph_base.schema.store import (
    ALL_GRAPHS,
    SparqlBinding,
    SparqlQueryRequest,
    SparqlQueryResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_flow.store.backend import QuadStore, SparqlEndpoint
from trustgraph_flow.store.convert import (
    DEFAULT_GRAPH,
    ConversionError,
    from_ox,
    named,
    to_ox,
    triple_of,
)
from trustgraph_flow.store.projection import in_order, star_order
from trustgraph_flow.store.sparql_check import check_query

_MAX_ROWS = 100_000
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
        found.extend(triple_of(q) for q in islice(quads, req.limit))
    return TriplesQueryResponse(triples=found)


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
) -> SparqlQueryResponse:
    """Run a read-only query; updates are refused, syntax errors answered with their position.

    On a pyoxigraph store, ``deadline`` (``time.monotonic``) stops a streamed result between
    rows, so a query the caller has stopped waiting for does not keep its thread for long;
    a SPARQL server's store runs the query itself within ``timeout`` seconds.
    """
    form = check_query(req.query)  # updates, SERVICE and unreadable text never reach a store
    if isinstance(store, SparqlEndpoint):
        return store.sparql(req.query, form, timeout)
    # Parse-check against an empty in-memory store so a missing collection still reports syntax errors.
    target = store if isinstance(store, ox.Store) else ox.Store()
    return answer(target, req.query, deadline, form)


def answer(
    target: ox.Store, text: str, deadline: float | None, form: str = "select"
) -> SparqlQueryResponse:
    """The response, or a fresh ServiceError raised once the result is gone.

    pyoxigraph results must be freed on the thread that made them: an exception whose
    traceback still held one would free it on another thread (a RuntimeError).
    """
    order = star_order(text) if "*" in text else None  # before any result exists (see there)
    try:
        result = target.query(text)
    except SyntaxError as exc:
        raise ServiceError(ErrorType.SPARQL_SYNTAX, f"SPARQL syntax {exc}") from None
    except OSError as exc:
        raise ServiceError(ErrorType.SPARQL_ERROR, str(exc)) from None
    error: ServiceError
    try:
        return _response(result, deadline, order, form)
    except ServiceError as exc:
        error = ServiceError(exc.type, exc.message)
    except ValueError as exc:  # a computed literal the wire form cannot carry
        error = ServiceError(ErrorType.SPARQL_RESULT, f"a result term cannot be sent: {exc}")
    except OSError as exc:
        error = ServiceError(ErrorType.SPARQL_ERROR, str(exc))
    finally:
        del result
    raise error


def respond(
    result: bool | list[ox.Triple] | tuple[list[str], list[list[object]]],
    deadline: float | None,
    text: str,
    form: str,
    term: Callable[[object], object] | None = None,
) -> SparqlQueryResponse:
    """The response of results read from a SPARQL server: a boolean (ASK), triples
    (CONSTRUCT, DESCRIBE) or (variables, rows of terms); ``term`` maps each result term back
    to the caller's names (a graph's logical name)."""
    if isinstance(result, bool):
        return SparqlQueryResponse(query_type="ask", ask_result=result)
    if isinstance(result, list):
        return SparqlQueryResponse(
            query_type="describe" if form == "describe" else "construct",
            triples=[triple_of(t) for t in in_time(result, deadline)],
        )
    order = star_order(text) if "*" in text else None
    variables, solutions = result
    index = {v: i for i, v in enumerate(variables)}
    names = in_order(list(index), order)
    rows = []
    try:
        for solution in in_time(solutions, deadline):
            found = [solution[index[name]] for name in names]
            if term is not None:
                found = [term(v) if v is not None else None for v in found]
            rows.append(
                SparqlBinding(values=[from_ox(v) if v is not None else None for v in found])  # type: ignore[arg-type]
            )
    except ValueError as exc:
        raise ServiceError(
            ErrorType.SPARQL_RESULT, f"a result term cannot be sent: {exc}"
        ) from None
    return SparqlQueryResponse(query_type="select", variables=names, bindings=rows)


def in_time(rows: Iterable[T], deadline: float | None) -> Iterator[T]:
    """``rows`` up to ``_MAX_ROWS``; ServiceError "timeout" once ``deadline`` has passed."""
    for n, row in enumerate(islice(rows, _MAX_ROWS)):
        if deadline is not None and n % 256 == 0 and time.monotonic() > deadline:
            raise ServiceError(ErrorType.TIMEOUT, "the query ran past its time limit")
        yield row


def _response(
    result: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples,
    deadline: float | None,
    order: list[str] | None,
    form: str = "select",
) -> SparqlQueryResponse:
    if isinstance(result, ox.QueryBoolean):
        return SparqlQueryResponse(query_type="ask", ask_result=bool(result))
    if isinstance(result, ox.QueryTriples):
        kind = "describe" if form == "describe" else "construct"
        return SparqlQueryResponse(
            query_type=kind, triples=[triple_of(t) for t in in_time(result, deadline)]
        )
    index = {v.value: i for i, v in enumerate(result.variables)}
    names = in_order(list(index), order)
    rows = []
    for solution in in_time(result, deadline):
        values: list[Term | None] = []
        for name in names:
            value = solution[index[name]]
            values.append(from_ox(value) if value is not None else None)
        rows.append(SparqlBinding(values=values))
    return SparqlQueryResponse(query_type="select", variables=names, bindings=rows)
