"""The viewer benches' server: the real store processor and gateway on an embedded broker,
over a store the bench filled first, and whether a browser is there to drive it.

    if skipped("viewer benchmark"): return
    async with served(tmp / "data") as url: ...
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bench.summary import summary
from trustgraph_base.messaging import EmbeddedBroker
from trustgraph_flow.store import processor as store


def skipped(name: str) -> bool:
    """True, having said why, when Playwright or chromium is missing here."""
    from tests.browser.support import missing

    reason = missing()
    if reason is not None:
        print(f"  skipped: {reason}")
        summary(name, "skipped", "-", reason)
    return reason is not None


@asynccontextmanager
async def served(data_dir: Path) -> AsyncIterator[str]:
    """The gateway's URL, the store under ``data_dir`` (its ``store/store``) behind it."""
    from tests.support.stack import Stack

    with EmbeddedBroker(data_dir.parent / "broker") as broker:
        prefix = f"b{uuid.uuid4().hex[:8]}"
        async with Stack(broker.url, prefix, [store.proc], data_dir=data_dir) as stack:
            yield stack.url
