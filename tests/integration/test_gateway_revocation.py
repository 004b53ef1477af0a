"""A revoked or expired API key loses its open sockets, on every gateway process sharing the
key file: the request socket, a socket signed in by its auth frame, and an import socket
that keeps writing are closed (1008, with the reason), and the key opens no new one."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.launcher import start_module
from tests.support.stack import ADMIN, Stack, create_key
from trustgraph_base.messaging import free_port
from trustgraph_flow.store.processor import proc as store

CLOSED = 30.0  # generous: the gateway closes within a second (bench_revocation measures it)


class Gateways:
    """Gateway A (the stack's, in this loop) and gateway B (its own process), one key file."""

    def __init__(self, stack: Stack, b_url: str) -> None:
        self.stack, self.urls = stack, {"A": stack.url, "B": b_url}


@pytest.fixture
async def gateways(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Gateways]:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token=ADMIN) as stack:
        port = free_port()
        proc = await start_module(
            "trustgraph_flow.gateway.server",
            "--pulsar-url", pulsar_url, "--topic-prefix", prefix, "--port", str(port),
            "--instance", "b", "--token", ADMIN, "--data-dir", str(tmp_path / "gw-b"),
            "--api-keys", str(tmp_path / "gateway" / "gateway" / "api-keys.json"),
            "--log-level", "WARNING", ready=tmp_path / "gw-b.ready",
        )  # fmt: skip
        try:
            yield Gateways(stack, f"http://127.0.0.1:{port}/")
        finally:
            proc.terminate()
            await proc.wait()


def ws_url(base: str, path: str, token: str | None = None) -> str:
    return base.rstrip("/") + path + (f"?token={token}" if token else "")


async def ask(ws: aiohttp.ClientWebSocketResponse, rid: str) -> dict[str, Any]:
    """One triples query on a request socket, and its final frame."""
    await ws.send_str(json.dumps({"id": rid, "service": "triples", "request": {"limit": 1}}))
    while True:
        frame = json.loads((await asyncio.wait_for(ws.receive(), CLOSED)).data)
        if frame.get("complete"):
            return dict(frame)


async def closed(ws: aiohttp.ClientWebSocketResponse) -> aiohttp.WSMessage:
    """The close the gateway sends (other frames, such as import errors, are skipped)."""
    while True:
        msg = await asyncio.wait_for(ws.receive(), CLOSED)
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return msg


async def revoke(stack: Stack, key: str) -> None:
    key_id = key.split("_")[1]
    code, out, err = await stack.cli("tg-revoke-api-key", "--key-id", key_id)
    assert (code, out) == (0, f"Revoked key {key_id}\n"), err


async def test_revoking_a_key_closes_its_sockets_on_every_gateway(gateways: Gateways) -> None:
    stack = gateways.stack
    alice, bob = await create_key(stack, "alice"), await create_key(stack, "bob")
    async with aiohttp.ClientSession() as http:
        sockets = {}
        for name, base in gateways.urls.items():
            sockets[name] = await http.ws_connect(ws_url(base, "/api/v1/socket", alice))
            framed = await http.ws_connect(ws_url(base, "/api/v1/socket"))
            await framed.send_str(json.dumps({"type": "auth", "token": alice}))
            assert json.loads((await framed.receive()).data) == {"type": "auth-ok"}
            sockets[name + " auth frame"] = framed
        other = await http.ws_connect(ws_url(gateways.urls["B"], "/api/v1/socket", bob))
        for n, ws in enumerate([*sockets.values(), other]):
            assert "error" not in await ask(ws, f"before-{n}")

        await revoke(stack, alice)

        for name, ws in sockets.items():
            msg = await closed(ws)
            assert msg.type == aiohttp.WSMsgType.CLOSE, name
            assert msg.data == aiohttp.WSCloseCode.POLICY_VIOLATION, name
            assert msg.extra == "this API key was revoked or has expired", name
        assert "error" not in await ask(other, "bob-still-served")  # another key is untouched
        await other.close()
        for base in gateways.urls.values():
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(ws_url(base, "/api/v1/socket", alice))
            assert refused.value.status == 401


async def test_an_import_socket_that_keeps_writing_is_closed_on_revocation(
    gateways: Gateways,
) -> None:
    stack = gateways.stack
    alice = await create_key(stack, "alice")
    path = "/api/v1/flow/default/import/triples"
    sent = asyncio.Event()

    async def keep_writing(ws: aiohttp.ClientWebSocketResponse) -> None:
        n = 0
        while not ws.closed:
            n += 1
            triple = {"s": {"t": "i", "i": f"urn:test:s{n}"}, "p": {"t": "i", "i": "urn:test:p"}}
            frame = {"metadata": {"id": f"f{n}"}, "triples": [{**triple, "o": triple["s"]}]}
            try:
                await ws.send_str(json.dumps(frame))
            except ConnectionError:
                return
            sent.set()
            await asyncio.sleep(0.01)

    async with aiohttp.ClientSession() as http:
        sockets = [await http.ws_connect(ws_url(b, path, alice)) for b in gateways.urls.values()]
        writers = []
        for ws in sockets:
            sent.clear()
            writers.append(asyncio.create_task(keep_writing(ws)))
            await asyncio.wait_for(sent.wait(), CLOSED)  # writing away before the revocation

        await revoke(stack, alice)

        for ws in sockets:
            msg = await closed(ws)
            assert (msg.type, msg.data) == (aiohttp.WSMsgType.CLOSE, 1008)
            assert msg.extra == "this API key was revoked or has expired"
        await asyncio.wait_for(asyncio.gather(*writers), CLOSED)
        for base in gateways.urls.values():
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(ws_url(base, path, alice))
            assert refused.value.status == 401


async def test_a_key_that_expires_loses_its_open_socket(gateways: Gateways) -> None:
    stack = gateways.stack
    soon = (datetime.now(UTC) + timedelta(seconds=4)).isoformat(timespec="seconds")
    alice = await create_key(stack, "alice", "--expires", soon)
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(ws_url(gateways.urls["B"], "/api/v1/socket", alice))
        assert "error" not in await ask(ws, "1")
        msg = await closed(ws)
        assert (msg.type, msg.data) == (aiohttp.WSMsgType.CLOSE, 1008)
        assert msg.extra == "this API key was revoked or has expired"
