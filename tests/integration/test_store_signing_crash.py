"""A store process killed (SIGKILL) after traces ended but before it signed them loses
nothing: its next start signs them from the rows it left, before anyone asks."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

from tests.support.launcher import start_store
from tests.support.poll import eventually
from tests.support.sparql_server import embedded_only
from tests.support.store import agent, graph_rag, msg
from trustgraph_base.messaging import EXPLAIN, TRIPLES_STORE, Bus, RequestClient, Topics
from trustgraph_base.provenance import uris
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store.backends.embedded.stores import Stores


def held(data: Path) -> list[str]:
    """The ended traces the store noted and has not signed (read beside the running store)."""
    index = Stores(data / "store").path("alice", "default") / "traces.sqlite"
    if not index.exists():
        return []  # nothing written yet
    with contextlib.closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as db:
        try:
            return sorted(r for (r,) in db.execute("SELECT root FROM unsigned"))
        except sqlite3.OperationalError:  # the store is making its tables right now
            return []


@embedded_only("the embedded store's deferred signing, read from its trace index")
async def test_a_store_killed_before_it_signs_loses_nothing(
    bus: Bus, pulsar_url: str, prefix: str, topics: Topics, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    explain = RequestClient(bus, topics, EXPLAIN, "tester")
    # Signing 30 s after a trace ends: the kill certainly comes first.
    store = await start_store(
        pulsar_url, prefix, data, tmp_path / "first.ready", "--signing-delay", "30"
    )
    try:
        traces = [msg(graph_rag("g1", 1), "g1"), msg(agent("a1", 2, "g-sub"), "a1")]
        await asyncio.gather(*(bus.publish(topics.topic(TRIPLES_STORE), m) for m in traces))
        roots = sorted(
            [uris.graph_rag_question_uri(s) for s in ("g1", "g-sub")]
            + [uris.agent_session_uri("a1")]
        )
        await eventually(lambda: asyncio.to_thread(held, data), lambda h: h == roots, 60)
        store.kill()  # SIGKILL: no signing pass, nothing closed in order
        await store.wait()
        assert await asyncio.to_thread(held, data) == roots  # still waiting, on disk

        store = await start_store(pulsar_url, prefix, data, tmp_path / "second.ready")
        # Signed at start, from the journal, before any request.
        await eventually(lambda: asyncio.to_thread(held, data), lambda h: h == [], 60)
        for trace in ("g1", "a1"):
            reply = await explain.request(
                ExplainRequest(operation="verify-trace", id=trace, user="alice"), timeout=60
            )
            assert reply.verification is not None and reply.verification.verified, reply
        whole = await explain.request(
            ExplainRequest(operation="verify-log", user="alice"), timeout=60
        )
        assert whole.verification is not None and whole.verification.verified
        assert whole.verification.entries == 3
    finally:
        if store.returncode is None:
            store.terminate()
        await store.wait()
        await explain.close()
