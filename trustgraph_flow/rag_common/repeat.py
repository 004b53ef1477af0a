"""A request that repeats one this service has run: the same trace (an agent step's tool call
names its sub-trace by the step, ``uris.tool_session_id``), scope, question and parent. Its
caller was killed while the tool ran, and its rerun took the step again. The request is
answered from that run's record, once the run has ended: the trace is not written twice
and the caller gets the answer the run gave (docs/agent.md, "`tg-invoke-agent`").

A request that names a trace this service ran for something else (another question or
parent, or a run that failed) gets a trace of its own, under a fresh id: two runs are
never merged into one trace. So does a ``retake`` (the step a rerun takes again) naming a
trace the store has that this service did not run (another replica, or before a restart):
the store is asked only then, so a first asking costs nothing more.

``trace_identity`` is the trace id and start time a request asks for, checked, before any
such repeat is looked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import TRIPLES_QUERY, Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, PROV, TG
from trustgraph_base.provenance.uris import new_session_id
from trustgraph_base.rdf.terms import IriTerm, check_iri
from trustgraph_base.schema import TriplesQueryRequest
from trustgraph_base.schema.rag import RagRequest
from trustgraph_flow.run_journal import Journaled, Run
from trustgraph_flow.run_recovery import recorded_entities
from trustgraph_flow.trace_writer import identity


def trace_identity(req: RagRequest, uri_of: Callable[[str], str]) -> tuple[str, str]:
    """The question URI and start time (the caller's ``session_id``/``started_at`` when given).

    Everything the caller names is checked before anything is written: the session id and
    the parent here, ``started_at`` when the request was read (``StartedAt``)."""
    found = identity(req.session_id, req.started_at, uri_of)
    if req.parent_uri:
        try:
            check_iri(req.parent_uri)
        except ValueError as exc:
            raise ServiceError(ErrorType.BAD_REQUEST, str(exc)) from None
    return found


async def repeat_of(
    ctx: Context[Any, Journaled],
    req: RagRequest,
    uri: str,
    uri_of: Callable[[str], str],
    *,
    again: bool = True,
) -> tuple[str, Run | None]:
    """The trace URI ``req`` is run under and the run it repeats (None: a run of its own).

    Only a caller's ``session_id`` can name a trace already run: without one, ``uri`` is
    fresh. A run of the caller's scope still under way in this process is waited for, one
    that has journaled nothing yet too (another user's never repeats: not waited for). A
    ``retake`` this service knows no run of (another replica ran it, or this one before a
    restart) is looked for in the store: found (or not known), it gets a fresh id; a run
    of the trace begun here meanwhile (another retake of the step) is then looked at again."""
    if not req.session_id:
        return uri, None
    journal = ctx.state.journal
    for under_way in journal.runs_of(uri):  # its answer is coming (a pending run's is not)
        if _scope(under_way) == _scope(req) and journal.pending.get(under_way.rid) is not under_way:
            await under_way.finished.wait()
    runs = [r for r in journal.runs_of(uri) if r.messages]
    if not runs:
        known = {r.key for r in journal.runs_of(uri)}
        fresh = req.retake and await _stored(ctx, req, uri)
        if again and any(r.key not in known for r in journal.runs_of(uri)):
            return await repeat_of(ctx, req, uri, uri_of, again=False)
        return (uri_of(new_session_id()) if fresh else uri), None
    run = runs[0]
    if _repeats(run, req, uri):
        return uri, run
    return uri_of(new_session_id()), None


async def _stored(ctx: Context[Any], req: RagRequest, uri: str) -> bool:
    """Whether the store has the trace ``uri`` (True when it cannot say: never a merge)."""
    probe = TriplesQueryRequest(
        s=IriTerm(i=uri), g=GRAPH_RETRIEVAL, limit=1, user=req.user, collection=req.collection
    )
    try:
        found = await ctx.client(TRIPLES_QUERY).request(probe, timeout=ctx.settings.request_timeout)
    except (ServiceError, RequestTimeout):
        return True
    return bool(found.triples)


def _scope(of: Run | RagRequest) -> tuple[str, str]:
    return of.user, of.collection


def _repeats(run: Run, req: RagRequest, uri: str) -> bool:
    """Whether ``req`` asks what ``run`` was asked, and the run did not fail."""
    if _scope(run) != _scope(req):
        return False
    asked = recorded_entities(run.messages).get(uri, [])
    said = [(t.p.i, t.o) for t in asked if getattr(t.s, "i", None) == uri]
    queries = {getattr(o, "v", None) for p, o in said if p == TG.query.i}
    parents = {getattr(o, "i", "") for p, o in said if p == PROV.wasDerivedFrom.i}
    failed = any(p == TG.error.i for p, _ in said)
    parent = req.parent_uri in parents if req.parent_uri else not parents
    return queries == {req.query} and parent and not failed
