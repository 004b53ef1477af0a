"""The viewer on a trace an instrumented app sent over OTLP: signed in with the app's key,
the trace is in the list and opens with its question, answer and steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.support import VIEWED, browser
from tests.browser.test_viewer import TIMEOUT, expect_text, shown, texts
from tests.integration.test_otel_import import QUESTION, send_app_trace, world
from tests.support.openai_stub import OpenAIStub
from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack, create_key

pytestmark = pytest.mark.timeout(300)


async def test_an_imported_trace_in_the_viewer(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, VIEWED, data_dir=tmp_path, token=ADMIN) as stack:
        await world(stack, "alice")
        key = await create_key(stack, "alice")
        async with OpenAIStub(default="Paris is the capital of France.") as llm:
            await send_app_trace(stack, key, llm.base_url)
        await eventually(
            lambda: stack.cli("tg-list-explain-traces", env={"TRUSTGRAPH_TOKEN": key}),
            lambda r: QUESTION in r.stdout,
        )
        async with browser() as b:
            page = await b.new_page()
            await page.goto(stack.url)
            await page.get_by_label("Access key").fill(key)
            await page.keyboard.press("Enter")
            await shown(page, "traces")
            assert await texts(page, "td.question") == [QUESTION]
            await page.get_by_role("link", name=QUESTION).click()
            await shown(page, "trace")
            assert await page.locator("h1").inner_text() == QUESTION
            await expect_text(page.locator("section.answer p"), "Paris is the capital of France.")
            body = await page.locator("body").inner_text(timeout=TIMEOUT)
            assert "lookup" in body and "ChatCompletion" in body
