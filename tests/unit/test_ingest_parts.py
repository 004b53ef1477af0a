"""Ingestion's messages within the broker's limit: texts in parts of whole characters,
provenance in as many messages as it needs."""

from __future__ import annotations

from trustgraph_base.messaging.limits import MAX_MESSAGE_BYTES
from trustgraph_base.provenance import chunk_triples
from trustgraph_base.schema import Metadata
from trustgraph_base.wire import encode
from trustgraph_flow.ingest_parts import TRIPLES_BYTES, text_parts, triples_messages

DOC = "urn:trustgraph:doc:d1"


def test_text_parts_keep_whole_characters_within_the_byte_budget() -> None:
    text = "aé€😀" * 1000  # 1, 2, 3 and 4 UTF-8 bytes
    parts = list(text_parts(text, max_bytes=1001))
    assert "".join(p for _, p in parts) == text
    assert all(len(p.encode()) <= 1001 for _, p in parts)
    offsets = [o for o, _ in parts]
    assert offsets == [sum(len(p) for _, p in parts[:i]) for i in range(len(parts))]
    assert list(text_parts("")) == [(0, "")]  # an empty text is still stored once


def test_provenance_of_many_chunks_is_split_into_messages_that_fit() -> None:
    meta = Metadata(id=DOC, user="alice")
    triples = []
    for m in range(5_000):  # a 5 MB page-less text at the default chunk size: 6.5 MB
        triples += chunk_triples(f"{DOC}/c{m}", DOC, m, m * 1000, 1000, f"{DOC}/activity/chunk")
    messages = list(triples_messages(meta, triples))
    assert len(messages) > 1
    assert all(len(encode(m)) <= TRIPLES_BYTES < MAX_MESSAGE_BYTES for m in messages)
    assert [t for m in messages for t in m.triples] == triples  # all of them, in order
    # each is sent as its size check encoded it, not serialised a second time
    assert all(encode(m) is encode(m) for m in messages)
