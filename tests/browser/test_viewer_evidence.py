"""Claim-level evidence in the viewer, in real Chromium: a new user's unseen PDF, a
question, the trace opened, a sentence of the answer clicked, and the page image shown with
the supporting sentence highlighted where it is (the pixels checked against the PDF)."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import numpy as np
import pytest

from tests.browser.support import ask, browser, settled
from tests.support.processors import EVERY
from tests.support.stack import Stack
from tests.support.unseen import unseen_pdf
from trustgraph_base.spans import locate
from trustgraph_flow.page_image import shown_box

TIMEOUT = 15_000
SENTENCE = "Marie Curie was born in Warsaw in 1867."

pytestmark = pytest.mark.timeout(300)


async def test_a_claim_clicked_shows_its_sentence_highlighted_on_the_page(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    pdf, _, pages = unseen_pdf(tmp_path)
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(pdf))
        assert loaded.code == 0, loaded.stderr
        reply = await ask(stack.url, None, "graph-rag", {"query": "Where was Marie Curie born?"})
        trace = reply["explain_id"]
        await settled(stack, trace)
        async with browser() as b:
            page = await (await b.new_context(viewport={"width": 1280, "height": 1000})).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            await page.goto(f"{stack.url}#/trace/{trace}")
            await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)

            claim = page.locator("button.claim").first
            assert "Warsaw" in await claim.inner_text()
            started = time.perf_counter()
            await claim.click()
            image = page.locator("img.page-image")
            await image.wait_for(timeout=TIMEOUT)
            await page.wait_for_function(
                "() => document.querySelector('img.page-image').naturalWidth > 0", timeout=TIMEOUT
            )
            shown_after = time.perf_counter() - started
            print(
                f"page image with the highlight on screen {shown_after * 1000:.0f} ms after the click"
            )
            assert await claim.get_attribute("aria-pressed") == "true"
            place = await page.locator("p.evidence-place").first.inner_text()
            quote = await page.locator("blockquote.evidence-quote").first.inner_text()
            assert quote == SENTENCE and "unseen.pdf, page " in place and ", chars " in place

            # the image is the page, and the sentence's lines are tinted exactly where they are
            number = int(place.split("page ")[1].split(",")[0])
            src = await image.get_attribute("src")
            assert src and src.startswith("blob:")
            width, height, rgba = await page.evaluate(
                """() => {
                    const img = document.querySelector("img.page-image");
                    const canvas = document.createElement("canvas");
                    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
                    const ctx = canvas.getContext("2d");
                    ctx.drawImage(img, 0, 0);
                    const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
                    let text = ""; for (let i = 0; i < data.length; i++) text += String.fromCharCode(data[i]);
                    return [canvas.width, canvas.height, btoa(text)];
                }"""
            )
            drawn = np.frombuffer(base64.b64decode(rgba), dtype=np.uint8).reshape(height, width, 4)
            layout = pages[number - 1].layout
            start, length = locate(SENTENCE, pages[number - 1].text) or (0, 0)
            scale = drawn.shape[1] / (
                layout.height if layout.rotation in (90, 270) else layout.width
            )
            size = (layout.width, layout.height)
            for rect in layout.span_boxes(start, length):
                left, top, right, bottom = shown_box(rect, layout.rotation, size, scale)
                inside = drawn[top + 2 : bottom - 2, left + 2 : right - 2]
                assert inside.size and (inside[:, :, 2] < 120).mean() > 0.5
            assert float(np.mean(drawn[:, :, 2] < 120)) < 0.1
            await page.screenshot(path=str(tmp_path / "evidence.png"), full_page=True)
            assert not errors, errors
