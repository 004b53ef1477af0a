"""The collector paused while views are built and streamed, and the store's clock collection."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from trustgraph_base import gcpause
from trustgraph_base.gcpause import gc_paused
from trustgraph_flow.store.service import timers


def test_paused_until_the_last_holder_of_any_thread_leaves() -> None:
    assert gc.isenabled() and not gcpause.paused()
    entered, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with gc_paused():
            entered.set()
            leave.wait(5)

    other = threading.Thread(target=hold)
    other.start()
    assert entered.wait(5)
    with gc_paused():
        assert gcpause.paused() and not gc.isenabled()
    assert gcpause.paused() and not gc.isenabled()  # the other thread still holds it
    leave.set()
    other.join(5)
    assert not gcpause.paused() and gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


async def test_the_clock_collection_waits_while_a_view_is_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    collected: list[bool] = []
    done = asyncio.Event()

    def collect() -> int:
        collected.append(gcpause.paused())
        done.set()
        return 0

    monkeypatch.setattr(gc, "collect", collect)
    with gc_paused():
        clock = asyncio.create_task(timers.collect_garbage(0.001, 0.001, 60))
        for _ in range(20):
            await asyncio.sleep(0.001)
        assert collected == []  # due many times over, but a view is being built
    await asyncio.wait_for(done.wait(), 5)
    clock.cancel()
    assert collected[0] is False


async def test_the_clock_collection_runs_anyway_after_waiting_its_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done = asyncio.Event()
    monkeypatch.setattr(gc, "collect", lambda: done.set())
    with gc_paused():  # held longer than wait_max: not a show, a leak
        clock = asyncio.create_task(timers.collect_garbage(0.001, 0.001, 0.005))
        await asyncio.wait_for(done.wait(), 5)
    clock.cancel()
