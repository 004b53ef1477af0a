"""The one trace writer: how the agent, GraphRAG and DocumentRAG publish their traces.

A trace is opened for one request (``open_trace``: its question URI, checked, and the run
journal entry that marks the trace interrupted if the process dies). Each ``send`` is one
``Triples`` message on ``triples-store`` (metadata: the entity URI, the request's user and
collection), sent the moment its entities are known: one entity, or the entities of one step
(the agent's analysis and its Observation entity). It goes to the broker once the current
pass of the event loop ends (``Context.send_soon``), together with whatever the service
sends next in that pass (the agent's next LLM request). Sending does not wait for the
broker's receipt; ``settle`` waits until the messages sent so far are persisted, and a
caller settles before it tells its client of an entity, so nothing a client was told can be
missing from the trace if the process dies afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import TRIPLES_STORE, Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, failure_triples, now_iso
from trustgraph_base.provenance.uris import check_session_id, new_session_id
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import Metadata, Scoped, Triples
from trustgraph_flow.run_journal import Journaled


@dataclass
class TraceWriter:
    """The trace of one request: where its entities go and which of them are persisted."""

    ctx: Context[Any]
    question_uri: str
    user: str
    collection: str
    started_at: str
    # Messages sent, in order of publication (a producer keeps them in that order).
    sent: list[asyncio.Future[None]] = field(default_factory=list)
    settled: int = 0  # how many of them are known to be persisted

    def send(self, uri: str, triples: list[Triple]) -> None:
        """Publish an entity (or one step's entities, ``uri`` the first's) now, without
        waiting for the broker's receipt."""
        meta = Metadata(id=uri, user=self.user, collection=self.collection)
        message = Triples(metadata=meta, triples=triples)
        self.sent.append(self.ctx.send_soon(TRIPLES_STORE, message))

    async def settle(self, upto: int | None = None) -> None:
        """Wait until the first ``upto`` messages sent (default: all) are persisted."""
        end = len(self.sent) if upto is None else min(upto, len(self.sent))
        while self.settled < end:
            await self.sent[self.settled]  # raises BrokerUnavailable if it was not persisted
            self.settled += 1

    async def publish(self, uri: str, triples: list[Triple]) -> None:
        """Send one entity and wait until it (and every one before it) is persisted."""
        self.send(uri, triples)
        await self.settle()

    def fail(self, message: str) -> None:
        """Mark the question failed, with the reason (sent like any entity)."""
        self.send(self.question_uri, failure_triples(self.question_uri, GRAPH_RETRIEVAL, message))


def identity(session_id: str, started_at: str, uri_of: Callable[[str], str]) -> tuple[str, str]:
    """The question URI and start time of a trace: the caller's ``session_id`` (empty: a fresh
    uuid) and ``started_at`` (already checked when the request was read; empty: now).
    ``ServiceError`` ("bad-request") for an id that is not a short URI-safe token."""
    try:
        uri = uri_of(check_session_id(session_id) if session_id else new_session_id())
    except ValueError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, str(exc)) from None
    return uri, started_at or now_iso()


@contextmanager
def open_trace(
    ctx: Context[Any, Journaled],
    uri: str,
    scope: Scoped,
    started_at: str,
    *,
    journaled: bool = True,
) -> Iterator[TraceWriter]:
    """The writer of the trace ``uri`` (started at ``started_at``) for a request ``scope``
    (its user and collection). Until the block ends, a restart would mark the trace
    interrupted (``journaled``)."""
    runs = ctx.state.journal if journaled else None
    if runs is not None:
        runs.open(uri, scope.user, scope.collection)
    try:
        yield TraceWriter(ctx, uri, scope.user, scope.collection, started_at)
    finally:
        if runs is not None:
            runs.close(uri)
