"""Claims coloured by verdict in the viewer, in real Chromium: an answer the samples support
and one they do not (withheld, "The documents do not say"); each claim carries its verdict as
a word and a colour, the answer's verification is shown with the answer given instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.support import ask, browser, settled
from tests.support.processors import RAG, SAMPLES
from tests.support.stack import Stack

TIMEOUT = 15_000
pytestmark = pytest.mark.timeout(300)

BAR = "() => getComputedStyle(document.querySelector('button.claim')).borderLeftColor"


async def test_claims_are_coloured_and_named_by_verdict(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        for name in ("capitals.txt", "world-facts.pdf"):
            loaded = await stack.cli("tg-load-document", str(SAMPLES / name))
            assert loaded.code == 0, loaded.stderr
        traces = {}
        for key, question in (
            ("good", "What is the capital of France?"),
            ("bad", "What is the boiling point of mercury?"),
        ):
            reply = await ask(stack.url, None, "document-rag", {"query": question})
            traces[key] = reply["explain_id"]
            await settled(stack, traces[key])
        async with browser() as b:
            page = await (await b.new_context(viewport={"width": 1280, "height": 1000})).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

            await page.goto(f"{stack.url}#/trace/{traces['good']}")
            await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
            claim = page.locator("button.claim").first
            assert await claim.get_attribute("data-verdict") == "supported"
            assert "✓ supported" in await claim.inner_text()
            assert await page.evaluate(BAR) == "rgb(46, 125, 50)"  # green
            note = await page.locator("div.verification").inner_text()
            assert "Verified (heuristic): supported" in note and "Answer given" not in note

            await page.goto(f"{stack.url}#/trace/{traces['bad']}")
            await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
            await page.wait_for_selector("button.claim.verdict-not-supported", timeout=TIMEOUT)
            claim = page.locator("button.claim").first
            assert "✗ not supported" in await claim.inner_text()
            assert await page.evaluate(BAR) == "rgb(198, 40, 40)"  # red
            note = await page.locator("div.verification").inner_text()
            assert "unsupported" in note and "Answer given: The documents do not say" in note
            await claim.click()
            why = await page.locator("p.claim-verdict").inner_text()
            assert "✗ not supported" in why and "cites no evidence" in why
            assert not errors, errors
