"""The viewer's collection picker and, for the administrator, its user picker: in every
mode, with the collection and user in the page address, so a link opens the same view."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.support import ask, browser
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack

TIMEOUT = 15_000
ADMIN = "viewer-admin-token"
pytestmark = pytest.mark.timeout(300)


async def questions(page: Any) -> list[str]:
    await page.wait_for_selector('body[data-ready="traces"]', timeout=TIMEOUT)
    return sorted(t.strip() for t in await page.locator("td.question").all_inner_texts())


async def test_collections_and_users_are_picked_and_linked(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, token=ADMIN) as stack:
        env = {"TRUSTGRAPH_TOKEN": ADMIN}
        traces: dict[tuple[str, str], str] = {}
        for user, collection, question in (
            ("trustgraph", "default", "What is the capital of France?"),
            ("trustgraph", "research", "What is the capital of Spain?"),
            ("alice", "default", "What is the capital of Italy?"),
        ):
            scope = ("-U", user, "-C", collection)
            loaded = await stack.cli(
                "tg-load-document", str(SAMPLES / "capitals.txt"), *scope, env=env
            )
            assert loaded.code == 0, loaded.stderr
            request = {"query": question, "user": user, "collection": collection}
            reply = await ask(stack.url, ADMIN, "graph-rag", request)

            async def shown(trace: str = reply["explain_id"], where: Any = scope) -> Any:
                return await stack.cli(
                    "tg-show-explain-trace", trace, "--format", "json", *where, env=env
                )

            def done(r: Any) -> bool:
                return r.code == 0 and '"status": "in-progress"' not in r.stdout

            await eventually(shown, done, timeout=30)
            traces[user, collection] = reply["explain_id"]
        from playwright.async_api import expect

        async with browser() as b:
            context = await b.new_context()
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(stack.url + "?collection=research")
            await page.get_by_label("Access key").fill(ADMIN)
            await page.keyboard.press("Enter")
            # The address names research: its trace, and the picker says so.
            assert await questions(page) == ["What is the capital of Spain?"]
            picker = page.get_by_label("Collection")
            assert await picker.input_value() == "research"
            options = page.locator("#collection option")  # listed once the listing comes
            await expect(options).to_have_text(["default", "research"], timeout=TIMEOUT)

            await picker.select_option("default")
            assert await questions(page) == ["What is the capital of France?"]
            assert page.url.endswith("?collection=default#/")
            await page.go_back()
            assert await questions(page) == ["What is the capital of Spain?"]

            # A mistyped collection in the address is said to be none, naming the user's (it
            # said "No traces yet"); each is a link to it.
            await page.goto(stack.url + "?collection=reserch")
            await page.wait_for_selector('body[data-ready="traces"]', timeout=TIMEOUT)
            missing = page.locator("p.empty")
            await expect(missing).to_have_text(
                "There is no collection “reserch”: yours are default, research "
                "(tg-list-collections)."
            )
            await missing.get_by_role("link", name="research").click()
            await page.wait_for_url("**?collection=research#/", timeout=TIMEOUT)
            assert await questions(page) == ["What is the capital of Spain?"]

            # The administrator looks at another user; a link to it opens the same view.
            await page.get_by_label("User").fill("alice")
            await page.get_by_label("User").press("Enter")
            assert await questions(page) == ["What is the capital of Italy?"]
            link = page.url
            assert "user=alice" in link
            other = await context.new_page()
            await other.goto(link)  # the same browser's cookie: signed in already
            assert await questions(other) == ["What is the capital of Italy?"]
            assert await other.get_by_label("User").input_value() == "alice"

            # A link to research's trace that names no collection: the alert says where it
            # is, and its link opens it there.
            research = traces["trustgraph", "research"]
            await other.goto(stack.url + "#" + f"/trace/{quote(research, safe='')}")
            found = other.locator("span.found-in")
            await expect(found).to_have_text("It is in collection research.", timeout=TIMEOUT)
            await found.get_by_role("link", name="research").click()
            await other.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
            assert "collection=research" in other.url
            assert errors == []
