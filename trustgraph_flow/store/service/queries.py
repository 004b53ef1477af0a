"""The triples and SPARQL services: pattern matches on a reader thread; SPARQL checked and run
in killable worker processes (or on the store server), users taking turns."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.store import (
    SparqlQueryRequest,
    SparqlQueryResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.service.state import Ctx, State, checked, read
from trustgraph_flow.store.sparql.check import fits_server
from trustgraph_flow.store.sparql.client import StoreUnavailable
from trustgraph_flow.store.views import query

T = TypeVar("T")


async def triples(req: TriplesQueryRequest, ctx: Ctx) -> AsyncIterator[TriplesQueryResponse]:
    """The matches in one reply, or (``streaming``) in replies of ``batch_size`` triples."""

    def go(stores: Backend) -> TriplesQueryResponse:
        with stores.lease(req.user, req.collection) as handle:
            return checked(query.triples_query(handle.store if handle else None, req))

    answer = await read(ctx, go)
    size = req.batch_size
    if answer.nquads is not None:  # asked as N-Quads text: a line a triple, "\n" its end
        lines = answer.nquads.split("\n")[:-1]  # (a literal's line breaks are escaped)
        if not req.streaming or len(lines) <= size:
            yield answer
            return
        for start in range(0, len(lines), size):
            batch, last = lines[start : start + size], start + size >= len(lines)
            yield TriplesQueryResponse.model_construct(
                nquads="\n".join(batch) + "\n", end_of_stream=last
            )
        return
    if not req.streaming or len(answer.triples) <= size:
        yield answer
        return
    found = answer.triples
    for start in range(0, len(found), size):
        last = start + size >= len(found)
        yield TriplesQueryResponse(triples=found[start : start + size], end_of_stream=last)


async def sparql(req: SparqlQueryRequest, ctx: Ctx) -> SparqlQueryResponse:
    """Answer within ``sparql_timeout``, its check included: past it the query is stopped
    (its worker killed, ``sparql/pool.py``). Users take turns at the workers (``FairGate``)."""
    limit = ctx.settings.sparql_timeout
    state = ctx.state
    await asyncio.to_thread(
        state.sparql_pool.warm_up
    )  # a worker's start-up is not the query's time
    deadline = time.monotonic() + limit
    try:
        await state.gate.acquire(req.user, limit)
    except TimeoutError:
        raise ServiceError(
            ErrorType.TIMEOUT, f"the query waited {limit:g} s for a free worker: try again"
        ) from None
    go = sparql_on_server if state.snapshots is None else sparql_embedded
    work = asyncio.get_running_loop().run_in_executor(
        state.sparql, functools.partial(go, state, req, deadline, limit)
    )
    work.add_done_callback(lambda _: state.gate.release(req.user))  # its thread is free again
    # The worker is stopped at the deadline; this answers a query whose thread is stuck.
    return await bounded(work, limit, grace=1.0)


def sparql_embedded(
    state: State, req: SparqlQueryRequest, deadline: float, limit: float
) -> SparqlQueryResponse:
    """Checked and answered in a worker process, over a snapshot of the collection."""
    assert state.snapshots is not None
    with state.stores.lease(req.user, req.collection) as handle:
        snap = state.snapshots.acquire((req.user, req.collection), handle)
    try:
        return checked(
            state.sparql_pool.run(
                snap.path if snap else None, req.query, deadline, limit, req.dataset()
            )
        )
    finally:
        state.snapshots.release(snap)


def sparql_on_server(
    state: State, req: SparqlQueryRequest, deadline: float, limit: float
) -> SparqlQueryResponse:
    """Checked in a worker process, then run by the server over the caller's collection only,
    within what is left of the time limit (and the server's own, ``oxigraph serve --timeout-s``)."""
    text = state.sparql_pool.check(req.query, deadline, limit)  # no update or SERVICE reaches it
    fits_server(text, state.server_max_patterns)
    try:
        with state.stores.lease(req.user, req.collection) as handle:
            # No collection: syntax is still checked, as on an empty embedded store.
            store = handle.store if handle else None
            left = max(0.1, deadline - time.monotonic())
            # The protocol's dataset, else the text's FROM clauses: the server is always
            # sent one, so that FROM names the collection's graphs as on an embedded store.
            dataset = req.dataset() or text.dataset
            return checked(query.sparql(store, req, timeout=left, form=text.form, dataset=dataset))
    except StoreUnavailable as exc:
        raise ServiceError(ErrorType.STORE_UNAVAILABLE, str(exc)) from None


async def bounded(work: Awaitable[T], limit: float, *, grace: float = 0.0) -> T:
    """``work``'s result, or ServiceError "timeout" after ``limit`` (+ ``grace``) seconds.

    Only the wait ends here: SPARQL work itself is stopped by ``sparql_pool`` (the worker
    process is killed at the deadline).
    """
    try:
        return await asyncio.wait_for(work, limit + grace)
    except TimeoutError:
        raise ServiceError(
            ErrorType.TIMEOUT,
            f"the query did not finish within {limit:g} s: narrow it or add a LIMIT",
        ) from None
