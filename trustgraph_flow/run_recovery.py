"""What a traced service does at start with the runs its killed predecessor left in the
run journal: send their trace messages again, and end the runs that were cut short.

A run whose caller still waits (its request's deadline is ahead) is kept, whether it had
ended or not (one that ended may not have had its answer persisted before the kill): the
broker delivers its request again, and the rerun continues the same trace
(``trace_writer.open_trace`` claims it by the request's id). Only a run that had not ended
and whose request does not come back before its deadline is marked interrupted.
See docs/provenance.md.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from trustgraph_base.errors import WireError
from trustgraph_base.messaging import EXPLAIN_STORE, Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, interrupted_triples, now_iso
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import Metadata, Scoped, Triples
from trustgraph_base.wire import decode
from trustgraph_flow.run_journal import Run, RunJournal

log = logging.getLogger(__name__)

GRACE_S = 2.0  # after a pending run's deadline, before it is marked interrupted


async def open_journal(ctx: Context[Any]) -> RunJournal:
    """Open the journal (at start, in a lifespan hook): send again the trace messages a dead
    predecessor left; keep each run cut short whose caller still waits for its request to
    come again, and mark the others interrupted. ``watch_pending`` ends the kept ones."""
    name = ctx.client_name
    book = RunJournal(Path(ctx.settings.data_dir) / name / "runs")
    now = time.time()
    for run in book.left():
        await resend(ctx, run)
        if run.rid and run.until > now:
            # Its caller still waits: its request may come again (a run that ended may not
            # have had its answer persisted before the kill), and then continues this trace.
            book.adopt(run)
            log.warning("run %s was cut short: continued if its request comes again", run.uri)
            continue
        if not run.ended:
            await mark_interrupted(ctx, run)
        book.forget(run.key)
    book.compact()  # every run left is dealt with, or adopted
    return book


async def resend(ctx: Context[Any], run: Run) -> None:
    """Publish the run's journaled trace messages again (the store keeps a quad once)."""
    for data in run.messages:
        try:
            message = decode(Triples, data)
        except WireError as exc:
            log.warning(
                "journal of %s: a trace message of %s is unreadable: %s",
                ctx.client_name,
                run.uri,
                exc,
            )
            continue
        if (message.metadata.user, message.metadata.collection) != (run.user, run.collection):
            log.warning(
                "journal of %s: a message of %s names another scope: not sent",
                ctx.client_name,
                run.uri,
            )
            continue
        await ctx.publish(EXPLAIN_STORE, message)
    if run.messages:
        log.warning("sent again %d trace message(s) of run %s", len(run.messages), run.uri)


async def mark_interrupted(ctx: Context[Any], run: Run) -> None:
    """End the trace of a run cut short: ``prov:endedAtTime`` and ``tg:interrupted``."""
    reason = f"the {ctx.client_name} process stopped before this run finished"
    meta = Metadata(id=run.uri, user=run.user, collection=run.collection)
    triples = interrupted_triples(run.uri, GRAPH_RETRIEVAL, reason, now_iso())
    await ctx.publish(EXPLAIN_STORE, Triples(metadata=meta, triples=triples))
    log.warning("marked run %s interrupted: %s", run.uri, reason)


async def watch_pending(ctx: Context[Any], book: RunJournal) -> None:
    """Mark interrupted each pending run whose request did not come again by its deadline
    (run for the processor's life, from its lifespan; returns once none is pending)."""
    while book.pending:
        first = min(run.until for run in book.pending.values())
        await asyncio.sleep(max(0.0, first + GRACE_S - time.time()))
        now = time.time()
        for run in [r for r in book.pending.values() if r.until + GRACE_S <= now]:
            if book.claim(run.rid) is run:
                if not run.ended:
                    await mark_interrupted(ctx, run)
                book.done(run.key)


@asynccontextmanager
async def journal_open(ctx: Context[Any]) -> AsyncIterator[RunJournal]:
    """The run journal for a lifespan hook (``open_journal``), with ``watch_pending``
    running until the hook closes."""
    book = await open_journal(ctx)
    watching = asyncio.create_task(watch_pending(ctx, book))
    try:
        yield book
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)


def recorded_entities(messages: list[bytes]) -> dict[str, list[Triple]]:
    """The triples of a run's journaled trace messages, by the URI heading each message."""
    found: dict[str, list[Triple]] = {}
    for data in messages:
        try:
            message = decode(Triples, data)
        except WireError:
            continue  # half-written: that step is done again
        found.setdefault(message.metadata.id or "", []).extend(message.triples)
    return found


def begin(
    journal: RunJournal,
    request: tuple[str, float],
    uri: str,
    scope: Scoped,
    started: str,
    repeat: Run | None,
) -> tuple[str, str, str, dict[str, list[Triple]], set[str]]:
    """The run of a trace for a request (its id and deadline): its key in the journal, its
    trace URI and start time, the entities its trace has and those its caller heard of.

    A new run for ``uri`` unless the request goes on from one: its own, cut short by a kill
    (found by its id), or ``repeat`` (a run it repeats), taken over when a predecessor's
    kill cut it short, else answered from its record by a run of its own."""
    rid, until = request
    cut = journal.claim(rid)
    if cut is None and repeat is not None and journal.pending.get(repeat.rid) is repeat:
        cut = journal.claim(repeat.rid)
    source = cut or repeat
    if source is None:
        key = journal.open(uri, scope.user, scope.collection, rid=rid, until=until, started=started)
        return key, uri, started, {}, set()
    log.info("request %s: continuing the trace %s", rid, source.uri)
    uri, started = source.uri, source.started or started
    told = set(cut.told) if cut is not None and cut.rid == rid else set()
    if cut is None:
        key = journal.open(uri, scope.user, scope.collection, rid=rid, until=until, started=started)
    return (cut.key if cut else key), uri, started, recorded_entities(source.messages), told


def told_key(event: Any) -> str | None:
    """How the run journal names what ``event`` tells its caller: the entity of an explain
    event, the text of an agent's thought or action (None: an event not kept)."""
    kind = getattr(event, "message_type", "")
    if kind == "explain":
        return getattr(event, "explain_id", None) or None
    return f"{kind}: {event.content}" if kind in ("thought", "action") else None


def heard(journal: RunJournal, key: str, replies: Sequence[Any]) -> None:
    """``replies`` are persisted on the caller's reply topic: what they tell is told (a rerun
    of the run for the same request does not tell it again: ``TraceWriter.heard``)."""
    told = [k for k in map(told_key, replies) if k is not None]
    if told:
        journal.told(key, told)


def heard_before(told: set[str], event: Any) -> bool:
    """Whether ``told`` (what a run a kill cut short told its caller) holds ``event``: not told
    again. Once: a later event alike is told (an agent's thought of another step)."""
    key = told_key(event)
    if key is not None and key in told:
        told.discard(key)
        return True
    return False
