"""A real stack with the sample corpus and three answered questions, and a headless chromium.

    async with populated_stack(pulsar_url, prefix, tmp_path) as stack: ...
    async with browser() as b: page = await b.new_page()

``browser()`` drives Debian's chromium (``/usr/bin/chromium``, or ``$TG_CHROMIUM``) through
Playwright; ``missing()`` says why it cannot (the browser tests then skip with that reason).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.golden.golden import invoke
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack
from trustgraph_base.messaging import Processor
from trustgraph_cli.client import GatewayClient
from trustgraph_cli.options import Gateway
from trustgraph_flow.librarian import processor as librarian
from trustgraph_flow.store import processor as store

QUESTIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("document-rag", "docrag-hugo", {"query": "Where was Victor Hugo born?"}),
    ("graph-rag", "graph-france", {"query": "What is the capital of France?"}),
    ("agent", "agent-cairo", {"question": "Which river flows through Cairo?"}),
]
# What the viewer asks of a stack as it opens: traces (the store) and the collection list (the
# store and the librarian). Without the librarian that list waits for the gateway's request
# timeout, and the stack's close waits for that request: a minute for each test.
VIEWED: list[Processor[Any, Any]] = [store.proc, librarian.proc]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    return os.environ.get("TG_CHROMIUM", "/usr/bin/chromium")


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if not (Path(chromium_path()).exists() or shutil.which(chromium_path())):
        return f"no chromium at {chromium_path()} (apt-get install chromium, or set TG_CHROMIUM)"
    return None


@asynccontextmanager
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        b = await pw.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield b
        finally:
            await b.close()


async def ask(url: str, token: str | None, service: str, request: dict[str, Any]) -> dict[str, Any]:
    gw = Gateway(url=url, token=token, user="trustgraph", collection="default", debug=False)
    async with GatewayClient(gw, timeout=60) as client:
        return await client.request(service, request)


async def settled(stack: Stack, trace: str) -> None:
    """Wait until the store holds the whole trace (the last stages land just after the answer)."""

    def done(r: Any) -> bool:
        return r.code == 0 and '"status": "in-progress"' not in r.stdout

    env = {"TRUSTGRAPH_TOKEN": stack.token} if stack.token else None
    result = await eventually(
        lambda: invoke(stack.url, "tg-show-explain-trace", trace, "--format", "json", env=env),
        done,
        timeout=30,
    )
    assert done(result), result


@asynccontextmanager
async def populated_stack(
    pulsar_url: str, prefix: str, data_dir: Path, token: str | None = None
) -> AsyncIterator[Stack]:
    """Every processor and the gateway, the samples loaded, and the QUESTIONS answered (in order)."""
    async with Stack(pulsar_url, prefix, EVERY, data_dir=data_dir, token=token) as stack:
        env = {"TRUSTGRAPH_TOKEN": token} if token else None
        for sample in ("world-facts.pdf", "capitals.txt", "writers.md"):
            loaded = await invoke(stack.url, "tg-load-document", str(SAMPLES / sample), env=env)
            assert loaded.code == 0, loaded.stderr
        for n, (service, session, request) in enumerate(QUESTIONS):
            started = f"2026-02-03T04:05:0{n}.000Z"
            reply = await ask(
                stack.url, token, service, {**request, "session_id": session, "started_at": started}
            )
            await settled(stack, reply["explain_id"])
        yield stack
