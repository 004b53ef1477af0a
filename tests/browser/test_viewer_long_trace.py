"""A long agent trace in the web viewer: it opens at once and every step is reachable.

The tree keeps only the rows in view in the page and fetches steps a window (500) at a
time, so the last of 2,000 steps is a placeholder until it is scrolled to.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.long_trace import long_agent_trace
from tests.browser.support import VIEWED, browser
from tests.integration.test_cli_long_trace import TRACE
from tests.support.sparql_server import store_backend
from tests.support.stack import Stack
from trustgraph_flow.store.service.writer import write_batch

STEPS = 2_000  # four windows of steps
TIMEOUT = 30_000  # ms, for each wait on the page

pytestmark = pytest.mark.timeout(300)


async def test_the_last_of_2000_steps_is_reachable(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    stores = store_backend(tmp_path / "store" / "store")  # where the stack's store looks
    write_batch(stores, long_agent_trace("long-run", STEPS, sub_every=500))
    stores.close()
    async with (
        Stack(pulsar_url, prefix, VIEWED, data_dir=tmp_path) as stack,
        browser() as b,
    ):
        page = await b.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{stack.url}#/trace/{TRACE}")
        await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
        assert "2,000 steps" in await page.locator("p.meta").inner_text()
        rows = page.locator(".tree .row")
        assert 0 < await rows.count() < 100  # virtualised: not 2,000 rows in the page
        first = page.locator(".tree .row", has_text="Step 1").first
        await first.click()
        await page.keyboard.press("End")  # the tree's last row: the Conclusion
        last = page.locator(".tree .row:not(.placeholder)", has_text=f"Step {STEPS}")
        await last.first.wait_for(timeout=TIMEOUT)  # its window fetched once in view
        assert "think about part 2000" in await last.first.inner_text()
        conclusion = page.locator(".tree .row", has_text="Conclusion")
        await conclusion.first.click()
        assert await page.locator("aside.details h2").inner_text() == "Conclusion"
        assert "every part seen" in await page.locator("aside.details").inner_text()
        # Back to the top: the first steps are still there, fetched once.
        await page.keyboard.press("Home")
        await page.locator(".tree .row:not(.placeholder)", has_text="Step 2").first.wait_for(
            timeout=TIMEOUT
        )
        assert errors == []
