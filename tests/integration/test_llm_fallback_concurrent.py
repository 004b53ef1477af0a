"""Structured-output fallback under concurrency, against a loopback server that refuses
``json_schema`` the way llama-cpp-python's does (HTTP 500 naming ``response_format``).

Issue 36 item 2: several requests refused for ``json_schema`` together each stepped down
from the *current* level, so the client went json_schema → json_object → none and every
later reply was free prose. A refusal steps below the refused level only.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from trustgraph_base.schema import TextCompletionRequest
from trustgraph_flow.llm.client import ChatClient

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only

SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "required": ["a"],
    "additionalProperties": False,
}
AT_ONCE = 4


class RefusesJsonSchema:
    """Takes ``json_object`` only; a ``json_schema`` request is refused once ``hold`` of them
    have arrived, so they are all in flight together when the refusals come back."""

    def __init__(self, hold: int) -> None:
        self.hold = hold
        self.formats: list[str | None] = []
        self._arrived = asyncio.Event()
        self.port = 0

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        fmt = body.get("response_format")
        self.formats.append(fmt["type"] if fmt else None)
        if fmt and fmt["type"] == "json_schema":
            if self.formats.count("json_schema") >= self.hold:
                self._arrived.set()
            await asyncio.wait_for(self._arrived.wait(), 10)
            message = "response_format.type: Input should be 'text' or 'json_object'"
            return web.json_response({"error": {"message": message}}, status=500)
        text = json.dumps({"a": "x"}) if fmt else "Here is a JSON representation: a is x"
        choice = {"index": 0, "message": {"role": "assistant", "content": text}}
        return web.json_response({"model": "m", "choices": [{**choice, "finish_reason": "stop"}]})


@pytest.fixture
async def server() -> AsyncIterator[RefusesJsonSchema]:
    state = RefusesJsonSchema(AT_ONCE)
    app = web.Application()
    app.router.add_post("/v1/chat/completions", state.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    state.port = int(runner.addresses[0][1])
    yield state
    await runner.cleanup()


def ask() -> TextCompletionRequest:
    return TextCompletionRequest(prompt="p", prompt_type="extract-edges", response_schema=SCHEMA)


async def test_requests_refused_together_step_down_once(server: RefusesJsonSchema) -> None:
    async with aiohttp.ClientSession() as session:
        client = ChatClient(
            session, f"http://127.0.0.1:{server.port}/v1", "m", retries=0, timeout=10
        )
        replies = await asyncio.gather(*(client.complete(ask()) for _ in range(AT_ONCE)))
        later = await client.complete(ask())
    assert [r.text for r in [*replies, later]] == ['{"a": "x"}'] * (AT_ONCE + 1)
    assert client.level.current == "json_object"
    # every request was refused once at json_schema and sent again at json_object, never bare
    assert server.formats.count("json_schema") == AT_ONCE
    assert server.formats[AT_ONCE:] == ["json_object"] * (AT_ONCE + 1)


async def test_a_stale_refusal_does_not_lower_a_level_already_left(
    server: RefusesJsonSchema,
) -> None:
    server.hold = 1
    async with aiohttp.ClientSession() as session:
        client = ChatClient(session, f"http://127.0.0.1:{server.port}/v1", "m", retries=0)
        client.level.current = "json_object"
        assert client.level.refused("json_schema", "late refusal")  # may send again
        assert client.level.current == "json_object"
        done = await client.complete(ask())
    assert done.text == '{"a": "x"}' and server.formats == ["json_object"]
