"""Retention commands end to end (gateway + store on the real broker), and the store setting."""

from __future__ import annotations

import json
from pathlib import Path

from tests.golden.golden import invoke
from tests.support.poll import eventually
from tests.support.stack import Stack
from tests.support.store import agent, document, graph_rag, msg, recent
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_flow.store.processor import proc as store

USER = ["-U", "alice"]


async def traces(url: str) -> list[str]:
    listed = await invoke(url, "tg-list-explain-traces", *USER, "--format", "json")
    return (
        [t["id"].rsplit(":", 1)[1] for t in json.loads(listed.stdout)] if listed.code == 0 else []
    )


async def test_delete_and_purge_commands(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        await stack.publish(
            TRIPLES_STORE,
            msg(document() + graph_rag("old", 1) + agent("a1", 3, "g-sub") + recent("new")),
        )
        assert await eventually(lambda: traces(stack.url), lambda t: len(t) == 3) == [
            "new",
            "a1",
            "old",
        ]

        dry = await stack.cli(
            "tg-purge-explain-traces",
            "--older-than",
            "30d",
            "--dry-run",
            *USER,
            env={"COLUMNS": "120"},
        )
        assert dry.code == 0, dry.stderr
        assert dry.stdout.splitlines()[0] == "Would delete 2 traces:"
        assert [ln.split()[0] for ln in dry.stdout.splitlines()[3:]] == ["old", "a1"]
        assert await traces(stack.url) == ["new", "a1", "old"]

        # A sub-trace goes with the answer that ran it: alone, the agent would keep a step
        # whose evidence is gone.
        sub = "urn:trustgraph:question:g-sub"
        refused = await stack.cli("tg-delete-explain-trace", sub, *USER)
        assert (refused.code, refused.stdout) == (1, "")
        assert refused.stderr.splitlines() == [
            f"Error: {sub} is a sub-trace of urn:trustgraph:agent:a1: delete that trace (its "
            "sub-traces go with it) [forbidden]"
        ]
        kept = await stack.cli("tg-show-explain-trace", "a1", *USER)
        assert kept.code == 0 and f"GraphRAG sub-trace: {sub}" in kept.stdout, kept.stdout

        deleted = await stack.cli("tg-delete-explain-trace", "a1", *USER)
        assert deleted.code == 0, deleted.stderr
        assert (
            deleted.stdout
            == 'Deleted trace urn:trustgraph:agent:a1 ("tell me about the fox") and its sub-traces.\n'
        )
        again = await stack.cli("tg-delete-explain-trace", "a1", *USER)
        assert again.code == 1 and again.stderr.startswith(
            "Error: no trace 'a1' in collection 'default'"
        )
        hostile = await stack.cli("tg-delete-explain-trace", "x> } ; DROP ALL ; #", *USER)
        assert hostile.code == 1 and len(hostile.stderr.strip().splitlines()) == 1

        purged = await invoke(
            stack.url, "tg-purge-explain-traces", "--older-than", "30d", *USER, "--format", "json"
        )
        assert json.loads(purged.stdout)["count"] == 1
        assert await traces(stack.url) == ["new"]

        bad = await stack.cli("tg-purge-explain-traces", "--older-than", "30 days")
        assert bad.code == 2 and "bad duration '30 days'" in bad.stderr


async def test_the_store_applies_its_retention_period_by_itself(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    settings = {"store": {"retention": "30d", "retention_interval": 0.2}}
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, settings=settings) as stack:
        await stack.publish(TRIPLES_STORE, msg(document() + graph_rag("old", 1) + recent("new")))
        await stack.publish(TRIPLES_STORE, msg(graph_rag("old2", 2) + recent("newb"), user="bob"))
        left = await eventually(lambda: traces(stack.url), lambda t: t == ["new"])
        assert left == ["new"]
        bob = await eventually(
            lambda: invoke(stack.url, "tg-list-explain-traces", "-U", "bob", "--format", "json"),
            lambda r: (
                r.code == 0
                and [t["id"] for t in json.loads(r.stdout)] == ["urn:trustgraph:question:newb"]
            ),
        )
        assert [t["id"] for t in json.loads(bob.stdout)] == ["urn:trustgraph:question:newb"]
