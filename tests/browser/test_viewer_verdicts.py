"""Claims coloured by verdict in the viewer, in real Chromium: an answer the samples support
and one they do not (withheld, "The documents do not say"); each claim carries its verdict as
a word and a colour, the answer's verification is shown with the answer given instead. An
agent's trace shows its own answer's verification first, then each tool's named by its step."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.support import ask, browser, settled
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack

TIMEOUT = 15_000
pytestmark = pytest.mark.timeout(300)

BAR = "() => getComputedStyle(document.querySelector('button.claim')).borderLeftColor"


async def test_claims_are_coloured_and_named_by_verdict(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
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
        agent = await stack.cli("tg-invoke-agent", "-q", "What is the boiling point of mercury?")
        assert agent.code == 0, agent.stderr
        traces["agent"] = agent.stderr.split("trace: ")[1].split()[0]
        await settled(stack, traces["agent"])
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

            # An agent that found no supported answer: its own verdict and the answer it gave
            # first (not its first tool's as if the agent's), then each tool's by its step.
            await page.goto(f"{stack.url}#/trace/{traces['agent']}")
            await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
            await page.wait_for_selector("div.verification", timeout=TIMEOUT)
            notes = await page.locator("div.verification").all_inner_texts()
            assert notes[0].startswith(
                "Verified (heuristic): unsupported — no answer of its tools"
            ), notes
            assert f"Answer given: {agent.stdout.strip()}" in notes[0], notes
            assert [n.split(": Verified")[0] for n in notes[1:]] == [
                "Step 1 · knowledge-query's answer",
                "Step 2 · document-query's answer",
            ], notes
            claims = page.locator("button.claim")
            await claims.last.click()  # numbered as listed, named by the step it came from
            heading = await page.locator(".evidence-panel h3").inner_text()
            assert heading.startswith(
                f"Claim {await claims.count()} (step 2 · document-query): "
            ), heading
            # GraphRAG's answer from a nearest passage that gave no edge: the passage is
            # listed under the exploration as its chunk, marked cited, beside the edges.
            notes = tmp_path / "fares.md"
            notes.write_text("# Fares\n\nFares to Holm: 40 pence each way, paid on board.\n")
            loaded = await stack.cli("tg-load-document", str(notes))
            assert loaded.code == 0, loaded.stderr
            reply = await ask(
                stack.url, None, "graph-rag", {"query": "How much is the fare to Holm?"}
            )
            assert "40 pence" in reply["response"], reply
            await settled(stack, reply["explain_id"])
            await page.goto(f"{stack.url}#/trace/{reply['explain_id']}")
            await page.wait_for_selector('body[data-ready="trace"]', timeout=TIMEOUT)
            passage = page.get_by_role("treeitem").filter(has_text="Chunk 1").first
            await passage.wait_for(timeout=TIMEOUT)
            text = await passage.inner_text()
            assert "★" in text and "cited" in text and "fares" in text.lower(), text
            assert not errors, errors
