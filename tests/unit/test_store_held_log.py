"""What the operator reads in the store's log while a shard is down: the shard that does not
answer (not every shard's URL), and a line when it answers again and the held writes go on.
Real ``oxigraph serve`` shards, the held writes' own wait (``intake.reachable``)."""

from __future__ import annotations

import asyncio
import logging
from contextlib import ExitStack
from urllib.parse import urlsplit

import pytest

from tests.support.sparql_server import oxigraph_server
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.service import intake


async def test_the_log_names_the_down_shard_and_says_when_it_answers_again(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(intake, "SERVER_WAIT_LOG", 0.4)  # log from the second probe on
    caplog.set_level(logging.WARNING, logger=intake.__name__)
    with ExitStack() as stack:
        a, b = (stack.enter_context(oxigraph_server()) for _ in "ab")
        with oxigraph_server() as c:
            stores = open_sharded(f"a={a} b={b} c={c}", 5)
            stack.callback(stores.close)
        # c's server is gone: the held writes wait for it
        waiting = asyncio.create_task(intake.reachable(stores.reach("c"), 1, "c"))  # its probe
        while "still unavailable" not in caplog.text:
            assert not waiting.done()
            await asyncio.sleep(0.05)
        stack.enter_context(oxigraph_server(port=urlsplit(c).port))
        await asyncio.wait_for(waiting, 30)
    down, *_, back = [r.getMessage() for r in caplog.records]
    assert down.startswith("shard 'c' still unavailable after ")
    assert down.count("'c'") == 1, down  # named once
    assert f"SPARQL server {c} unreachable" in down
    assert a not in down and b not in down
    assert down.endswith("holding its 1 message")  # was "1 messages"
    assert back.startswith("shard 'c' answers again after ")
    assert back.endswith("writing its 1 held message")
