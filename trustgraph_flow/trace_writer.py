"""The one trace writer: how the agent, GraphRAG and DocumentRAG publish their traces.

A trace is opened for one request (``open_trace``: its question URI, checked, and a run in
the service's run journal). Each ``send`` is one ``Triples`` message on ``explain-store``
(metadata: the entity URI, the request's user and collection), sent the moment its entities
are known: one entity, or the entities of one step (the agent's analysis and its Observation
entity). Once the current pass of the event loop ends, it is written to the run journal and
handed to the broker, together with whatever the service sends next in that pass (the
agent's next LLM request). ``settle`` makes sure every message sent so far is in the
journal, and a caller settles before it tells its client of an entity: nothing the client
was told can then be missing from the trace if the process dies (the next process sends the
journal's messages again). A message sent with ``hold`` (a RAG question, before its
exploration; a synthesis, before its verification) is journaled but goes to the broker with
the next one sent (at the latest when the run ends): one broker message less. As the run
ends, the broker's receipts decide when it is done in the journal (``trace_delivery.finish``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from trustgraph_base.errors import ErrorType, MessageTooLarge, ServiceError
from trustgraph_base.messaging import EXPLAIN_STORE, Context, Receipt
from trustgraph_base.messaging.delivery import current_delivery
from trustgraph_base.provenance import GRAPH_RETRIEVAL, failure_triples, now_iso
from trustgraph_base.provenance.uris import check_session_id, new_session_id
from trustgraph_base.rdf.rows import Stated
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import Metadata, Response, Scoped, Triples
from trustgraph_base.schema.core import joined_triples
from trustgraph_base.wire import encode
from trustgraph_flow.run_journal import Journaled, Run, RunJournal
from trustgraph_flow.run_recovery import begin, heard, heard_before
from trustgraph_flow.trace_delivery import finish

log = logging.getLogger(__name__)


@dataclass
class TraceWriter:
    """The trace of one request: where its entities go and which of them are safe."""

    ctx: Context[Any]
    question_uri: str
    user: str
    collection: str
    started_at: str
    journal: RunJournal | None = None  # None: ``settle`` waits for the broker's receipts
    run: str = ""  # the run's key in the journal
    queued: list[tuple[Triples, bool]] = field(default_factory=list)  # sent (held?), not journaled
    held: list[bytes] = field(default_factory=list)  # journaled (wire forms), not handed over
    # The broker's receipts of the messages sent, in order of publication (a producer keeps
    # them in that order): one each, the same one for messages handed over together.
    receipts: list[Receipt[None]] = field(default_factory=list)
    persisted: int = 0  # how many of them are known to be persisted
    # A rerun of a run cut short (``resume``): the entities its trace already has, by the
    # URI that heads their message. They are not sent again; the caller may read them.
    recorded: dict[str, list[Triple]] = field(default_factory=dict)
    told: set[str] = field(default_factory=set)  # of those, the ones its caller heard of

    @property
    def count(self) -> int:
        """How many messages have been sent so far."""
        return len(self.receipts) + len(self.held) + len(self.queued)

    def heard(self, event: Response) -> bool:
        """Whether the caller heard ``event`` from a run a kill cut short (``heard_before``)."""
        return heard_before(self.told, event)

    def send(self, uri: str, triples: Sequence[Stated], *, hold: bool = False) -> None:
        """Publish an entity (or one step's entities, ``uri`` the first's) once this pass of
        the event loop ends, without waiting for the broker's receipt. The triples may be
        rows (``rdf.rows``): the message only goes to the wire, whose N-Quads writes either.
        ``hold``: once journaled, it waits to go to the broker with the next message."""
        if uri in self.recorded:
            return  # a rerun's step its trace has already: the recorded one stands
        self._queue(uri, triples, hold)

    def _queue(self, uri: str, triples: Sequence[Stated], hold: bool = False) -> None:
        meta = Metadata(id=uri, user=self.user, collection=self.collection)
        # Made, not validated: its triples are models or rows (checked as they were built),
        # which only its wire form reads (``nquads_text`` writes either).
        stated: list[Any] = [*triples]
        self.queued.append((Triples.model_construct(metadata=meta, triples=stated), hold))
        if len(self.queued) == 1:
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Journal the messages sent and not yet journaled, and hand them to the broker (a
        held one with the next)."""
        for message, hold in self.queued:
            data = encode(message)
            if self.journal is None:
                self._hand_over(1, data)
                continue
            self.journal.record(self.run, data)
            self.held.append(data)
            if not hold:
                self.release()
        self.queued.clear()

    def release(self) -> None:
        """Hand the held messages to the broker as one (their wire forms joined, not written
        again: ``joined_triples``)."""
        held, self.held = self.held, []
        if len(held) == 1:
            self._hand_over(1, held[0])
        elif held:
            try:
                self._hand_over(len(held), joined_triples(held))
            except MessageTooLarge:  # together, not alone: each on its own
                for data in held:
                    self._hand_over(1, data)

    def _hand_over(self, messages: int, data: bytes) -> None:
        # Not on a batching producer: its 1 ms timer would hold the message while the explain
        # event naming it leaves on a producer of its own, and pushing the batch out
        # (flush_async, which keeps the GIL while it waits for the producer's lock) deadlocks
        # against that timer's thread, which holds the lock and waits for the GIL.
        receipt = self.ctx.send_now(EXPLAIN_STORE, data)
        self.receipts.extend(receipt for _ in range(messages))

    async def settle(self, upto: int | None = None) -> None:
        """Make the first ``upto`` messages sent (default: all) safe: journaled, or without
        a journal persisted by the broker. Either way they are on their way to the broker
        in order (a held one with the next)."""
        self.flush()
        if self.journal is None:
            await self.delivered(upto)

    async def delivered(self, upto: int | None = None) -> None:
        """Wait until the broker has persisted the first ``upto`` messages (default: all);
        ``BrokerUnavailable`` if one was not."""
        self.flush()
        self.release()
        end = len(self.receipts) if upto is None else min(upto, len(self.receipts))
        while self.persisted < end:
            await self.receipts[self.persisted]  # raises BrokerUnavailable if it was not
            self.persisted += 1

    async def publish(self, uri: str, triples: Sequence[Stated], *, hold: bool = False) -> None:
        """Send one entity and make it (and every one before it) safe."""
        self.send(uri, triples, hold=hold)
        await self.settle()

    def fail(self, message: str, ending: Sequence[Stated] = ()) -> None:
        """Mark the question failed, with the reason (sent like any entity), in one message
        with ``ending``, the entity that says how the run ended (the agent's conclusion)."""
        marks = failure_triples(self.question_uri, GRAPH_RETRIEVAL, message)
        self._queue(self.question_uri, [*marks, *ending])


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
    repeat: Run | None = None,
) -> Iterator[TraceWriter]:
    """The writer of the trace ``uri`` (started at ``started_at``) for a request ``scope``
    (its user and collection). With ``journaled``, its messages are safe once journaled,
    and until the block ends a restart would mark the trace interrupted.

    A request that goes on from a run (``run_recovery.begin``: its own cut short by a kill,
    or ``repeat``) has that run's trace URI and start time, not ``uri`` and ``started_at``
    (callers read ``question_uri``), ``recorded`` and ``told``."""
    journal = ctx.state.journal if journaled else None
    delivery = current_delivery()
    rid = delivery.rid if delivery is not None else ""
    writer = TraceWriter(ctx, uri, scope.user, scope.collection, started_at, journal)
    if journal is not None:
        until = (delivery.deadline or 0.0) if delivery is not None else 0.0
        begun = begin(journal, (rid, until), uri, scope, started_at, repeat)
        writer.run, writer.question_uri, writer.started_at, writer.recorded, writer.told = begun
        if delivery is not None:
            delivery.told.append(partial(heard, journal, writer.run))
    try:
        yield writer
    finally:
        if journal is not None:
            writer.flush()
            writer.release()
            settled = delivery.settled if delivery is not None else None
            finish(writer, journal, settled)
