"""An agent trace that is a graph in the web viewer: a step that named what it used links to
those steps, a step of several tools at once shows each call under it, and a step the answer
does not rely on is badged a dead end; its Graph view draws those as arrows between boxes —
in a real browser against the real gateway."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, NamedTuple

import pytest

from bench.long_trace import graph_agent_trace
from tests.browser.support import VIEWED, browser
from tests.golden import agent_graph
from tests.support.agent import failed_run
from tests.support.sparql_server import shared_store_uri, store_backend
from tests.support.stack import Stack
from trustgraph_base.provenance import uris
from trustgraph_flow.store.service.writer import write_batch

TIMEOUT = 15_000  # ms, for each wait on the page
STEPS = 300  # of the long graph's trace

pytestmark = pytest.mark.timeout(300)


class Viewer(NamedTuple):
    url: str
    browser: Any


@pytest.fixture(scope="module")
async def viewer(
    pulsar_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Viewer]:
    """One stack and one chromium for the module: the store holds each test's trace (each
    test opens only its own), written before the stack starts (TG_TEST_STORE=server: on the
    module's own ``oxigraph serve``)."""
    data = tmp_path_factory.mktemp("agent-graph")
    with shared_store_uri() as uri:
        stores = store_backend(data / "store" / "store", uri=uri)  # where the store looks
        write_batch(
            stores,
            [
                agent_graph.graph_batch(),
                *graph_agent_trace("graph-300", STEPS),
                failed_run("failed-run"),
            ],
        )
        stores.close()
        prefix = f"t{uuid.uuid4().hex[:10]}"
        settings = {"store": {"store_uri": uri}} if uri else None
        async with (
            Stack(pulsar_url, prefix, VIEWED, data_dir=data, settings=settings) as stack,
            browser() as b,
        ):
            yield Viewer(stack.url, b)


@asynccontextmanager
async def viewing(viewer: Viewer, address: str) -> AsyncIterator[tuple[Any, list[str]]]:
    """A page of the viewer at ``address`` (after its ``#``), in a browser context of its own
    (nothing kept from another test's page), and the page's errors (none, at the end of each
    test)."""
    context = await viewer.browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{viewer.url}#{address}")
        yield page, errors
    finally:
        await context.close()


async def test_what_each_step_used_is_a_link_and_the_dead_end_is_marked(viewer: Viewer) -> None:
    g = agent_graph.GRAPH
    from playwright.async_api import expect

    async with viewing(viewer, f"/trace/{g}") as (page, errors):
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
        await expect(page.locator("aside.details h2")).to_have_text("Step 1", timeout=TIMEOUT)
        await page.locator(".tree .row", has_text="Conclusion").first.click()
        assert "step 3" in await details.get_by_role("link").first.inner_text()
        assert errors == []


async def edges_of(page: Any) -> set[tuple[str, str]]:
    """The picture's arrows, as (what was used, what used it)."""
    pairs = await page.eval_on_selector_all(
        "svg.agent-graph .dag-edge", "els => els.map(e => [e.dataset.from, e.dataset.to])"
    )
    return {(a, b) for a, b in pairs}


async def test_the_graph_view_draws_what_each_step_used(viewer: Viewer) -> None:
    g = agent_graph.GRAPH
    i1, i2, i3 = (f"{g}/i{n}" for n in (1, 2, 3))
    from playwright.async_api import expect

    async with viewing(viewer, f"/trace/{g}") as (page, errors):
        await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
        await page.get_by_role("button", name="Graph", exact=True).click()
        await page.wait_for_selector("svg.agent-graph", timeout=TIMEOUT)
        assert await edges_of(page) == {
            (g, i1),  # step 1 from the question
            (i1, f"{i1}/observation"),  # each step's own observation or calls
            (i1, i2),  # step 2 on the seed's chain
            (i2, f"{i2}/c1"),
            (i2, f"{i2}/c2"),
            (f"{i1}/observation", i3),  # step 3 used only what step 1 observed
            (i3, f"{i3}/observation"),
            (f"{i3}/observation", f"{g}/final"),
        }
        node = "svg.agent-graph .dag-node[data-key='{}']".format
        rows = [await page.get_attribute(node(k), "data-row") for k in (f"{i2}/c1", f"{i2}/c2")]
        cols = [await page.get_attribute(node(k), "data-col") for k in (f"{i2}/c1", f"{i2}/c2")]
        assert rows == ["2", "2"] and cols == ["1", "2"]  # the two calls side by side
        dead = await page.eval_on_selector_all(
            "svg.agent-graph .dag-node.dead-end", "els => els.map(e => e.dataset.key)"
        )
        assert sorted(dead) == [i2, f"{i2}/c1", f"{i2}/c2"]
        assert "dead end" in (await page.locator(node(i2)).text_content() or "")
        # A click shows the node in the details panel, and keeps the picture in the address.
        await page.locator(node(i3)).click()
        details = page.locator("aside.details")
        await expect(details.locator("h2")).to_have_text("Step 3", timeout=TIMEOUT)
        assert "Neither check helped" in await details.inner_text()
        await page.locator(node(f"{i2}/c2")).click()
        await expect(details.locator("h2")).to_have_text("Call 2", timeout=TIMEOUT)
        assert "[no-index]" in await details.inner_text()
        await page.locator(node(f"{i1}/observation")).click()  # its step's details
        await expect(details.locator("h2")).to_have_text("Step 1", timeout=TIMEOUT)
        assert "selected" in (await page.get_attribute(node(f"{i1}/observation"), "class") or "")
        assert "show=graph" in page.url
        await page.reload()  # opens as it was left: the picture, the node selected
        await page.wait_for_selector("svg.agent-graph .dag-node.selected", timeout=TIMEOUT)
        assert await page.get_attribute(node(i1), "class") == "dag-node step selected"
        await page.get_by_role("button", name="Tree", exact=True).click()
        assert await page.locator(".tree .row", has_text="Step 3").count() == 1
        assert errors == []


async def test_a_300_step_graph_is_drawn_whole_and_scrolls(viewer: Viewer) -> None:
    g = uris.agent_session_uri("graph-300")
    from playwright.async_api import expect

    async with viewing(viewer, f"/trace/{g}?show=graph") as (page, errors):
        await page.wait_for_selector("svg.agent-graph", timeout=TIMEOUT)
        nodes = page.locator("svg.agent-graph .dag-node")
        # The question, 300 steps, 270 observations, 30 steps' two calls each, the conclusion.
        assert await nodes.count() == 1 + STEPS + 270 + 60 + 1
        edges = await edges_of(page)
        assert f"{g}/i30/c1/observation" not in {a for a, _ in edges}  # drawn as its call
        assert (f"{g}/i30/c1", f"{g}/i35") in edges  # step 35 used step 30's first call
        assert (f"{g}/i34", f"{g}/i35") not in edges
        dead = await page.eval_on_selector_all(
            "svg.agent-graph .dag-node.step.dead-end", "els => els.map(e => +e.dataset.row)"
        )
        assert 31 in dead and 34 in dead and 35 not in dead  # between 30 and 35, not used
        wrap = page.locator(".agent-graph-wrap")
        size = await wrap.evaluate("e => [e.scrollHeight, e.clientHeight]")
        assert size[0] > 10 * size[1]  # one box of the page, scrolled
        await wrap.evaluate("e => { e.scrollTop = e.scrollHeight; }")
        final = page.locator("svg.agent-graph .dag-node.conclusion")
        await final.click()  # at the bottom, in view once scrolled there
        await expect(page.locator("aside.details h2")).to_have_text("Conclusion", timeout=TIMEOUT)
        assert await wrap.evaluate("e => e.scrollTop") > 0
        assert errors == []


async def test_a_failed_run_shows_its_error_conclusion_last(viewer: Viewer) -> None:
    a = uris.agent_session_uri("failed-run")
    from playwright.async_api import expect

    async with viewing(viewer, f"/trace/{a}") as (page, errors):
        await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
        answer = await page.locator("section.answer").inner_text()
        assert "No answer: the run failed (the LLM failed: HTTP 500)." in answer
        final = page.locator(".tree .row", has_text="Conclusion").first
        assert "error: the LLM failed" in await final.inner_text()
        await final.click()
        details = page.locator("aside.details")
        await expect(details.locator("h2")).to_have_text("Conclusion", timeout=TIMEOUT)
        assert "Termination" in await details.inner_text()
        await page.get_by_role("button", name="Graph", exact=True).click()
        await page.wait_for_selector("svg.agent-graph", timeout=TIMEOUT)
        box = page.locator(f"svg.agent-graph .dag-node[data-key='{a}/final']")
        classes = set((await box.get_attribute("class") or "").split())
        assert {"conclusion", "failed", "selected"} <= classes  # the conclusion clicked in the tree
        assert await box.get_attribute("data-row") == "2"  # the last box, after step 1
        assert "the LLM failed" in (await box.text_content() or "")
        assert (f"{a}/i1", f"{a}/final") in await edges_of(page)
        assert errors == []
