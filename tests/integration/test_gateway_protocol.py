"""The gateway's WebSocket and REST protocol against the real broker and store."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.poll import eventually
from tests.support.stack import Stack
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.store.processor import proc as store

S, P = "urn:test:alice", "urn:test:knows"
QUERY = {"p": {"t": "i", "i": P}, "limit": 10}


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    limits = {"max_outstanding": 2, "max_frame_bytes": 4000, "request_timeout": 3}
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, gateway=limits) as running:
        triple = Triple(s=iri(S), p=iri(P), o=lit("Bob"))
        await running.publish(TRIPLES_STORE, Triples(metadata=Metadata(id="m1"), triples=[triple]))
        yield running


async def receive(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.receive_str(), 10))
    return frame


def frame(rid: str, service: str, request: Any) -> str:
    return json.dumps({"id": rid, "service": service, "flow": "default", "request": request})


async def test_socket_streams_replies_and_survives_bad_frames(stack: Stack) -> None:
    async with aiohttp.ClientSession() as http, http.ws_connect(stack.url + "api/v1/socket") as ws:
        reply = await eventually(
            lambda: ask(ws, frame("q", "triples", QUERY)), lambda r: bool(r["response"]["response"])
        )
        assert reply["id"] == "q" and reply["complete"] is True
        assert reply["response"]["response"][0]["s"] == {"t": "i", "i": S}

        await ws.send_str("{not json")
        bad = await receive(ws)
        assert bad["error"]["type"] == "bad-frame" and bad["complete"] is True
        await ws.send_str(frame("u", "no-such-service", {}))
        unknown = await receive(ws)
        assert unknown["id"] == "u" and unknown["error"]["type"] == "unknown-service"
        assert "no-such-service" in unknown["error"]["message"]
        await ws.send_str(frame("m", "sparql", {"user": "trustgraph"}))
        missing = await receive(ws)
        assert missing["error"]["type"] == "bad-request"
        assert "query" in missing["error"]["message"] and "sparql" in missing["error"]["message"]
        await ws.send_str(json.dumps({"service": "triples", "request": QUERY}))
        assert (await receive(ws))["error"]["type"] == "bad-frame"

        again = await ask(ws, frame("q2", "triples", QUERY))
        assert again["id"] == "q2" and again["response"]["response"]


async def test_the_typescript_clients_socket_path_is_the_same_socket(stack: Stack) -> None:
    """@trustgraph/client opens /api/socket by default (it used to answer 404)."""
    async with aiohttp.ClientSession() as http, http.ws_connect(stack.url + "api/socket") as ws:
        reply = await eventually(
            lambda: ask(ws, frame("q", "triples", QUERY)), lambda r: bool(r["response"]["response"])
        )
        assert reply["id"] == "q" and reply["response"]["response"][0]["s"] == {"t": "i", "i": S}


async def test_triples_g_semantics_and_streaming_batches(stack: Stack) -> None:
    """TrustGraph's reading: no g is the default graph, "*" every graph; batches when streaming."""
    named = [
        Triple(s=iri(f"urn:test:n{i}"), p=iri(P), o=lit(f"n{i}"), g="urn:graph:test")
        for i in range(3)
    ]
    await stack.publish(TRIPLES_STORE, Triples(metadata=Metadata(id="m2"), triples=named))
    everywhere = {**QUERY, "g": "*"}
    async with aiohttp.ClientSession() as http, http.ws_connect(stack.url + "api/v1/socket") as ws:
        every = await eventually(
            lambda: ask(ws, frame("all", "triples", everywhere)),
            lambda r: len(r["response"]["response"]) == 4,
        )
        assert {t.get("g") for t in every["response"]["response"]} == {None, "urn:graph:test"}
        default = await ask(ws, frame("d", "triples", QUERY))
        assert [t["s"]["i"] for t in default["response"]["response"]] == [S]
        await ws.send_str(frame("b", "triples", {**everywhere, "streaming": True, "batch-size": 3}))
        batches = [await receive(ws), await receive(ws)]
    assert [len(b["response"]["response"]) for b in batches] == [3, 1]
    assert [b["complete"] for b in batches] == [False, True]


async def ask(ws: aiohttp.ClientWebSocketResponse, text: str) -> dict[str, Any]:
    await ws.send_str(text)
    return await receive(ws)


async def test_limits_answer_errors_and_keep_the_socket(stack: Stack) -> None:
    async with aiohttp.ClientSession() as http, http.ws_connect(stack.url + "api/v1/socket") as ws:
        await ws.send_str(frame("big", "sparql", {"query": "x" * 5000}))
        big = await receive(ws)
        assert big["id"] == "big" and big["error"]["type"] == "frame-too-large"
        # Nothing serves 'agent' here: two requests stay outstanding until they time out.
        for rid in ("a1", "a2", "a3"):
            await ws.send_str(frame(rid, "agent", {"question": "q"}))
        refused = await receive(ws)
        assert refused["id"] == "a3" and refused["error"]["type"] == "too-many-requests"
        timeouts = {(await receive(ws))["id"], (await receive(ws))["id"]}
        assert timeouts == {"a1", "a2"}
        ok = await ask(ws, frame("q", "triples", QUERY))
        assert ok["id"] == "q" and "response" in ok


