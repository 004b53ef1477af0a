"""A traced run that ended, and the broker's receipts of its trace messages.

When the run ends (``trace_writer.open_trace``) the receipts have almost always come: its
last message went to the broker before its answer, and the answer's receipt was awaited.
The run is then done in the journal at once, with one line: no task waits for it and no
``end`` line goes before the ``done`` (a restart finds nothing of it either way). Otherwise
the receipts are awaited in the background, a refused message is sent again until the
broker persists it, and only then, once the request is answered, is the run done.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from trustgraph_base.errors import BrokerUnavailable
from trustgraph_base.messaging import EXPLAIN_STORE, Context, Receipt
from trustgraph_flow.run_journal import RunJournal

log = logging.getLogger(__name__)

RESEND_DELAYS = (1.0, 2.0, 5.0, 10.0, 30.0)  # seconds between tries; the last repeats

# Runs whose receipts are still awaited (a task nobody references could be collected).
_delivering: set[asyncio.Task[None]] = set()


class Sent(Protocol):
    """A trace run's writer (``trace_writer.TraceWriter``), as far as its delivery reads it."""

    ctx: Context[Any]
    question_uri: str
    run: str  # its key in the journal
    receipts: list[Receipt[None]]  # of its messages, in order


def finish(writer: Sent, journal: RunJournal, settled: asyncio.Future[None] | None) -> None:
    """The run of ``writer`` ended, its messages handed to the broker; ``settled``: done once
    its request is answered (None: no request waits)."""
    if all(r.ok() for r in writer.receipts) and (settled is None or settled.done()):
        journal.done(writer.run)
        return
    journal.end(writer.run)
    task = asyncio.ensure_future(_deliver(writer, journal, settled))
    _delivering.add(task)
    task.add_done_callback(_delivering.discard)


async def _deliver(writer: Sent, journal: RunJournal, settled: asyncio.Future[None] | None) -> None:
    """Wait for every receipt of a run that ended; send a refused message again until the
    broker persists it; then, once its request is answered (``settled``), the run is done in
    the journal. Cancelled, or the process killed before that: the run stays in the journal,
    the next process sends its messages again, and the request coming again continues it."""
    # A continued run's journal holds its predecessor's messages first, then this run's.
    first = len(journal.messages(writer.run)) - len(writer.receipts)
    for i, receipt in enumerate(writer.receipts):
        try:
            await receipt
            continue
        except BrokerUnavailable as exc:
            log.warning(
                "trace message %d of %s not persisted (%s): sending it again",
                i,
                writer.question_uri,
                exc,
            )
        data = journal.messages(writer.run)[first + i]
        attempt = 0
        while True:
            await asyncio.sleep(RESEND_DELAYS[min(attempt, len(RESEND_DELAYS) - 1)])
            attempt += 1
            try:
                await writer.ctx.send_now(EXPLAIN_STORE, data)
                break
            except BrokerUnavailable as exc:
                log.debug("sending a trace message of %s again: %s", writer.question_uri, exc)
    if settled is not None:
        await settled
    journal.done(writer.run)
