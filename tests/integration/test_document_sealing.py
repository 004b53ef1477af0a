"""A document that completes while the store is away is signed once the store is back.

The librarian asks the store to sign a complete document's extraction provenance once, with
a 5 s wait; a store that was down (killed, restarting) or busy (a 20 MB load elsewhere)
left the document unsigned for good, so an audit could not prove it. It now asks again.
"""

from __future__ import annotations

import pytest

from tests.support.poll import eventually
from tests.support.processors import INGEST, SAMPLES
from tests.support.stack import Stack, stack_fixture
from trustgraph_flow.store.processor import proc as store

stack = stack_fixture(INGEST, settings={"librarian": {"seal_retry_seconds": 0.5}})


@pytest.mark.timeout(120)
async def test_a_document_completed_while_the_store_was_down_is_signed_when_it_is_back(
    stack: Stack,
) -> None:
    await stack.stop_processor("store")
    loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
    assert loaded.code == 0, loaded.stderr
    doc = loaded.stdout.splitlines()[-1]
    await stack.start_processor(store)
    signed = await eventually(
        lambda: stack.cli("tg-verify-explain-trace", doc), lambda r: r.code == 0, timeout=30
    )
    assert f"verified    {doc}" in signed.stdout, signed.stdout
