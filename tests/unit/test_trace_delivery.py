"""A traced run that ended: done in its journal at once when the broker has every message of
it, else ended and done once the last receipt comes (``trace_delivery.finish``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

from trustgraph_base.messaging import Context, Receipt
from trustgraph_flow.run_journal import RunJournal
from trustgraph_flow.trace_delivery import finish
from trustgraph_flow.trace_writer import TraceWriter

A = "urn:trustgraph:agent:a"
MSG = b'{"metadata":{"id":"urn:trustgraph:agent:a","user":"u","collection":"c"},"triples":[]}'
NO_CTX = cast(Context[Any], None)  # the context only resends a refused message: none here


def run_with(tmp_path: Path, receipts: int) -> tuple[RunJournal, TraceWriter]:
    """A run with ``receipts`` trace messages journaled and handed over, no receipt come yet."""
    journal = RunJournal(tmp_path)
    writer = TraceWriter(NO_CTX, A, "u", "c", "2026-01-01T00:00:00Z", journal)
    writer.run = journal.open(A, "u", "c")
    for _ in range(receipts):
        journal.record(writer.run, MSG)
    writer.receipts = [Receipt(asyncio.get_running_loop()) for _ in range(receipts)]
    return journal, writer


async def passes() -> None:
    """A few passes of the event loop: what the waiting task does at once is done."""
    for _ in range(5):
        await asyncio.sleep(0)


def lines(tmp_path: Path) -> list[str]:
    return [line.split('"')[1] for line in (tmp_path / "journal.log").read_text().splitlines()]


async def test_a_run_whose_receipts_all_came_is_done_at_once_in_one_line(tmp_path: Path) -> None:
    journal, writer = run_with(tmp_path, 2)
    for receipt in writer.receipts:
        receipt.arrive()
    answered = asyncio.get_running_loop().create_future()
    answered.set_result(None)
    finish(writer, journal, answered)
    assert lines(tmp_path) == ["open", "msg", "msg", "done"]
    assert RunJournal(tmp_path).left() == []


async def test_a_run_waiting_for_a_receipt_or_its_answer_is_ended_then_done(
    tmp_path: Path,
) -> None:
    journal, writer = run_with(tmp_path, 2)
    writer.receipts[0].arrive()
    answered = asyncio.get_running_loop().create_future()
    finish(writer, journal, answered)
    assert lines(tmp_path)[-1] == "end"
    (left,) = RunJournal(tmp_path).left()  # a process killed now sends its messages again
    assert left.ended and left.messages == [MSG, MSG]
    writer.receipts[1].arrive()
    await passes()
    assert lines(tmp_path)[-1] == "end"  # its request is not answered yet
    answered.set_result(None)
    await passes()
    assert lines(tmp_path)[-2:] == ["end", "done"]
    assert RunJournal(tmp_path).left() == []