async def test_rest_final_response_and_errors(stack: Stack) -> None:
    url = stack.url + "api/v1/flow/default/service/"
    async with aiohttp.ClientSession() as http:

        async def query() -> dict[str, Any]:
            async with http.post(url + "triples", json=QUERY) as resp:
                assert resp.status == 200
                body: dict[str, Any] = await resp.json()
                return body

        body = await eventually(query, lambda b: bool(b["response"]))
        assert body["response"][0]["o"] == {"t": "l", "v": "Bob"}
        # Refusals come as the reference's gateway sends them: 200 with the error in the body
        # (its clients read nothing else); only unreadable bodies keep their status.
        async with http.post(url + "nothing", json={}) as resp:
            assert resp.status == 200
            assert (await resp.json())["error"]["type"] == "unknown-service"
        async with http.post(url + "triples", data=b"{oops") as resp:
            assert resp.status == 400
            assert "malformed JSON" in (await resp.json())["error"]["message"]

        async def bad_sparql() -> tuple[int, dict[str, Any]]:
            async with http.post(url + "sparql", json={"query": "SELEKT nonsense"}) as resp:
                return resp.status, (await resp.json())["error"]

        # The store's SPARQL worker process starts on the first query; on a loaded machine that
        # can outlast this stack's 3 s gateway timeout, so a timeout answer is asked again.
        status, error = await eventually(bad_sparql, lambda r: r[1]["type"] != "timeout")
        assert status == 200 and error["type"] == "sparql-syntax"
        async with http.post(url + "sparql", json={"query": "x" * 5000}) as resp:
            assert resp.status == 413
            assert (await resp.json())["error"]["type"] == "frame-too-large"
        async with http.post(stack.url + "api/v1/librarian", json={"operation": "bogus"}) as resp:
            error = (await resp.json())["error"]
            assert resp.status == 200 and "librarian" in error["message"]
            assert "operation" in error["message"]
        async with http.get(stack.url + "api/v1/health") as resp:
            health = await resp.json()
            assert resp.status == 200 and health["status"] == "ok" and health["down"] == []
            assert health["processes"]["broker"]["state"] == "up"


async def test_token_on_socket_and_rest(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token="s3cret") as stack:
        sock = stack.url + "api/v1/socket"
        rest = stack.url + "api/v1/flow/default/service/triples"
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(sock) as ws:
                refused = await ask(ws, frame("1", "triples", QUERY))
                assert (
                    refused["type"] == "auth-failed" and refused["error"]["type"] == "unauthorized"
                )
                assert await ask(ws, json.dumps({"type": "auth", "token": "nope"})) == {
                    "type": "auth-failed",
                    "error": "missing, unknown or revoked token (an API key or the admin token)",
                }
                assert await ask(ws, json.dumps({"type": "auth", "token": "s3cret"})) == {
                    "type": "auth-ok"
                }
                assert "response" in await ask(ws, frame("2", "triples", QUERY))
            with pytest.raises(aiohttp.WSServerHandshakeError) as handshake:
                await http.ws_connect(sock, params={"token": "nope"})
            assert handshake.value.status == 401
            async with http.ws_connect(sock, params={"token": "s3cret"}) as ws:
                assert "response" in await ask(ws, frame("3", "triples", QUERY))
            for headers in ({}, {"Authorization": "Bearer nope"}):
                async with http.post(rest, json=QUERY, headers=headers) as resp:
                    assert resp.status == 401
                    assert (await resp.json())["error"]["type"] == "unauthorized"
            async with http.post(
                rest, json=QUERY, headers={"Authorization": "Bearer s3cret"}
            ) as resp:
                assert resp.status == 200 and "response" in await resp.json()


async def test_the_cli_client_speaks_the_protocol(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    from trustgraph_base.errors import ServiceError
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.errors import AuthError
    from trustgraph_cli.options import Gateway

    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token="t0k") as stack:
        gw = Gateway(url=stack.url, token="t0k", user="trustgraph", collection="c", debug=False)
        async with GatewayClient(gw) as client:
            replies = [r async for r in client.stream("triples", {"limit": 5})]
            assert replies == [{"response": [], "end_of_stream": True}]
            with pytest.raises(ServiceError) as err:
                async for _ in client.stream("sparql", {"query": "SELEKT"}):
                    pass
            assert err.value.type == "sparql-syntax"
            assert await client.request("triples", {"limit": 5}) == replies[0]

            async def collect(service: str, request: dict[str, Any]) -> list[dict[str, Any]]:
                return [r async for r in client.stream(service, request)]

            # Several streams share one socket: each gets its own replies.
            results = await asyncio.gather(
                collect("triples", {"limit": 1}),
                collect("sparql", {"query": "ASK { ?s ?p ?o }"}),
                collect("triples", {"limit": 2}),
            )
            assert [(r["query-type"], r["ask-result"]) for r in results[1]] == [("ask", False)]
            assert results[0] == results[2] == replies
        wrong = Gateway(url=stack.url, token="nope", user="u", collection="c", debug=False)
        async with GatewayClient(wrong) as client:
            with pytest.raises(AuthError):
                async for _ in client.stream("triples", {}):
                    pass
            with pytest.raises(AuthError):
                await client.request("triples", {})
        anonymous = Gateway(url=stack.url, token=None, user="u", collection="c", debug=False)
        async with GatewayClient(anonymous) as client:
            with pytest.raises(AuthError):
                async for _ in client.stream("triples", {}):
                    pass


