"""A removed document in the web viewer: its page says it was removed (when, why) instead of
"Something went wrong", and the trace that used it names its edge, not raw identifiers."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from tests.browser.support import browser, populated_stack

TIMEOUT = 15_000  # ms, for each wait on the page
AGENT = "urn:trustgraph:agent:agent-cairo"

pytestmark = pytest.mark.timeout(300)


def route_of(page: str, ident: str, params: dict[str, str]) -> str:
    """The viewer's hash route, as its dom.js ``route`` writes it."""
    query = f"?{urlencode(params)}" if params else ""
    return f"#/{page}/{quote(ident, safe='-_.!~*()' + chr(39))}{query}"


async def test_a_removed_documents_page_says_it_was_removed(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with populated_stack(pulsar_url, prefix, tmp_path) as stack:
        listed = await stack.cli("tg-list-documents", "--format", "json")
        [facts] = [d["id"] for d in json.loads(listed.stdout) if d["title"] == "world-facts.pdf"]
        removed = await stack.cli("tg-remove-document", facts, "--reason", "takedown 7")
        assert removed.code == 0, removed.stderr
        async with browser() as b:
            page = await (await b.new_context()).new_page()
            await page.goto(stack.url + route_of("document", facts, {"from": AGENT}))
            await page.wait_for_selector('body[data-ready="document"]', timeout=TIMEOUT)
            text = await page.locator("main").inner_text()
            assert "This document is not in the collection" in text
            assert "was removed on " in text and "takedown 7" in text
            assert "Something went wrong" not in text

            await page.goto(stack.url + route_of("trace", AGENT, {}))
            await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
            await page.locator(".tree .row", has_text="Edge 1").click()
            details = await page.locator("aside.details").inner_text()
            assert "Nile → flows through → Cairo".lower() in details.lower()
            assert "urn:trustgraph:entity:" not in details.split("Subject")[0]
            assert "was removed" in details
