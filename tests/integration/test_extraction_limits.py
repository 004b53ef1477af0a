"""Extraction against a runaway model (issue 36 item 7), on the real broker and pipeline with
the LLM service pointed at a loopback OpenAI stub: each reply's ``max_tokens`` is bounded by
its chunk, a reply cut off by that limit keeps its whole edges (without its repeats) instead
of being asked again, and a document whose time budget is used up ends with that reason."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.ingest import Client, start
from tests.support.openai_stub import OpenAIStub, Reply
from tests.support.processors import PIPELINE
from trustgraph_base.messaging import Bus, Topics
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.extraction import MAX_REPLY_TOKENS, reply_tokens
from trustgraph_flow.llm import processor as llm

TEXT = b"Paris is the capital of France. Bonn was the capital of West Germany."
EDGE = {"s": "Paris", "p": "capital of", "o": "France", "o_literal": False}
REPEAT = {"s": "paris", "p": "Capital  of", "o": "FRANCE", "o_literal": False}
OTHER = {"s": "Bonn", "p": "was capital of", "o": "West Germany", "o_literal": False}
# A small model's degenerate reply, cut off by its max_tokens in the middle of an item.
CUT = '{"edges": [' + ", ".join(json.dumps(e) for e in (EDGE, REPEAT, OTHER, EDGE)) + ', {"s": "Bo'


@pytest.fixture
async def client(bus: Bus, topics: Topics) -> AsyncIterator[Client]:
    c = Client(bus, topics)
    yield c
    await c.close()


async def run_pipeline(
    processors: RunningProcessors, settings: ProcessorSettings, stub: OpenAIStub, **more: Any
) -> None:
    await start(
        processors,
        settings,
        llm,
        embeddings,
        *PIPELINE,
        llm_base_url=stub.base_url,
        llm_retries=0,
        **more,
    )


async def test_a_cut_off_reply_keeps_its_whole_edges_once(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    async with OpenAIStub(default=CUT) as stub:
        await run_pipeline(processors, settings, stub)
        doc = await client.upload("cut.txt", TEXT, "text/plain")
        info = await client.settled(doc.id, timeout=60)
    assert (info.status, info.error) == ("complete", None)
    assert info.edges == 2  # Paris (once, whatever its case) and Bonn; the cut item is dropped
    assert len(stub.requests) == 1  # kept, not asked again
    asked = stub.requests[0]["max_tokens"]
    assert asked == reply_tokens(TEXT.decode()) and asked < MAX_REPLY_TOKENS


async def test_a_document_past_its_time_budget_ends_with_the_reason(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    text = " ".join(f"Town{n} is the capital of Region{n}." for n in range(120)).encode()
    async with OpenAIStub(default=Reply('{"edges": []}', delay=120)) as stub:
        await run_pipeline(
            processors, settings, stub, document_budget=1.0, chunk_budget=0.0, llm_timeout=120
        )
        doc = await client.upload("slow.txt", text, "text/plain")
        info = await client.settled(doc.id, timeout=60)  # the model never answers in time
    assert info.status == "complete" and info.chunks > 1
    assert info.chunks_done == info.chunks and info.edges == 0
    assert info.error is not None and "time budget (1s + 0s a chunk" in info.error
