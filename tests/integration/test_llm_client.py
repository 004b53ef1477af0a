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

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only


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
            await chat(session, stub.base_url, retries=1).complete(
                TextCompletionRequest(prompt="hi")
            )
    assert "HTTP 500: overloaded" in err.value.message
    assert len(stub.requests) == 2


async def test_scripted_multi_turn_replies(session: aiohttp.ClientSession) -> None:
    def by_prompt(body: dict[str, object]) -> str:
        return f"echo {body['messages'][-1]['content']}"  # type: ignore[index]

    async with OpenAIStub(["first", by_prompt], default="later") as stub:
        client = chat(session, stub.base_url)
        got = [
            (await client.complete(TextCompletionRequest(prompt=p))).text for p in ("a", "b", "c")
        ]
        await stub.wait_for_requests(3)
    assert got == ["first", "echo b", "later"]
    assert stub.prompts() == ["a", "b", "c"]


async def test_stream_retries_before_first_piece(session: aiohttp.ClientSession) -> None:
    async with OpenAIStub([429, "x y"]) as stub:
        items = [
            i async for i in chat(session, stub.base_url).stream(TextCompletionRequest(prompt="p"))
        ]
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
        items = [
            i async for i in chat(session, stub.base_url).stream(TextCompletionRequest(prompt="p"))
        ]
    assert items[0] == "whole answer"
    assert (
        isinstance(items[1], Completion) and items[1].model == "plain" and items[1].in_token is None
    )


SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "required": ["a"],
    "additionalProperties": False,
}


def structured(level: str, session: aiohttp.ClientSession, url: str) -> ChatClient:
    return ChatClient(session, url, "m", retries=2, backoff=0.01, timeout=5, structured=level)


def ask_json() -> TextCompletionRequest:
    return TextCompletionRequest(prompt="p", prompt_type="extract-edges", response_schema=SCHEMA)


async def test_each_level_sends_its_response_format(session: aiohttp.ClientSession) -> None:
    async with OpenAIStub(default='{"a": "x"}') as stub:
        for level in ("json_schema", "json_object", "none"):
            await structured(level, session, stub.base_url).complete(ask_json())
        await structured("json_schema", session, stub.base_url).complete(
            TextCompletionRequest(prompt="free text")
        )
    assert stub.formats() == [
        {
            "type": "json_schema",
            "json_schema": {"name": "extract-edges", "schema": SCHEMA, "strict": True},
        },
        {"type": "json_object", "schema": SCHEMA},
        None,  # "none": the prompt alone
        None,  # no schema asked: free text
    ]


@pytest.mark.parametrize("status", [400, 500])
async def test_a_refused_format_falls_back_one_level_once_and_stays_down(
    session: aiohttp.ClientSession, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    # llama-cpp-python's server takes only json_object (+ schema), and answers 500 otherwise.
    async with OpenAIStub(
        default='{"a": "x"}', accepts={"json_object"}, refuse_status=status
    ) as stub:
        client = structured("json_schema", session, stub.base_url)
        first = await client.complete(ask_json())
        second = await client.complete(ask_json())
    assert (first.text, second.text) == ('{"a": "x"}', '{"a": "x"}')
    types = [f["type"] for f in stub.formats()]
    assert types == ["json_schema", "json_object", "json_object"]  # no retries of the refusal
    assert client.level.current == "json_object"
    fell = [r.getMessage() for r in caplog.records if "falls back" in r.getMessage()]
    assert len(fell) == 1 and "from json_schema to json_object" in fell[0]
    assert f"HTTP {status}: response_format.type" in fell[0]


async def test_a_server_refusing_every_format_ends_with_the_prompt_alone(
    session: aiohttp.ClientSession,
) -> None:
    async with OpenAIStub(default='{"a": "x"}', accepts=set()) as stub:
        client = structured("json_schema", session, stub.base_url)
        with pytest.raises(ServiceError) as err:  # sent again once per request, not twice
            await client.complete(ask_json())
        assert "response_format" in err.value.message
        assert client.level.current == "none"  # its second refusal lowers the level too
        streamed = [i async for i in client.stream(ask_json())]
    assert isinstance(streamed[-1], Completion) and streamed[-1].text == '{"a": "x"}'
    assert [f and f["type"] for f in stub.formats()] == [
        "json_schema",
        "json_object",
        None,
    ]


async def test_an_unrelated_400_does_not_lower_the_level(session: aiohttp.ClientSession) -> None:
    async with OpenAIStub([Reply(status=400, message="model 'm' does not exist")]) as stub:
        client = structured("json_schema", session, stub.base_url)
        with pytest.raises(ServiceError) as err:
            await client.complete(ask_json())
    assert "does not exist" in err.value.message
    assert client.level.current == "json_schema" and len(stub.requests) == 1


async def test_a_stream_asks_for_its_usage_unless_the_server_refuses(
    session: aiohttp.ClientSession,
) -> None:
    refusal = Reply(status=400, message="Unrecognized request argument: stream_options")
    async with OpenAIStub(["a b", refusal, "c d", "e"]) as stub:
        client = chat(session, stub.base_url)
        first = [i async for i in client.stream(TextCompletionRequest(prompt="p"))]
        second = [i async for i in client.stream(TextCompletionRequest(prompt="p"))]
        third = [i async for i in client.stream(TextCompletionRequest(prompt="p"))]
    assert [first[-1].text, second[-1].text, third[-1].text] == ["a b", "c d", "e"]  # type: ignore[union-attr]
    asked = [r.get("stream_options") for r in stub.requests]
    assert asked == [{"include_usage": True}, {"include_usage": True}, None, None]
