"""The text-completion service on the real broker, against the scripted OpenAI stub."""

from __future__ import annotations

import json
import logging

import pytest

from tests.conftest import RunningProcessors
from tests.support.clients import client_fixture
from tests.support.openai_stub import OpenAIStub, Reply
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import TEXT_COMPLETION, RequestClient
from trustgraph_base.schema import TextCompletionRequest, TextCompletionResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.llm.processor import Settings, proc

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only

Client = RequestClient[TextCompletionRequest, TextCompletionResponse]


client = client_fixture(TEXT_COMPLETION, "llm-tester")


def llm_settings(base: ProcessorSettings, url: str = "", **extra: object) -> Settings:
    values = {
        **base.model_dump(),
        "llm_base_url": url,
        "llm_model": "m1",
        "llm_backoff": 0.01,
        **extra,
    }
    return Settings.model_validate(values)


async def test_plain_completion_sends_system_and_user(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    async with OpenAIStub(["Paris is the capital."]) as stub:
        await processors.start(proc, llm_settings(settings, stub.base_url, llm_api_key="sk-test"))
        req = TextCompletionRequest(
            system="Be brief.", prompt="Capital of France?", temperature=0.0
        )
        resp = await client.request(req, timeout=10)
    assert resp.response == "Paris is the capital."
    assert (resp.model, resp.in_token, resp.out_token) == ("stub-model", 5, 4)
    assert resp.latency_ms > 0
    sent = stub.requests[0]
    assert sent["model"] == "m1" and sent["temperature"] == 0.0 and sent["stream"] is False
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert stub.headers[0]["Authorization"] == "Bearer sk-test"


async def test_streaming_yields_pieces_then_counts(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    async with OpenAIStub([Reply("one two three", usage=False)]) as stub:
        await processors.start(proc, llm_settings(settings, stub.base_url))
        req = TextCompletionRequest(prompt="count to three please", streaming=True)
        replies = [r async for r in client.stream(req, timeout=10)]
    assert [r.response for r in replies] == ["one", " two", " three", ""]
    assert [r.end_of_stream for r in replies] == [False, False, False, True]
    # no usage from the server: estimated from whitespace words
    assert (replies[-1].in_token, replies[-1].out_token) == (4, 3)
    assert stub.requests[0]["stream"] is True


async def test_retries_after_429_then_succeeds(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    async with OpenAIStub([429, 503, "finally"]) as stub:
        await processors.start(proc, llm_settings(settings, stub.base_url, llm_retries=3))
        resp = await client.request(TextCompletionRequest(prompt="hi"), timeout=10)
    assert resp.response == "finally"
    assert len(stub.requests) == 3


async def test_client_error_is_not_retried_and_is_clear(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    async with OpenAIStub(
        [Reply(status=400, message="model 'm1' does not exist"), "unused"]
    ) as stub:
        await processors.start(proc, llm_settings(settings, stub.base_url))
        with pytest.raises(ServiceError) as err:
            await client.request(TextCompletionRequest(prompt="hi"), timeout=10)
    assert err.value.type == "llm-error"
    assert "400" in err.value.message and "model 'm1' does not exist" in err.value.message
    assert len(stub.requests) == 1


async def test_timeout_gives_up_with_clear_error(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    async with OpenAIStub([Reply("late", delay=30.0), Reply("late", delay=30.0)]) as stub:
        s = llm_settings(settings, stub.base_url, llm_timeout=0.2, llm_retries=1)
        await processors.start(proc, s)
        with pytest.raises(ServiceError) as err:
            await client.request(TextCompletionRequest(prompt="hi"), timeout=10)
    assert err.value.type == "llm-error"
    assert "did not answer within 0.2s" in err.value.message and "2 attempts" in err.value.message


async def test_offline_engine_when_no_endpoint(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    client: Client,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        await processors.start(proc, llm_settings(settings))
    assert "no LLM configured: using the deterministic offline engine" in caplog.text
    req = TextCompletionRequest(
        prompt="(rendered prompt)",
        prompt_type="extract-edges",
        variables={"text": "Paris is the capital of France."},
    )
    resp = await client.request(req, timeout=10)
    assert resp.model == "offline"
    assert json.loads(resp.response) == [
        {
            "s": "Paris",
            "p": "is the capital of",
            "o": "France",
            "o_literal": False,
            "quote": "Paris is the capital of France.",
        }
    ]
    streamed = [
        r
        async for r in client.stream(
            TextCompletionRequest(prompt="Say hello. Then stop.", streaming=True), timeout=10
        )
    ]
    assert "".join(r.response for r in streamed) == "Offline engine: Say hello."
    assert streamed[-1].end_of_stream and not streamed[0].end_of_stream
