"""The chat client against the loopback OpenAI stub (no broker): retries, errors, scripting."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from tests.support.openai_stub import OpenAIStub, Reply
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import free_port
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_flow.llm.client import ChatClient, Completion


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


def chat(session: aiohttp.ClientSession, url: str, retries: int = 2) -> ChatClient:
    return ChatClient(session, url, "m", retries=retries, backoff=0.01, timeout=5)


async def test_connection_refused_is_retried_then_reported(session: aiohttp.ClientSession) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ServiceError) as err:
        await chat(session, url).complete(TextCompletionRequest(prompt="hi"))
    assert err.value.type == "llm-error"
    assert "cannot reach LLM at" in err.value.message and "3 attempts" in err.value.message


async def test_persistent_500_names_status_and_message(session: aiohttp.ClientSession) -> None:
    async with OpenAIStub(default=Reply(status=500, message="overloaded")) as stub:
        with pytest.raises(ServiceError) as err:
            await chat(session, stub.base_url, retries=1).complete(TextCompletionRequest(prompt="hi"))
    assert "HTTP 500: overloaded" in err.value.message
    assert len(stub.requests) == 2


async def test_scripted_multi_turn_replies(session: aiohttp.ClientSession) -> None:
    def by_prompt(body: dict[str, object]) -> str:
        return f"echo {body['messages'][-1]['content']}"  # type: ignore[index]

    async with OpenAIStub(["first", by_prompt], default="later") as stub:
        client = chat(session, stub.base_url)
        got = [(await client.complete(TextCompletionRequest(prompt=p))).text for p in ("a", "b", "c")]
        await stub.wait_for_requests(3)
    assert got == ["first", "echo b", "later"]
    assert stub.prompts() == ["a", "b", "c"]


async def test_stream_retries_before_first_piece(session: aiohttp.ClientSession) -> None:
    async with OpenAIStub([429, "x y"]) as stub:
        items = [i async for i in chat(session, stub.base_url).stream(TextCompletionRequest(prompt="p"))]
    assert items[:-1] == ["x", " y"]
    final = items[-1]
    assert isinstance(final, Completion) and final.text == "x y" and final.out_token == 2
    assert final.model == "stub-model"


async def test_unexpected_reply_shape_is_an_llm_error(session: aiohttp.ClientSession) -> None:
    async with OpenAIStub([Reply(raw={"choices": []})]) as stub:
        with pytest.raises(ServiceError) as err:
            await chat(session, stub.base_url).complete(TextCompletionRequest(prompt="p"))
    assert err.value.type == "llm-error" and "unexpected reply" in err.value.message
    assert len(stub.requests) == 1


async def test_stream_accepts_a_server_that_ignores_stream(session: aiohttp.ClientSession) -> None:
    body = {"model": "plain", "choices": [{"message": {"content": "whole answer"}}]}
    async with OpenAIStub([Reply(raw=body)]) as stub:
        items = [i async for i in chat(session, stub.base_url).stream(TextCompletionRequest(prompt="p"))]
    assert items[0] == "whole answer"
    assert isinstance(items[1], Completion) and items[1].model == "plain" and items[1].in_token is None
