"""Claim-level evidence in the viewer, in real Chromium: a new user's unseen PDF, a
question, the trace opened, a sentence of the answer clicked, and the page image shown with
the supporting sentence highlighted where it is (the pixels checked against the PDF)."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.browser.support import ask, browser, settled
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack
from tests.support.unseen import load_unseen
from trustgraph_base.layout import Box, PageLayout
from trustgraph_base.spans import locate
from trustgraph_flow.page_image import shown_box

TIMEOUT = 15_000
SENTENCE = "Marie Curie was born in Warsaw in 1867."

pytestmark = pytest.mark.timeout(300)


def screenshot_pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def assert_marked_exactly(drawn: np.ndarray, layout: PageLayout, rects: list[Box]) -> None:
    """Inside each of the sentence's line boxes the page is tinted; outside them (a few
    pixels' margin for the outline) nothing is yellow."""
    scale = drawn.shape[1] / layout.shown_size[0]
    size = (layout.width, layout.height)
    yellow = (drawn[:, :, 0].astype(int) - drawn[:, :, 2]) > 80
    expected = np.zeros(yellow.shape, dtype=bool)
    assert rects
    for rect in rects:
        left, top, right, bottom = shown_box(rect, layout.rotation, size, scale)
        inside = drawn[top + 2 : bottom - 2, left + 2 : right - 2]
        assert inside.size and (inside[:, :, 2] < 120).mean() > 0.5
        expected[max(0, top - 3) : bottom + 3, max(0, left - 3) : right + 3] = True
    assert yellow[expected].mean() > 0.3
    assert not yellow[~expected].any(), int(yellow[~expected].sum())


