"""Viewer benchmark: an agent trace drawn as a graph (the trace page's "Graph" view).

    python -m bench.bench_agent_graph [--quick]

Loads agent traces that are graphs (bench.long_trace.graph_agent_trace: parallel calls every
10th step, a step using an earlier step's observation every 7th, dead ends between) of 100,
300 and 500 steps (100 and 300 with --quick), serves them with the real store processor and
gateway on the embedded broker, and in headless chromium (Playwright, /usr/bin/chromium)
times a click on "Graph" until the next frame (the whole picture laid out and drawn), then
scrolls the picture to its end in 120 frames (frame times) and clicks the conclusion.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.long_trace import graph_agent_trace
from bench.served import served, skipped
from bench.summary import summary
from trustgraph_base.provenance import uris
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.service.writer import write_batch

DRAW_JS = """async () => {
  const button = [...document.querySelectorAll('.view-switch button')].find(b => b.textContent === 'Graph');
  const t = performance.now();
  button.click();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r)));
  return {ms: performance.now() - t, nodes: document.querySelectorAll('svg.agent-graph .dag-node').length,
          edges: document.querySelectorAll('svg.agent-graph .dag-edge').length,
          height: document.querySelector('svg.agent-graph').getAttribute('height')};
}"""

SCROLL_JS = """async () => {
  const box = document.querySelector('.agent-graph-wrap');
  const frames = [];
  let last = performance.now();
  for (let i = 1; i <= 120; i++) {
    box.scrollTop = (box.scrollHeight - box.clientHeight) * i / 120;
    await new Promise(r => requestAnimationFrame(r));
    const now = performance.now();
    frames.push(now - last);
    last = now;
  }
  frames.sort((a, b) => a - b);
  return {p50: frames[60], p95: frames[113], max: frames[119]};
}"""

CLICK_JS = """async () => {
  const t = performance.now();
  document.querySelector('svg.agent-graph .dag-node.conclusion').dispatchEvent(new MouseEvent('click', {bubbles: true}));
  await new Promise(r => requestAnimationFrame(() => setTimeout(r)));
  return [performance.now() - t, document.querySelector('aside.details h2').textContent];
}"""


async def measure(url: str, sizes: list[int]) -> None:
    from tests.browser.support import browser

    async with browser() as b:
        page = await b.new_page(viewport={"width": 1280, "height": 900})
        for steps in sizes:
            trace = f"{url}#/trace/{uris.agent_session_uri(f'graph{steps}')}"
            draws: list[dict[str, Any]] = []
            for _ in range(3):
                await page.goto("about:blank")
                await page.goto(trace)
                await page.wait_for_selector('body[data-ready="trace"]', timeout=120_000)
                draws.append(await page.evaluate(DRAW_JS))
            draw = statistics.median(d["ms"] for d in draws)
            scroll = await page.evaluate(SCROLL_JS)
            click = await page.evaluate(CLICK_JS)
            assert click[1] == "Conclusion", click
            d = draws[0]
            print(
                f"  {steps}-step graph: {d['nodes']} nodes, {d['edges']} arrows, {d['height']} px tall; "
                f"drawn {draw:.0f} ms after the click (median of 3); scrolled to the end in 120 "
                f"frames, p50 {scroll['p50']:.1f} / p95 {scroll['p95']:.1f} / max "
                f"{scroll['max']:.1f} ms; a click on the conclusion {click[0]:.0f} ms to its details"
            )
            summary(
                f"viewer: {steps}-step agent graph (browser)",
                f"drawn {draw:.0f} ms, scroll frames p95 {scroll['p95']:.0f} ms",
                "usable at hundreds of steps",
                "click on Graph to the next frame",
            )


async def main(quick: bool) -> None:
    if skipped("viewer agent graph benchmark"):
        return
    sizes = [100, 300] if quick else [100, 300, 500]
    tmp = Path(tempfile.mkdtemp(prefix="bench-agent-graph-"))
    stores = Stores(tmp / "data" / "store" / "store")
    for steps in sizes:
        write_batch(stores, graph_agent_trace(f"graph{steps}", steps))
    stores.close()
    async with served(tmp / "data") as url:
        await measure(url, sizes)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 300 steps only")
    asyncio.run(main(parser.parse_args().quick))
    sys.exit(0)