async def test_stopping_closes_open_sockets(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with aiohttp.ClientSession() as http:
        async with Stack(pulsar_url, prefix, [], data_dir=tmp_path) as stack:
            ws = await http.ws_connect(stack.url + "api/v1/socket")
            await ws.send_str(frame("pending", "agent", {"question": "q"}))
        closing = await asyncio.wait_for(ws.receive(), 10)
        assert closing.type == aiohttp.WSMsgType.CLOSE
        assert closing.data == aiohttp.WSCloseCode.GOING_AWAY
        await ws.close()


async def test_stopping_answers_requests_still_waiting(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """A REST call waiting for a service (here none runs) is answered ``unavailable`` when
    the gateway stops, not left to hold the shutdown up until its timeout."""
    async with aiohttp.ClientSession() as http:
        async with Stack(pulsar_url, prefix, [], data_dir=tmp_path) as stack:
            url = stack.url + "api/v1/flow/default/service/agent"
            waiting = asyncio.create_task(http.post(url, json={"question": "q"}))
            await asyncio.sleep(0.5)  # sent, and waiting for an agent that never answers
            assert not waiting.done()
        async with await asyncio.wait_for(waiting, 10) as resp:
            body = await resp.json()
    assert body["error"]["type"] == "unavailable", body
    assert "gateway is stopping" in body["error"]["message"]


async def test_unknown_paths_and_the_import_socket(stack: Stack) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.post(stack.url + "api/v1/flow/default/service/nothing", json={}) as resp:
            body = await resp.json()
        assert resp.status == 200 and body["error"]["type"] == "unknown-service"
        async with http.post(stack.url + "api/v1/flow-management", json={}) as resp:
            body = await resp.json()
        assert resp.status == 200 and body["error"]["type"] == "unknown-service"
        assert "'/api/v1/flow-management'" in body["error"]["message"]
        assert "/api/v1/librarian" in body["error"]["message"]
        imported = {"t": "i", "i": "urn:test:imported"}
        async with http.ws_connect(stack.url + "api/v1/flow/default/import/triples") as ws:
            await ws.send_str("{oops")
            assert json.loads(await ws.receive_str())["error"]["type"] == "bad-frame"
            forged = {
                "s": imported,
                "p": {"t": "i", "i": P},
                "o": {"t": "l", "v": "x"},
                "g": "urn:graph:retrieval",
            }
            await ws.send_str(json.dumps({"metadata": {"id": "m"}, "triples": [forged]}))
            refused = json.loads(await ws.receive_str())["error"]
            assert refused["type"] == "forbidden" and "urn:graph:retrieval" in refused["message"]
            plain = {k: v for k, v in forged.items() if k != "g"}
            await ws.send_str(json.dumps({"metadata": {"id": "m"}, "triples": [plain]}))
        contexts = stack.url + "api/v1/flow/default/import/entity-contexts"
        async with http.ws_connect(contexts) as ws:
            await ws.send_str("{oops")
            assert json.loads(await ws.receive_str())["error"]["type"] == "bad-frame"
            literal = {"entity": {"t": "l", "v": "x"}, "context": "x"}
            await ws.send_str(json.dumps({"metadata": {}, "entities": [literal]}))
            bad = json.loads(await ws.receive_str())["error"]
            assert bad["type"] == "bad-frame" and "IRI" in bad["message"]
            wordless = {"entity": imported, "context": 3}
            await ws.send_str(json.dumps({"metadata": {}, "entities": [wordless]}))
            bad = json.loads(await ws.receive_str())["error"]
            assert bad["type"] == "bad-frame" and "'context' is a string" in bad["message"]
        async with http.ws_connect(stack.url + "api/v1/socket") as ws:
            query = {"s": imported, "g": "*", "limit": 10}
            found = await eventually(
                lambda: ask(ws, frame("i", "triples", query)),
                lambda r: bool(r["response"]["response"]),
            )
    assert [t.get("g") for t in found["response"]["response"]] == [None]

    # the export socket sends the collection's triples, one frame each, then closes
    async def exported(collection: str) -> list[dict[str, Any]]:
        url = stack.url + "api/v1/flow/default/export/triples"
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(url, params={"collection": collection}) as ws,
        ):
            return [json.loads(msg.data) async for msg in ws]

    everything = await exported("default")
    assert {"s": imported, "p": {"t": "i", "i": P}, "o": {"t": "l", "v": "x"}} in everything
    assert await exported("elsewhere") == []
