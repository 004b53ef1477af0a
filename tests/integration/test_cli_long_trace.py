"""A 20,000-step agent trace shown by tg-show-explain-trace, every step, through the real stack.

The trace is far over what one broker message carries (~12 MB as JSON): the store streams it
in pieces and the command prints each as it arrives.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench.long_trace import long_agent_trace
from tests.golden.golden import ENV, invoke
from tests.support.sparql_server import store_backend
from tests.support.stack import Stack
from trustgraph_base.provenance import uris
from trustgraph_base.schema.explain import TraceView
from trustgraph_base.wire import from_json
from trustgraph_cli.render.jsonout import dumps, sources_not_requested, view_json
from trustgraph_cli.render.style import Style
from trustgraph_cli.render.trace import TraceOptions, render_trace
from trustgraph_flow.store.processor import proc as store
from trustgraph_flow.store.service.writer import write_batch

pytestmark = pytest.mark.timeout(600)

STEPS = 20_000
SUB_EVERY = 2_500  # these steps ran a GraphRAG sub-trace
TRACE = uris.agent_session_uri("long-run")


async def test_a_20000_step_trace_shows_every_step_in_order(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    stores = store_backend(tmp_path / "store" / "store")  # where the stack's store looks
    write_batch(stores, long_agent_trace("long-run", STEPS, sub_every=SUB_EVERY))
    stores.close()
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        as_json = await invoke(stack.url, "tg-show-explain-trace", TRACE, "--format", "json")
        assert as_json.code == 0, as_json.stderr
        data = json.loads(as_json.stdout)
        assert [s["index"] for s in data["steps"]] == list(range(1, STEPS + 1))
        assert [s["observation"] for s in data["steps"][-2:]] == [
            "seen part 19999",
            "seen part 20000",
        ]
        with_subs = [s["index"] for s in data["steps"] if s["subtraces"]]
        assert with_subs == list(range(SUB_EVERY, STEPS + 1, SUB_EVERY))
        assert data["steps"][-1]["subtraces"][0]["edges"][0]["reasoning"] == "asked about it"
        assert data["answer"] == "every part seen"

        text = await stack.cli("tg-show-explain-trace", TRACE, env=ENV)  # the console script
        assert text.code == 0, text.stderr
        shown = [int(m.group(1)) for m in re.finditer(r"── Analysis (\d+): ", text.stdout)]
        assert shown == list(range(1, STEPS + 1))
        assert text.stdout.count("GraphRAG sub-trace") == STEPS // SUB_EVERY
        assert text.stdout.splitlines()[-2:] == [
            f"  └── Conclusion: {TRACE}/final",
            "      Answer: every part seen",
        ]
        # Drawn a piece at a time, the text is what the whole trace renders as in one go.
        whole = from_json(TraceView, data, tolerant=True)
        # Printed a piece at a time, the JSON is what the whole trace dumps as in one go.
        assert as_json.stdout == dumps(sources_not_requested(view_json(whole))) + "\n"
        style = Style(color=False, unicode=True, width=int(ENV["COLUMNS"]))
        assert text.stdout == render_trace(whole, style, TraceOptions()) + "\n"
