"""Viewer benchmark: the web viewer in headless chromium against a gateway over a large store.

    python -m bench.bench_viewer [--quick]

Bulk-loads 100,000 top-level traces (10,000 with --quick) and two long agent traces
(1,000 and 20,000 steps; 5,000 with --quick; every 25th step ran a GraphRAG sub-trace)
through the writer code path, then serves them with the real store processor and gateway
on the embedded broker. It times, server side (REST, as the viewer calls it), the trace
list's first and deepest pages and its filters; and in the browser (Playwright driving
/usr/bin/chromium) the time from navigation to the viewer's ``viewer:ready:<page>`` mark
for the list, the deepest list page and both long traces, a click on a tree toggle until
the next frame, and scrolling the 20,000-step tree to its end (frame times, and until the
last window of steps has arrived). Figures go into docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import pyoxigraph as ox

from bench.bench_store import bulk_load, trace_templates
from bench.long_trace import long_agent_trace
from bench.served import served, skipped
from bench.summary import summary
from trustgraph_base.provenance import uris
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.backends.embedded.trace_index import TraceIndex
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.traces import encode_cursor

USER = "trustgraph"  # the viewer asks as the default user
BIG_TIME = "2027-01-01T00:00:0{}.000Z"  # newer than every bulk trace


def load(root: Path, n_traces: int, long_steps: list[int]) -> str:
    """Fill the store under ``root``; returns the cursor of the deepest list page."""
    stores = Stores(root)
    templates = {
        k: v.replace('"user":"bench"', f'"user":"{USER}"') for k, v in trace_templates().items()
    }
    assert all(f'"user":"{USER}"' in v for v in templates.values())
    started = time.perf_counter()
    bulk_load(stores, templates, n_traces)
    for k, steps in enumerate(long_steps):
        write_batch(
            stores,
            long_agent_trace(
                f"long{steps}", steps, sub_every=25, started_at=BIG_TIME.format(k), user=USER
            ),
        )
    handle = stores.get(USER, "default")
    assert handle is not None
    # Stores (the embedded backend) opens a pyoxigraph store and a sqlite index.
    assert isinstance(handle.store, ox.Store) and isinstance(handle.index, TraceIndex)
    print(
        f"  loaded {n_traces:,} traces + agent traces of {long_steps} steps "
        f"({len(handle.store):,} quads) in {time.perf_counter() - started:.0f} s"
    )
    # The deepest page: after the 50th-oldest trace (the list is newest first).
    rows = handle.index.db.execute(
        "SELECT ifnull(sort_time, ''), id FROM traces WHERE parent IS NULL AND is_question = 1 "
        "ORDER BY ifnull(sort_time, '') ASC, id ASC LIMIT 1 OFFSET 50"
    ).fetchall()
    stores.close()
    return encode_cursor((str(rows[0][0]), str(rows[0][1])))


async def rest_ms(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any], runs: int = 15
) -> tuple[float, int]:
    """Median round trip of one explain request through the gateway, and its row count."""
    samples, rows = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        async with http.post(url + "api/v1/flow/default/service/explain", json=body) as resp:
            data = await resp.json()
            assert resp.status == 200, data
        samples.append((time.perf_counter() - t) * 1000)
        rows = len(data.get("traces", []))
    return statistics.median(samples), rows


async def ready_ms(page: Any, url: str, name: str) -> float:
    """Navigate and return the time from navigation start to the viewer's ready mark."""
    await page.goto("about:blank")
    await page.goto(url)
    await page.wait_for_selector(f'body[data-ready="{name}"]', timeout=120_000)
    mark = await page.evaluate(
        f"performance.getEntriesByName('viewer:ready:{name}').at(-1).startTime"
    )
    return float(mark)


TOGGLE_JS = """async () => {
  const row = [...document.querySelectorAll('.tree .row')].find(r => r.getAttribute('aria-expanded') === 'false');
  const t = performance.now();
  row.querySelector('.twisty').click();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r)));
  return [performance.now() - t, row.isConnected ? 'same' : 'rerendered'];
}"""

SCROLL_JS = """async () => {
  const tree = document.querySelector('.tree');
  const frames = [];
  let last = performance.now();
  const t0 = last;
  for (let i = 1; i <= 120; i++) {
    tree.scrollTop = (tree.scrollHeight - tree.clientHeight) * i / 120;
    await new Promise(r => requestAnimationFrame(r));
    const now = performance.now();
    frames.push(now - last);
    last = now;
  }
  const scrolled = performance.now() - t0;
  const t1 = performance.now();
  while ([...document.querySelectorAll('.tree .row.placeholder')].length) {
    await new Promise(r => setTimeout(r, 10));
    if (performance.now() - t1 > 60000) break;
  }
  frames.sort((a, b) => a - b);
  return {scrolled, filled: performance.now() - t1, p50: frames[60], p95: frames[113], max: frames[119],
          rows: document.querySelectorAll('.tree .row').length};
}"""


