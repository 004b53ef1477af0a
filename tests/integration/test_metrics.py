"""``/api/metrics`` and its Prometheus-style query: every processor reports on the bus, the
gateway answers what each counted (messages, timings, errors, tokens, triples and trace
messages written), names a processor gone silent, and the official client's metrics
commands work against it."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from tests.support.official import official_bin, run_official
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import ADMIN, Stack, create_key
from trustgraph_base.messaging import Bus

pytestmark = pytest.mark.timeout(300)
EVERY_S = "0.3"  # seconds between reports in these tests


def values(text: str, name: str) -> dict[str, float]:
    """The samples of metric ``name`` in an exposition: labels text → value."""
    out = {}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, _, value = line[len(name) + 1 :].rpartition("} ")
            out[labels] = float(value)
    return out


def total(found: dict[str, float], *parts: str) -> float:
    return sum(v for labels, v in found.items() if all(p in labels for p in parts))


async def test_metrics_of_a_running_stack(
    pulsar_url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TG_METRICS_INTERVAL", EVERY_S)
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, token=ADMIN) as stack:
        key = await create_key(stack, "alice")
        scope = ("-t", key)
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "world-facts.pdf"), *scope)
        assert loaded.code == 0, loaded.stderr
        asked = await stack.cli(
            "tg-invoke-graph-rag", "-q", "What is the capital of France?", *scope
        )
        assert asked.code == 0, asked.stderr

        async with aiohttp.ClientSession() as http:

            async def scrape() -> str:
                headers = {"Authorization": f"Bearer {key}"}
                async with http.get(stack.url + "api/metrics", headers=headers) as r:
                    assert r.status == 200 and r.content_type == "text/plain"
                    return await r.text()

            def counted(text: str) -> bool:  # each processor's next report has them all
                served = values(text, "messages_total")
                return (
                    total(values(text, "input_tokens_total")) > 0
                    and total(values(text, "trace_messages_written_total")) > 0
                    and total(served, 'processor="graph-rag"', 'outcome="done"') >= 1
                )

            text = await eventually(scrape, counted)
            up = values(text, "processor_up")
            for name in ("store", "text-completion", "graph-rag", "librarian", "extractor"):
                assert total(up, f'processor="{name}"') == 1, (name, up)
            assert total(values(text, "triples_written_total")) > 0
            assert total(values(text, "output_tokens_total"), 'model="') > 0
            served = values(text, "messages_total")
            assert total(served, 'processor="graph-rag"', 'outcome="done"') >= 1
            assert total(values(text, "handling_seconds_count"), 'processor="store"') >= 1
            assert "# TYPE messages_total counter" in text
            assert "alice" not in text  # no user's name, collection or content

            async with http.get(stack.url + "api/metrics") as r:
                assert r.status == 401  # auth on: a key or the admin token
            headers = {"Authorization": f"Bearer {key}"}
            query = stack.url + "api/metrics/query"
            async with http.get(query, params={"query": "rate(x[5m])"}, headers=headers) as r:
                body = await r.json()
                assert r.status == 400 and body["errorType"] == "bad_data"
                assert "metric name" in body["error"]

            # A malformed report harms nothing; a processor gone silent is named.
            bus = Bus(pulsar_url)
            try:
                await bus.publish(stack.topics.topic("metrics"), b'{"processor": 1}', {})
            finally:
                await bus.close()
            await stack.stop_processor("embeddings")

            def down(text: str) -> bool:
                return total(values(text, "processor_up"), 'processor="embeddings"') == 0

            text = await eventually(scrape, down)
            assert total(values(text, "processor_up"), 'processor="store"') == 1
            info = values(text, "processor_info")
            assert total(info, 'processor="embeddings"') == 0 and total(info, "store") == 1

        official = official_bin()
        shown = await run_official(
            official, stack, "tg-show-processor-state", "-m", stack.url + "api/metrics", *scope
        )
        assert shown.code == 0, shown.stderr
        listed = {line.split()[0] for line in shown.stdout.splitlines() if line.strip()}
        assert {"store", "text-completion", "graph-rag"} <= listed
        assert "embeddings" not in listed
        flow = await run_official(
            official, stack, "tg-show-flow-state", "-m", stack.url + "api/metrics", *scope
        )
        assert flow.code == 0, flow.stderr
        states = {ln.split()[1]: ln.split()[2] for ln in flow.stdout.splitlines() if ln[:2] == "- "}
        assert states["store"] == "\U0001f49a" and states["embeddings"] == "\u274c", flow.stdout
        rate = await run_official(
            official,
            stack,
            "tg-show-token-rate",
            "-m",
            stack.url + "api/metrics",
            "-n",
            "1",
            *scope,
        )
        assert rate.code == 0, rate.stderr
        assert rate.stdout.splitlines()[0].split() == ["Input", "Output", "Total"]
        status = await run_official(
            official,
            stack,
            "tg-verify-system-status",
            "--min-processors",
            "5",
            "--global-timeout",
            "3",
            "--skip-ui",
            *scope,
        )
        # Flows and prompts are checked too; the processors' count is ours to answer.
        assert "✓ Processors: Found" in status.stdout, status.stdout
