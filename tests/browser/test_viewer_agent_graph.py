"""An agent trace that is a graph in the web viewer: a step that named what it used links to
those steps, a step of several tools at once shows each call under it, and a step the answer
does not rely on is badged a dead end — in a real browser against the real gateway."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.support import browser
from tests.golden import agent_graph
from tests.support.sparql_server import store_backend
from tests.support.stack import Stack
from trustgraph_flow.store.processor import proc as store
from trustgraph_flow.store.service.writer import write_batch

TIMEOUT = 15_000  # ms, for each wait on the page

pytestmark = pytest.mark.timeout(300)


async def test_what_each_step_used_is_a_link_and_the_dead_end_is_marked(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    stores = store_backend(tmp_path / "store" / "store")  # where the stack's store looks
    write_batch(stores, [agent_graph.graph_batch()])
    stores.close()
    g = agent_graph.GRAPH
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack, browser() as b:
        page = await b.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{stack.url}#/trace/{g}")
        await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
        step2 = page.locator(".tree .row", has_text="Step 2").first
        assert "dead end" in await step2.inner_text()
        assert (
            "dead end" not in await page.locator(".tree .row", has_text="Step 3").first.inner_text()
        )
        calls = page.locator(".tree .row", has_text="Call ")  # under step 2, expanded (short trace)
        assert [t.split("\n")[0] for t in await calls.all_inner_texts()] == ["Call 1", "Call 2"]
        await page.locator(".tree .row", has_text="Call 2").first.click()
        details = page.locator("aside.details")
        assert "[no-index]" in await details.inner_text()
        await page.locator(".tree .row", has_text="Step 3").first.click()
        assert "Uses" in await details.inner_text()
        used = details.get_by_role("link", name="step 1")
        await used.click()  # follows the edge to the step it used
        from playwright.async_api import expect

        await expect(page.locator("aside.details h2")).to_have_text("Step 1", timeout=TIMEOUT)
        await page.locator(".tree .row", has_text="Conclusion").first.click()
        assert "step 3" in await details.get_by_role("link").first.inner_text()
        assert errors == []
