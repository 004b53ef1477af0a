"""Receipts of messages sent without waiting: completed on pulsar-client's thread, awaited
on the event loop's (a real thread here stands in for pulsar-client's)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from trustgraph_base.errors import BrokerUnavailable
from trustgraph_base.messaging import Receipt


def from_another_thread(receipt: Receipt[None], failure: BrokerUnavailable | None = None) -> None:
    thread = threading.Thread(target=receipt.arrive, args=(failure,))
    thread.start()
    thread.join()


async def test_a_receipt_that_came_before_anyone_waits_is_done_at_once() -> None:
    receipt: Receipt[None] = Receipt(asyncio.get_running_loop())
    assert not receipt.done()
    from_another_thread(receipt)
    assert receipt.done()
    await receipt
    await receipt  # any number of times


async def test_a_task_waiting_is_woken_when_the_receipt_comes_from_another_thread() -> None:
    receipt: Receipt[None] = Receipt(asyncio.get_running_loop())
    waiting = asyncio.ensure_future(asyncio.wait_for(receipt, 10))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    from_another_thread(receipt)
    await waiting


async def test_a_refused_message_raises_for_every_waiter_and_the_first_answer_stands() -> None:
    receipt: Receipt[None] = Receipt(asyncio.get_running_loop())
    early = asyncio.ensure_future(asyncio.wait_for(receipt, 10))
    await asyncio.sleep(0)
    from_another_thread(receipt, BrokerUnavailable("cannot publish to t: Timeout"))
    receipt.arrive()  # a second answer changes nothing
    with pytest.raises(BrokerUnavailable, match="Timeout"):
        await early
    with pytest.raises(BrokerUnavailable, match="Timeout"):
        await receipt


async def test_a_waiter_that_gives_up_leaves_the_others_waiting() -> None:
    receipt: Receipt[None] = Receipt(asyncio.get_running_loop())
    quitter = asyncio.ensure_future(asyncio.wait_for(receipt, 0.01))
    stayer = asyncio.ensure_future(asyncio.wait_for(receipt, 10))
    with pytest.raises(TimeoutError):
        await quitter
    assert not stayer.done()
    from_another_thread(receipt)
    await stayer


async def test_a_waiter_future_is_done_once_the_answer_has_come() -> None:
    receipt: Receipt[str] = Receipt(asyncio.get_running_loop())
    early = receipt.waiter()
    assert not early.done()
    thread = threading.Thread(target=receipt.arrive, kwargs={"value": "message"})
    thread.start()
    thread.join()
    await asyncio.wait_for(early, 10)
    assert receipt.waiter().done()  # asked after the answer: done at once
    assert await receipt == "message" and receipt.when > 0
