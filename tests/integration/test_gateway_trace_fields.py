"""D7 at the gateway: no client grafts, re-dates or merges into a trace."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.poll import eventually
from tests.support.stack import Stack
from tests.support.store import graph_rag, msg
from trustgraph_base.messaging import GRAPH_RAG, TRIPLES_STORE, Context, Processor
from trustgraph_base.provenance import check_started_at
from trustgraph_base.schema import GraphRagRequest, GraphRagResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.store.processor import proc as store

ADMIN = "admin-t0ken"
FORGED = {
    "query": "q",
    "session_id": "mine",
    "started_at": "9999-12-31T23:59:59Z",
    "parent_uri": "urn:trustgraph:agent:victim/i1",
}


HOLD = asyncio.Event()  # a run under session "twin" waits for it


def recorder() -> tuple[Processor[ProcessorSettings], list[GraphRagRequest]]:
    """A stand-in graph-rag on the real broker that keeps the requests it is sent."""
    seen: list[GraphRagRequest] = []
    stand: Processor[ProcessorSettings] = Processor("graph-rag", ProcessorSettings)

    @stand.service(GRAPH_RAG)
    async def answer(req: GraphRagRequest, ctx: Context[ProcessorSettings]) -> GraphRagResponse:
        seen.append(req)
        if req.session_id == "twin":
            await HOLD.wait()
        return GraphRagResponse(response="ok")

    return stand, seen


async def post(stack: Stack, token: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    url = stack.url + "api/v1/flow/default/service/graph-rag"
    async with (
        aiohttp.ClientSession() as http,
        http.post(url, json=body, headers={"Authorization": f"Bearer {token}"}) as resp,
    ):
        return resp.status, await resp.json()


async def test_processor_fields_are_dropped_and_reused_sessions_refused(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    stand, seen = recorder()
    async with Stack(pulsar_url, prefix, [store, stand], data_dir=tmp_path, token=ADMIN) as stack:
        code, key, err = await stack.cli("tg-create-api-key", "--user-id", "bob", "--name", "t")
        assert code == 0, err
        status, _ = await post(stack, key.strip(), FORGED)
        assert status == 200
        assert (seen[-1].user, seen[-1].session_id, seen[-1].started_at, seen[-1].parent_uri) == (
            "bob",
            "",
            "",
            "",
        )

        # the operator may fix an id and a time, never graft onto another trace
        status, _ = await post(stack, ADMIN, {**FORGED, "started_at": "2026-01-02T03:04:05Z"})
        assert status == 200
        assert (seen[-1].session_id, seen[-1].started_at, seen[-1].parent_uri) == (
            "mine",
            "2026-01-02T03:04:05Z",
            "",
        )

        # ... and not reuse an id that is already a trace: the service is never asked
        await stack.publish(TRIPLES_STORE, msg(graph_rag("old1", 1), "old", user="trustgraph"))
        await eventually(lambda: stack.cli("tg-list-explain-traces"), lambda r: "old1" in r.stdout)
        asked = len(seen)
        status, body = await post(stack, ADMIN, {"query": "q", "session_id": "old1"})
        assert (status, body["error"]["type"]) == (200, "session-exists")
        assert "'old1' is already a trace" in body["error"]["message"]
        assert len(seen) == asked

        # ... nor run the same new id twice at once
        first = asyncio.ensure_future(post(stack, ADMIN, {"query": "q", "session_id": "twin"}))
        await eventually(
            lambda: asyncio.sleep(0.05, result=seen), lambda s: s[-1].session_id == "twin"
        )
        status, body = await post(stack, ADMIN, {"query": "q", "session_id": "twin"})
        assert (status, body["error"]["type"]) == (200, "session-exists")
        assert "being run now" in body["error"]["message"]
        HOLD.set()
        assert (await first)[0] == 200


@pytest.mark.parametrize(
    "bad",
    [
        "9999-12-31T23:59:59Z",
        "2026-01-02T03:04:05+25:00",
        "2026-01-02T03:04:05+14:30",
        "2026-13-02T03:04:05Z",
        "2026-01-02",
        "2026-01-02T03:04:05",
        "1066-10-14T09:00:00Z",
    ],
)
def test_started_at_must_be_a_sane_time(bad: str) -> None:
    with pytest.raises(ValueError, match="bad started_at"):
        check_started_at(bad)


def test_started_at_accepts_real_times() -> None:
    for good in (
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05.123+05:30",
        "2020-02-29T23:59:59-14:00",
    ):
        assert check_started_at(good) == good
