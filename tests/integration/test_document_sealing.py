"""A document that completes while the store is away is signed once the store is back.

The librarian asks the store to sign a complete document's extraction provenance once, with
a 5 s wait; a store that was down (killed, restarting) or busy (a 20 MB load elsewhere)
left the document unsigned for good, so an audit could not prove it. It now asks again.
"""

from __future__ import annotations

import json

import pytest

from tests.support.poll import eventually
from tests.support.processors import INGEST, SAMPLES
from tests.support.stack import Stack, stack_fixture
from trustgraph_flow.librarian import sealing
from trustgraph_flow.store.processor import proc as store

stack = stack_fixture(INGEST, settings={"librarian": {"seal_retry_seconds": 0.5}})


@pytest.mark.timeout(120)
async def test_a_document_completed_while_the_store_was_down_is_signed_when_it_is_back(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sealing, "SEAL_TIMEOUT", 1.0)  # the librarian's wait for the store
    await stack.stop_processor("store")
    loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
    assert loaded.code == 0, loaded.stderr
    doc = loaded.stdout.splitlines()[-1]
    # The load's end says the store did not answer (it ended silent, as if all were stored)
    said = f"Warning: {doc} is complete, but the store has not confirmed its graph yet: the "
    said += "store did not answer within 1 s (busy, or away). Nothing is lost"
    assert said in loaded.stderr, loaded.stderr
    await stack.start_processor(store)
    signed = await eventually(
        lambda: stack.cli("tg-verify-explain-trace", doc), lambda r: r.code == 0, timeout=30
    )
    assert f"verified    {doc}" in signed.stdout, signed.stdout
    listed = await stack.cli("tg-list-documents", "--format", "json")
    assert [(d["id"], d["held"]) for d in json.loads(listed.stdout)] == [(doc, None)], listed
