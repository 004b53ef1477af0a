"""A trace id printed by a tg-invoke-* command, read at once: the store may not have written
the trace yet (its messages are persisted by the broker before the answer, written by the
store in its next batch). newuser5 met `no trace …` 2 times in ~30 at load 14 with
`t=$(tg-invoke-document-rag …); tg-show-explain-trace $t`. The store now waits a moment for
a trace id it does not hold yet in a collection it holds (``store/service/arriving.py``):
here the trace's messages are sent only once the store has looked for it and not found it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.logs import told
from tests.support.poll import eventually
from tests.support.stack import Stack
from tests.support.store import graph_rag, msg
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_flow.store.processor import proc as store

WAITING = "trustgraph_flow.store.service.arriving"  # its line when it waits for a trace


@contextmanager
def missed() -> Iterator[asyncio.Event]:
    """Set once the store has looked for a trace, not found it, and begun to wait."""
    seen = asyncio.Event()
    loop = asyncio.get_running_loop()
    with told(WAITING, lambda _: loop.call_soon_threadsafe(seen.set)):
        yield seen


async def test_a_trace_read_while_its_messages_are_on_their_way_is_shown(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    settings = {"store": {"trace_wait": 20.0}}  # the messages go once the store has missed
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, settings=settings) as stack:
        await stack.publish(TRIPLES_STORE, msg(graph_rag("g1", 1)))  # alice's collection
        await eventually(
            lambda: stack.cli("tg-list-explain-traces", "-U", "alice"), lambda r: "g1" in r.stdout
        )
        # the streamed get-trace, and an export (one reply): both read through the wait
        for command, sid in [("tg-show-explain-trace", "g2"), ("tg-export-explain-trace", "g3")]:
            trace = f"urn:trustgraph:question:{sid}"
            with missed() as waiting:
                reading = asyncio.create_task(stack.cli(command, trace, "-U", "alice"))
                looked = asyncio.create_task(waiting.wait())
                await asyncio.wait({reading, looked}, return_when=asyncio.FIRST_COMPLETED)
                looked.cancel()
            assert not reading.done(), reading.result()  # before: `no trace …` at once
            await stack.publish(TRIPLES_STORE, msg(graph_rag(sid, 2), ident=sid))
            shown = await reading
            assert shown.code == 0 and shown.stderr == "", (command, shown)
            assert f"what does the fox do? ({sid})" in shown.stdout, (command, shown.stdout)
