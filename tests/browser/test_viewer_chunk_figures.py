"""A DocumentRAG trace from a vector-only retrieval (``doc_retrieval: vector``, as every trace
written before hybrid retrieval): its chunks show their similarity and no vector rank or word
score, which such a trace does not record. The hybrid case is in test_viewer.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.support import ask, browser, settled
from tests.browser.test_viewer_removed import route_of
from tests.golden.golden import invoke
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack

TIMEOUT = 15_000  # ms, for each wait on the page

pytestmark = pytest.mark.timeout(300)


async def test_a_vector_only_trace_shows_no_hybrid_figures(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    vector_only = {"document-rag": {"doc_retrieval": "vector"}}
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, settings=vector_only) as stack:
        loaded = await invoke(stack.url, "tg-load-document", str(SAMPLES / "writers.md"))
        assert loaded.code == 0, loaded.stderr
        request = {"query": "Where was Victor Hugo born?", "session_id": "vector-only"}
        reply = await ask(stack.url, None, "document-rag", request)
        await settled(stack, reply["explain_id"])
        async with browser() as b:
            page = await b.new_page()
            await page.goto(stack.url + route_of("trace", reply["explain_id"], {}))
            await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
            rows = page.locator(".tree .row").filter(
                has=page.locator(".title", has_text=re.compile(r"^Chunk \d+$"))
            )
            await rows.first.wait_for(timeout=TIMEOUT)
            shown = await rows.all_inner_texts()
            assert all(re.search(r"score \d\.\d{3}", row) for row in shown), shown
            assert not any("vector #" in row or "words " in row for row in shown), shown
            await rows.first.click()
            details = page.locator("aside.details")
            await details.get_by_text("Score").wait_for(timeout=TIMEOUT)
            text = await details.inner_text()
            assert "chunks listed by relevance" in text, text
            assert "Vector rank" not in text and "Word score" not in text, text
