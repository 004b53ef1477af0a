"""A new user's answer still verifies after its answering process was killed (SIGKILL)
once the answer was stored and signed, before it wrote the run's end (issue 30): the
restarted DocumentRAG sends the run's messages again from its journal and marks the run
interrupted; the store signs the trace again over the mark (the messages sent again add
nothing), also when the store itself was restarted in between, and
tg-verify-explain-trace and tg-verify-audit say verified. Before the fix the trace was
"tampered" for good: the messages sent again and the mark came in one batch, and the seal
took the old quads among them for someone else's edit."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.launcher import start_module
from tests.support.poll import eventually
from tests.support.processors import RAG
from tests.support.stack import CliResult, Stack, run_cli
from tests.support.traces import load
from trustgraph_flow.document_rag import processor as document_rag
from trustgraph_flow.store import processor as store

QUESTION = "What is the capital of France?"
KILLED = "the document-rag process stopped before this run finished"


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    """Everything DocumentRAG needs, in process; DocumentRAG itself is a subprocess, to kill."""
    rest = [p for p in RAG if p is not document_rag.proc]
    # A caller's deadline 20 s ahead (the gateway's), so the test need not wait longer.
    gateway = {"request_timeout": 20.0}
    async with Stack(pulsar_url, prefix, rest, data_dir=tmp_path, gateway=gateway) as running:
        yield running


async def answerer(stack: Stack, data: Path) -> asyncio.subprocess.Process:
    return await start_module(
        "trustgraph_flow.document_rag.processor",
        "--pulsar-url", stack.pulsar_url, "--topic-prefix", stack.prefix,
        "--data-dir", str(data), "--log-level", "WARNING",
        ready=data.with_suffix(".ready"),
    )  # fmt: skip


def killed_before_the_end(journal: Path) -> float:
    """The journal as the process leaves it when killed after its answer was stored, before
    it wrote the run's end (its broker's receipts not in yet): the run's ``end`` and ``done``
    lines gone (``done`` alone when the receipts had come by the end). The caller's deadline,
    returned."""
    lines = journal.read_bytes().splitlines(keepends=True)
    kept = [line for line in lines if not line.startswith((b'{"end"', b'{"done"'))]
    assert lines[-1].startswith(b'{"done"') and len(kept) >= len(lines) - 2, lines  # one run
    journal.write_bytes(b"".join(kept))
    return float(json.loads(kept[0])["until"])


def verified(found: CliResult) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(found.stdout) if found.code in (0, 1) else {}
    return report


async def killed_and_restarted(stack: Stack, tmp_path: Path, *, store_too: bool) -> None:
    await load(stack.url, "capitals.txt")
    data = tmp_path / "document-rag"
    child = await answerer(stack, data)
    try:
        asked = await stack.cli("tg-invoke-document-rag", "-q", QUESTION)
        assert asked.code == 0 and "Paris" in asked.stdout, asked
        trace = asked.stderr.split("trace: ")[-1].strip()
        first = await eventually(
            lambda: stack.cli("tg-verify-explain-trace", trace, "--format", "json"),
            lambda r: r.code == 0,
            timeout=30,
        )
        signed = verified(first)["traces"][0]["count"]
        journal = data / document_rag.proc.name / "runs" / "journal.log"
        await eventually(lambda: asyncio.to_thread(journal.read_bytes), lambda b: b'{"done"' in b)
    finally:
        child.kill()  # SIGKILL
        await child.wait()
    until = killed_before_the_end(journal)
    assert until - time.time() < 20
    await asyncio.sleep(max(0.0, until - time.time()) + 0.5)  # its caller no longer waits
    if store_too:
        await stack.stop_processor(store.proc.name)
    child = await answerer(stack, data)  # sends the run again and marks it interrupted
    try:
        if store_too:
            await stack.start_processor(store.proc)
        again = await eventually(
            lambda: stack.cli("tg-verify-explain-trace", trace, "--format", "json"),
            lambda r: verified(r).get("traces", [{}])[0].get("count") == signed + 2,
            timeout=60,
        )
        assert again.code == 0, again.stdout  # signed again with the mark, not tampered
        shown = await stack.cli("tg-verify-explain-trace", trace)
        assert shown.code == 0 and shown.stdout.startswith("VERIFIED"), shown.stdout
        marked = await stack.cli("tg-show-explain-trace", trace, "--format", "json")
        assert KILLED in marked.stdout, marked.stdout
        log = await stack.cli("tg-verify-log")
        assert log.code == 0 and log.stdout.startswith("VERIFIED"), log.stdout
        folder = str(tmp_path / "audit")
        made = await stack.cli("tg-export-audit", folder)
        assert made.code == 0, made
        offline = await run_cli(
            "tg-verify-audit", folder, env={"TRUSTGRAPH_URL": "http://127.0.0.1:9/"}
        )
        assert offline.code == 0 and offline.stdout.startswith("VERIFIED"), offline.stdout
    finally:
        child.terminate()
        await child.wait()


async def test_an_answer_verifies_after_its_process_was_killed_and_restarted(
    stack: Stack, tmp_path: Path
) -> None:
    await killed_and_restarted(stack, tmp_path, store_too=False)


async def test_and_with_the_store_restarted_in_between(stack: Stack, tmp_path: Path) -> None:
    await killed_and_restarted(stack, tmp_path, store_too=True)
