"""A checked SPARQL query's results as the wire's response: run on a pyoxigraph store
(``answer``, in a worker process of ``pool.py``) or read from a SPARQL server (``respond``),
at most ``_MAX_ROWS`` rows, stopped between rows once the deadline has passed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TypeVar

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.rdf.terms import Term
from trustgraph_base.schema.store import SparqlBinding, SparqlQueryResponse
from trustgraph_flow.store.core.convert import from_ox, triple_of
from trustgraph_flow.store.sparql.projection import in_order, star_order

_MAX_ROWS = 100_000
T = TypeVar("T")
Dataset = tuple[list[str], list[str]]  # the protocol's default graphs and named graphs


def answer(
    target: ox.Store,
    text: str,
    deadline: float | None,
    form: str = "select",
    dataset: Dataset | None = None,
) -> SparqlQueryResponse:
    """The response, or a fresh ServiceError raised once the result is gone. ``dataset``:
    the protocol's (default graphs, named graphs), in place of the query's own.

    pyoxigraph results must be freed on the thread that made them: an exception whose
    traceback still held one would free it on another thread (a RuntimeError).
    """
    order = star_order(text) if "*" in text else None  # before any result exists (see there)
    try:
        if dataset is None:
            result = target.query(text)
        else:
            result = target.query(
                text,
                default_graph=[ox.NamedNode(g) for g in dataset[0]],
                named_graphs=[ox.NamedNode(g) for g in dataset[1]],
            )
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