async def browse(url: str, deep: str, long_steps: list[int], n_traces: int) -> None:
    from tests.browser.support import browser

    async with browser() as b:
        page = await b.new_page(viewport={"width": 1280, "height": 900})
        first = [await ready_ms(page, url, "traces") for _ in range(3)]
        print(
            f"  Traces page (newest 50 of {n_traces:,}): ready {statistics.median(first):.0f} ms after navigation"
        )
        deepest = [await ready_ms(page, f"{url}#/traces?after={deep}", "traces") for _ in range(3)]
        print(f"  Traces page, the oldest 50: ready {statistics.median(deepest):.0f} ms")
        summary(
            f"viewer: list page of {n_traces:,} traces (browser)",
            f"first {statistics.median(first):.0f} ms, deepest {statistics.median(deepest):.0f} ms",
            "same at any depth",
            "navigation to rendered table",
        )
        for steps in long_steps:
            trace = f"{url}#/trace/{uris.agent_session_uri(f'long{steps}')}"
            opened = [await ready_ms(page, trace, "trace") for _ in range(3)]
            toggle = await page.evaluate(TOGGLE_JS)
            rows = await page.evaluate("document.querySelectorAll('.tree .row').length")
            print(
                f"  {steps:,}-step trace: interactive {statistics.median(opened):.0f} ms after navigation "
                f"(median of 3), a toggle click {toggle[0]:.1f} ms to the next frame, {rows} rows in the DOM"
            )
            line = f"open {statistics.median(opened):.0f} ms, toggle {toggle[0]:.0f} ms"
            if steps >= 5000:
                scroll = await page.evaluate(SCROLL_JS)
                print(
                    f"    scroll to the end in 120 frames: {scroll['scrolled']:.0f} ms, frame p50 "
                    f"{scroll['p50']:.1f} ms / p95 {scroll['p95']:.1f} ms / max {scroll['max']:.1f} ms; "
                    f"last window of steps arrived {scroll['filled']:.0f} ms later; {scroll['rows']} rows in the DOM"
                )
                line += f", scroll frames p95 {scroll['p95']:.0f} ms, last window +{scroll['filled']:.0f} ms"
            goal = "< 1 s interactive" if steps <= 1000 else "opens and scrolls"
            summary(
                f"viewer: {steps:,}-step agent trace (browser)",
                line,
                goal,
                "navigation to interactive tree",
            )


async def main(quick: bool) -> None:
    if skipped("viewer benchmark"):
        return
    n_traces = 10_000 if quick else 100_000
    long_steps = [1_000, 5_000] if quick else [1_000, 20_000]
    tmp = Path(tempfile.mkdtemp(prefix="bench-viewer-"))
    deep = load(tmp / "data" / "store" / "store", n_traces, long_steps)
    async with served(tmp / "data") as url:
        async with aiohttp.ClientSession() as http:
            base = {"operation": "list-traces", "limit": 50}
            for label, body in [
                ("first page", base),
                ("deepest page", {**base, "cursor": deep}),
                ("search, one match", {**base, "search": f"question {n_traces - 7}"}),
                ("search, no match", {**base, "search": "no such question"}),
                ("type agent", {**base, "type": "agent"}),
                (
                    "since, deepest day",
                    {**base, "since": "2026-01-01T00:00:00Z", "until": "2026-01-01T01:00:00Z"},
                ),
            ]:
                ms, rows = await rest_ms(http, url, body)
                print(f"  list-traces {label}: {ms:.1f} ms through the gateway ({rows} rows)")
                summary(
                    f"viewer API: list {label} ({n_traces:,} traces)",
                    f"{ms:.1f} ms",
                    "flat with depth",
                    "gateway round trip, p50",
                )
            for steps in long_steps:
                body = {
                    "operation": "get-trace",
                    "id": f"long{steps}",
                    "include_provenance": True,
                    "step_offset": 0,
                    "step_limit": 500,
                }
                ms, _ = await rest_ms(http, url, body, runs=5)
                print(f"  get-trace window of 500 steps of {steps:,}: {ms:.0f} ms")
        await browse(url, deep, long_steps, n_traces)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 traces, a 5,000-step trace")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.quick)))