async def test_a_claim_clicked_shows_its_sentence_highlighted_on_the_page(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        _, _, pages = await load_unseen(stack, tmp_path)
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
            rect = page.locator("svg.page-overlay rect.highlight").first
            await rect.wait_for(timeout=TIMEOUT)
            shown_after = time.perf_counter() - started
            print(
                f"page image with the highlight on screen {shown_after * 1000:.0f} ms after the click"
            )
            assert await claim.get_attribute("aria-pressed") == "true"
            place = await page.locator("p.evidence-place").first.inner_text()
            quote = await page.locator("blockquote.evidence-quote").first.inner_text()
            assert quote == SENTENCE and "unseen.pdf, page " in place and ", chars " in place

            # the image is the unmarked page, fetched by GET (revalidated by its ETag)
            image = page.locator("img.page-image")
            src = await image.get_attribute("src")
            assert src and src.startswith("blob:")
            # what the user sees: the page with the overlay, tinted exactly on the sentence's lines
            drawn = screenshot_pixels(await image.screenshot())
            number = int(place.split("page ")[1].split(",")[0])
            layout = pages[number - 1].layout
            start, length = locate(SENTENCE, pages[number - 1].text) or (0, 0)
            assert_marked_exactly(drawn, layout, layout.span_boxes(start, length))

            # an edge opened in the tree shows the sentence stating it, on its page, the same way
            await page.locator(".tree .row", has_text="Edge 1").first.click()
            details = page.locator("aside.details")
            await details.locator("svg.page-overlay rect.highlight").first.wait_for(timeout=TIMEOUT)
            said = await details.locator("blockquote.evidence-quote").first.inner_text()
            caption = await details.locator("figcaption").first.inner_text()
            n = int(caption.split("page ")[1].split(":")[0])
            at = locate(said, pages[n - 1].text)
            assert at is not None, said
            shot = screenshot_pixels(await details.locator("img.page-image").screenshot())
            edge_layout = pages[n - 1].layout
            assert_marked_exactly(shot, edge_layout, edge_layout.span_boxes(*at))

            await page.screenshot(path=str(tmp_path / "evidence.png"), full_page=True)
            assert not errors, errors


async def first_claim_in_text(page: Any, url: str, trace: str) -> tuple[str, str, str]:
    """The trace opened and its first claim chosen, in a text document: the place shown
    (``line …, chars a–b``), the marked quote and the quote's lines around it."""
    await page.goto(f"{url}#/trace/{trace}")
    await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
    await page.locator("button.claim").first.click()
    await page.wait_for_function(
        "() => document.querySelector('p.evidence-place')?.textContent.includes('line ')",
        timeout=TIMEOUT,
    )
    shown = await page.locator("p.evidence-place").first.inner_text()
    quote = await page.locator("blockquote.evidence-quote mark").first.text_content()
    context = await page.locator("blockquote.evidence-quote").first.text_content()
    return shown, quote or "", context or ""


async def test_a_text_documents_evidence_is_marked_in_its_line_with_line_and_columns(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    text = (SAMPLES / "capitals.txt").read_text(encoding="utf-8-sig")
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
        assert loaded.code == 0, loaded.stderr
        reply = await ask(stack.url, None, "graph-rag", {"query": "What is the capital of France?"})
        trace = reply["explain_id"]
        await settled(stack, trace)
        async with browser() as b:
            page = await b.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            shown, quote, context = await first_claim_in_text(page, stack.url, trace)
            start = int(shown.split("chars ")[1].split("–")[0])
            assert text[start : start + len(quote)] == quote
            # highlighted in its text: the whole line it is on, the quote marked
            assert context == text.splitlines()[text.count("\n", 0, start)], context
            end = start + len(quote) - 1
            line = text.count("\n", 0, start) + 1
            col = start - (text.rfind("\n", 0, start) + 1) + 1
            last = end - (text.rfind("\n", 0, end) + 1) + 1
            assert shown.endswith(f"line {line}, cols {col}–{last}, chars {start}–{end + 1}"), shown
            assert not await page.locator("img.page-image").count()  # a text has no page image
            assert not errors, errors


async def test_a_terminal_formatted_texts_evidence_is_marked_as_the_text_shows(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    # A manual formatted for a terminal (bold and underline as escape sequences, a word
    # broken at a line's end by groff's HYPHEN): the viewer reads the document's bytes as
    # the decoder does ("capi‐" moves down to make "capital"), so the mark is on the quote's
    # words, a character further on.
    manual = tmp_path / "manual.txt"
    manual.write_bytes(
        "\x1b[1mRome\x1b[0m, on the seven hills by the Tiber, is the capi\u2010\n".encode()
        + b"tal of \x1b[4mItaly\x1b[24m.\n\n"
        b"\x1b[1mParis\x1b[0m is the capital of \x1b[4mFrance\x1b[24m.\n"
    )
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(manual))
        assert loaded.code == 0, loaded.stderr
        reply = await ask(stack.url, None, "graph-rag", {"query": "What is the capital of France?"})
        trace = reply["explain_id"]
        await settled(stack, trace)
        async with browser() as b:
            page = await b.new_page()
            shown, quote, context = await first_claim_in_text(page, stack.url, trace)
            assert quote == "Paris is the capital of France.", quote
            assert context == quote  # its line, nothing of an escape sequence around it
            assert shown.endswith("line 4, cols 1–31, chars 66–97"), shown


async def test_a_claims_own_sentence_is_marked_across_line_breaks_before_its_edges(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    # A DocumentRAG answer quotes its chunk's sentence with the line break as a space: the
    # viewer finds it as tg-show-evidence does (spans.locate), not the whole chunk instead.
    text = (
        "Rivers of Europe\n\nThe Danube is a long river. It rises in the Black Forest and\n"
        "flows through Vienna on its way to the Black Sea. The Rhine rises in the\nAlps.\n"
    )
    (tmp_path / "rivers.txt").write_text(text, encoding="utf-8")
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(tmp_path / "rivers.txt"))
        assert loaded.code == 0, loaded.stderr
        reply = await ask(
            stack.url, None, "document-rag", {"query": "Which river flows through Vienna?"}
        )
        trace = reply["explain_id"]
        await settled(stack, trace)
        answer = reply["response"].strip()
        at = locate(answer, text)
        assert at is not None and "\n" in text[at[0] : at[0] + at[1]], (answer, at)
        async with browser() as b:
            page = await b.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            shown, quote, _ = await first_claim_in_text(page, stack.url, trace)
            assert quote == text[at[0] : at[0] + at[1]], quote
            assert shown.endswith(f"chars {at[0]}–{at[0] + at[1]}"), shown

            # An edge read from a heading ("msg bit header") cited by the sentence above it,
            # which the answer repeats: the claim's own sentence is shown first (as
            # tg-show-evidence shows it), then the edge's; before, only the heading was (on a
            # PDF, the heading highlighted on the page: libtasn1.pdf's page 20).
            (tmp_path / "msg.txt").write_text(MSG_MANUAL, encoding="utf-8")
            loaded = await stack.cli("tg-load-document", str(tmp_path / "msg.txt"))
            assert loaded.code == 0, loaded.stderr
            reply = await ask(
                stack.url, None, "graph-rag", {"query": "What does msg bit header return?"}
            )
            await settled(stack, reply["explain_id"])
            said = MSG_MANUAL.index("Returns:"), MSG_MANUAL.index("\nmsg bit header")
            assert " ".join(reply["response"].split()) == " ".join(
                MSG_MANUAL[said[0] : said[1]].split()
            )
            shown, quote, _ = await first_claim_in_text(page, stack.url, reply["explain_id"])
            assert quote == MSG_MANUAL[said[0] : said[1]], quote
            assert shown.endswith(f"chars {said[0]}–{said[1]}"), shown
            places = await page.locator("p.evidence-place").all_inner_texts()
            heading = MSG_MANUAL.index("msg bit header")
            assert places[1].endswith(f"chars {heading}–{heading + 14}"), places
            assert not errors, errors


MSG_MANUAL = (
    "Chapter 4: Function reference 17\nflags: must be zero\n"
    "Parses the header of the provided message.\n"
    "Returns: MSG_OK if the header was read, MSG_BAD if str is\n"
    "not a valid header, MSG_SHORT if the buffer is too small and in this case\n"
    "need will contain the length needed.\nmsg bit header\n"
    "void msg_bit_header (const unsigned char * str, int bit_len)\nstr: BIT string.\n"
)
