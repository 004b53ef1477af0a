"""The web viewer in a real browser against the real gateway and stack.

A new user's walk: sign in with the key, find a question in the list, open its trace,
follow an edge to the page and document it came from, see which other answers used that
page, and come back. Each page is saved as a screenshot: into ``$TG_SCREENSHOT_DIR`` when
set (``TG_SCREENSHOT_DIR=docs/images scripts/test tests/browser`` refreshes the README's),
else under the test's temporary directory, so a test run never changes tracked files.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import ask, browser, populated_stack, settled
from trustgraph_base.provenance import uris

ADMIN = "viewer-admin-token"
TIMEOUT = 15_000  # ms, for each wait on the page
HOSTILE = '<img src=x onerror="window.__owned=1"> What is the capital of Japan?'

pytestmark = pytest.mark.timeout(300)


async def expect_rows(rows: Any, n: int) -> None:
    from playwright.async_api import expect

    await expect(rows).to_have_count(n, timeout=TIMEOUT)


async def expect_text(locator: Any, text: str) -> None:
    from playwright.async_api import expect

    await expect(locator).to_have_text(text, timeout=TIMEOUT)


async def shown(page: Any, name: str) -> None:
    """Wait until the viewer has rendered page ``name`` (traces / trace / document)."""
    await page.wait_for_selector(f'body[data-ready="{name}"]', timeout=TIMEOUT)


async def shot(page: Any, name: str, fallback: Path) -> None:
    folder = Path(os.environ.get("TG_SCREENSHOT_DIR") or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


async def texts(page: Any, selector: str) -> list[str]:
    return [t.strip() for t in await page.locator(selector).all_inner_texts()]


async def hybrid_figures_shown(page: Any, stack: Any) -> None:
    """A DocumentRAG trace from a hybrid retrieval (the default): each chunk shows its vector
    rank and word score beside its similarity, the figures tg-show-explain-trace gives."""
    trace = uris.docrag_question_uri("docrag-hugo")
    told = await stack.cli("tg-show-explain-trace", trace, "--format", "json")
    assert told.code == 0, told.stderr
    chunks = json.loads(told.stdout)["chunks"]
    assert chunks and all(c["vector_rank"] is not None for c in chunks)
    rows = page.locator(".tree .row").filter(
        has=page.locator(".title", has_text=re.compile(r"^Chunk \d+$"))
    )
    await expect_rows(rows, len(chunks))
    for row, chunk in zip(await rows.all_inner_texts(), chunks, strict=True):
        assert f"score {chunk['score']:.3f}" in row, row
        assert f"vector #{chunk['vector_rank']}" in row, row
        assert f"words {chunk['lexical_score']:.3f}" in row, row
    await rows.first.click()
    details = page.locator("aside.details")
    await details.get_by_text("Vector rank").wait_for(timeout=TIMEOUT)
    shown_chunk = await details.inner_text()
    assert f"{chunks[0]['vector_rank']} (its place in the vector search)" in shown_chunk
    assert f"{chunks[0]['lexical_score']:.3f} (the question's words in it, BM25)" in shown_chunk
    assert "Word score" in shown_chunk and "fused rank" in shown_chunk


async def test_from_the_list_to_a_page_and_back(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with populated_stack(pulsar_url, prefix, tmp_path, token=ADMIN) as stack:
        reply = await ask(
            stack.url,
            ADMIN,
            "graph-rag",
            {"query": HOSTILE, "session_id": "hostile", "started_at": "2026-02-03T03:00:00.000Z"},
        )
        await settled(stack, reply["explain_id"])
        made = await stack.cli("tg-create-api-key", "--user-id", "trustgraph", "--name", "browser")
        assert made.code == 0, made.stderr
        key = made.stdout.strip()  # a user's own API key, as a person signing in would have
        async with browser() as b:
            context = await b.new_context(viewport={"width": 1280, "height": 900})
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

            # Sign in once: the key goes into an HttpOnly cookie that page scripts cannot read.
            await page.goto(stack.url)
            await page.get_by_label("Access key").fill("not the key")
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_text("That key was not accepted").wait_for(timeout=TIMEOUT)
            await page.get_by_label("Access key").fill(key)
            await page.keyboard.press("Enter")
            await shown(page, "traces")
            errors.clear()  # the refused key's 401 was expected
            [cookie] = [c for c in await context.cookies() if c["name"] == "tg_viewer_key"]
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            assert await page.evaluate("document.cookie") == ""
            assert await page.locator("#signed-in").inner_text() == "Signed in as trustgraph"

            # Traces: newest first, each with its type, status as a word, question and time.
            rows = page.locator("table.traces tbody tr")
            assert await rows.count() == 4
            first = await texts(page, "table.traces tbody tr:first-child td")
            assert first[:3] == ["✓\nComplete", "Agent", "Which river flows through Cairo?"]
            assert re.search(r"2026", first[3])
            questions = await texts(page, "td.question")
            assert questions[-1] == HOSTILE  # stored text shown as text, never run
            assert await page.evaluate("window.__owned") is None

            await page.get_by_label("Question contains").fill("victor hugo")
            await page.get_by_role("button", name="Search").click()
            await expect_rows(rows, 1)
            assert await texts(page, "td.question") == ["Where was Victor Hugo born?"]
            await page.get_by_role("link", name="Clear").click()
            await expect_rows(rows, 4)
            await page.get_by_label("Type").select_option("graph-rag")
            await page.get_by_role("button", name="Search").click()
            await expect_rows(rows, 2)
            await page.get_by_role("link", name="Clear").click()
            await expect_rows(rows, 4)
            # From after To (the dates swapped): said at the field, the list and form kept.
            await page.get_by_label("From").fill("2026-12-07T00:00")
            await page.get_by_label("To").fill("2026-12-01T00:00")
            await page.get_by_role("button", name="Search").click()
            said = await page.get_by_label("To").evaluate("e => e.validationMessage")
            assert said == "To is before From: the window holds no time", said
            assert "since=" not in page.url
            await expect_rows(rows, 4)
            await page.get_by_label("To").fill("2026-12-08T00:00")  # fixed: it searches
            await page.get_by_role("button", name="Search").click()
            await page.wait_for_function("() => location.hash.includes('until=')")
            await page.get_by_role("link", name="Clear").click()
            await expect_rows(rows, 4)

            # Trace: the answer, the lineage picture, the tree with the sub-trace nested in step 1.
            await page.get_by_role("link", name="Which river flows through Cairo?").click()
            await shown(page, "trace")
            assert await page.locator("h1").inner_text() == "Which river flows through Cairo?"
            assert (
                await page.locator("section.answer p").inner_text()
                == "The Nile flows through Cairo."
            )
            # The store checks its signature (verify-trace): a badge beside its status.
            await expect_text(page.locator(".meta .seal"), "✓ verified")
            boxes = await page.locator("svg.lineage a.box > text:not(.star)").all_text_contents()
            # the GraphRAG focus also holds an edge of its second passage (graph_rag.passages),
            # given to the answer but not cited, from page 1
            assert boxes == [
                "The Nile flows through Cairo.",
                "Nile → flows through → Cairo",
                "Cairo → is the capital of → …",
                "chunk 0 · p.1",
                "chunk 0 · p.2",
                "page 1 · world-facts.pdf",
                "page 2 · world-facts.pdf",
                "world-facts.pdf",
            ]
            # the picture tells cited evidence from evidence only given to the answer
            cited = page.locator("svg.lineage a.box.cited")
            assert await cited.locator("text.star").all_text_contents() == ["★"]
            assert "Nile" in (await cited.locator("text:not(.star)").all_text_contents())[0]
            assert await page.locator("p.lineage-legend").count() == 1
            tree = await texts(page, ".tree .row .title")
            assert tree[:4] == ["Agent trace", "Step 1", "GraphRAG sub-trace", "Exploration"]
            assert "Edge 1" in tree and tree[-1] == "Conclusion"
            assert "offline" in await page.locator(".tree .row", has_text="Synthesis").inner_text()
            await shot(page, "viewer-trace", tmp_path / "screenshots")
            await page.get_by_label("Export format").select_option("trig")
            async with page.expect_download() as waiting:
                await page.get_by_role("button", name="Export").click()
            trig = await waiting.value
            assert trig.suggested_filename == "agent-agent-cairo.trig"
            assert "urn:trustgraph:agent:agent-cairo" in Path(await trig.path()).read_text()
            await page.get_by_label("Export format").select_option("view")
            async with page.expect_download() as waiting:
                await page.get_by_role("button", name="Export").click()
            exported = json.loads(Path(await (await waiting.value).path()).read_text())
            assert (
                exported["id"] == "urn:trustgraph:agent:agent-cairo" and len(exported["steps"]) == 1
            )
            assert (
                exported["steps"][0]["subtraces"][0]["edges"][0]["sources"][0]["page_number"] == 2
            )

            # An edge: its reasoning and where it came from.
            await page.locator(".tree .row", has_text="Edge 1").click()
            details = page.locator("aside.details")
            await details.get_by_text("Reasoning").wait_for(timeout=TIMEOUT)
            shown_edge = await details.inner_text()
            assert "flows" in shown_edge
            # its subject and object by their labels, as the edge's line has them (session 15
            # saw "seine", "paris": the URIs' lower-cased tails)
            subject = shown_edge.split("Subject", 1)[1].split("Predicate", 1)[0]
            obj = shown_edge.split("Object", 1)[1].split("Source", 1)[0]
            assert "Nile" in subject and "Cairo" in obj, shown_edge
            source = details.get_by_role("link", name=re.compile(r"Page 2 of “world-facts.pdf”"))
            await source.click()

            # Document: the page the edge came from, its text and edges, and who else used it.
            await shown(page, "document")
            assert await page.locator("h1").inner_text() == "world-facts.pdf"
            target = page.locator("section.doc-page.target")
            assert (await target.locator("h2").inner_text()).startswith("Page 2")
            marked = target.locator("article.chunk.target")
            assert (
                "The Nile flows through Cairo." in await marked.locator(".chunk-text").inner_text()
            )
            assert "Nile → flows through → Cairo" in await texts(
                page, "article.chunk.target .edges li"
            )
            usage = target.locator("details.usage").first
            await usage.locator("li").first.wait_for(timeout=TIMEOUT)
            users = await texts(page, "section.doc-page.target details.usage[open] li a")
            assert users == ["Which river flows through Cairo?", "Where was Victor Hugo born?"]
            await shot(page, "viewer-document", tmp_path / "screenshots")
            async with page.expect_download() as waiting:
                await page.get_by_role("button", name="Download the original").click()
            download = await waiting.value
            assert download.suggested_filename == "world-facts.pdf"
            assert Path(await download.path()).read_bytes().startswith(b"%PDF")
            doc_id = await page.locator("p.meta code").inner_text()

            # Another answer that used the page, then back to the trace we came from.
            await usage.get_by_role("link", name="Where was Victor Hugo born?").click()
            await shown(page, "trace")
            assert await page.locator("h1").inner_text() == "Where was Victor Hugo born?"
            await hybrid_figures_shown(page, stack)
            await page.go_back()
            await shown(page, "document")
            await page.get_by_role("link", name="← Back to the trace").click()
            await shown(page, "trace")
            assert await page.locator("h1").inner_text() == "Which river flows through Cairo?"
            await page.go_back()
            await shown(page, "document")
            await page.go_back()
            await shown(page, "trace")
            await page.locator("aside.details h2", has_text="Edge 1").wait_for(
                timeout=TIMEOUT
            )  # as we left it
            # Compare it with the DocumentRAG answer that used the same page.
            await page.get_by_role("link", name="Compare with another answer").click()
            await shown(page, "traces")
            await page.get_by_role("link", name="Compare with: Where was Victor Hugo born?").click()
            await shown(page, "compare")
            sides = await texts(page, ".diff-side h2")
            assert sides == ["Which river flows through Cairo?", "Where was Victor Hugo born?"]
            pages = page.locator("section.diff-level", has_text="Pages")
            assert await texts(page, "section.diff-level[aria-label=Pages] .diff-both li") == [
                "page 1 · world-facts.pdf",  # the passage's edge (uncited) was read there
                "page 2 · world-facts.pdf",
            ]
            assert await pages.locator(".diff-a h4").inner_text() == "Only in A (0)"
            only_b = await texts(page, "section.diff-level[aria-label=Documents] .diff-b li")
            assert sorted(only_b) == ["capitals.txt", "writers.md"]
            await shot(page, "viewer-compare", tmp_path / "screenshots")
            await page.get_by_role("link", name="Traces").first.click()
            await shown(page, "traces")

            # A window of the document's chunks (as one too large for a reply is shown): its
            # header counts the whole document, as the document shown whole does (it counted
            # the window's: "2 pages with chunks here · … edges extracted from them").
            await page.evaluate(
                "id => { location.hash = `#/document/${encodeURIComponent(id)}`; }", doc_id
            )
            await shown(page, "document")
            header = page.locator("p.meta .muted")
            counts = await header.inner_text()
            assert re.fullmatch(r"3 pages · 3 chunks · \d+ edges extracted", counts), counts
            await page.evaluate(
                "id => { location.hash = `#/document/${encodeURIComponent(id)}?offset=1`; }",
                doc_id,
            )
            chunks_nav = page.locator("nav[aria-label=Chunks]").first
            await expect_text(chunks_nav, "Chunks 2–3 of 3 · ‹ Previous 200")
            assert await texts(page, "section.doc-page h2") == ["Page 2", "Page 3"]
            windowed = await header.inner_text()
            assert windowed.startswith(f"{counts} (in these 2 chunks: 2 pages, "), windowed
            await chunks_nav.get_by_role("link", name="‹ Previous 200").click()
            await expect_text(page.locator("nav[aria-label=Chunks]").first, "Chunks 1–3 of 3")
            assert len(await texts(page, "section.doc-page h2")) == 3
            assert errors == []

            # The key revoked: signing in with it again says so, not "check it and try again".
            key_id = key.split("_")[1]
            revoked = await stack.cli("tg-revoke-api-key", "--key-id", key_id)
            assert revoked.code == 0, revoked.stderr
            await page.reload()
            await page.get_by_label("Access key").fill(key)
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_text(f"this API key (tg_{key_id}) was revoked at").wait_for(
                timeout=TIMEOUT
            )


async def test_keyboard_alone_reaches_and_works_the_tree(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with populated_stack(pulsar_url, prefix, tmp_path) as stack, browser() as b:
        page = await b.new_page(viewport={"width": 1280, "height": 900})
        await page.goto(stack.url)  # no key asked: auth is off on loopback
        await shown(page, "traces")
        await shot(page, "viewer-traces", tmp_path / "screenshots")
        for _ in range(30):  # Tab until the first trace link has focus
            await page.keyboard.press("Tab")
            if await page.evaluate("document.activeElement.closest('td.question') !== null"):
                break
        assert (
            await page.evaluate("document.activeElement.textContent")
            == "Which river flows through Cairo?"
        )
        await page.keyboard.press("Enter")
        await shown(page, "trace")
        for _ in range(40):  # past the lineage links, into the tree (one tab stop)
            await page.keyboard.press("Tab")
            if await page.evaluate("document.activeElement.getAttribute('role')") == "treeitem":
                break
        focused = "document.activeElement"
        assert await page.evaluate(f"{focused}.getAttribute('role')") == "treeitem"
        outline = await page.evaluate(f"getComputedStyle({focused}).outlineStyle")
        assert outline not in ("none", ""), "the focused row must show where focus is"
        await page.keyboard.press("ArrowDown")  # Step 1
        assert await page.evaluate(f"{focused}.querySelector('.title').textContent") == "Step 1"
        assert await page.evaluate(f"{focused}.getAttribute('aria-expanded')") == "true"
        await page.keyboard.press("Enter")
        assert await page.evaluate(f"{focused}.getAttribute('aria-expanded')") == "false"
        assert "GraphRAG sub-trace" not in await texts(page, ".tree .row .title")
        await page.keyboard.press(" ")
        assert await page.evaluate(f"{focused}.getAttribute('aria-expanded')") == "true"
        assert await page.locator("aside.details h2").inner_text() == "Step 1"
        await page.keyboard.press("ArrowLeft")
        assert await page.evaluate(f"{focused}.getAttribute('aria-expanded')") == "false"
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press("ArrowDown")
        assert (
            await page.evaluate(f"{focused}.querySelector('.title').textContent")
            == "GraphRAG sub-trace"
        )
        # Status is a word beside its colour, in the tree as in the list.
        assert "Complete" in await page.evaluate(f"{focused}.textContent")
