"""Filling a store with many trace messages the way its write path takes them."""

from __future__ import annotations

from collections.abc import Iterable

from trustgraph_base.schema import StoreTriples
from trustgraph_base.wire import decode
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.service.writer import write_batch


def stamp(i: int) -> str:
    """A distinct ``xsd:dateTime`` for trace ``i``: one second apart, in January 2026."""
    return f"2026-01-{1 + i // 86400 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"


def write_decoded(stores: Stores, messages: Iterable[bytes]) -> None:
    """Decode each wire message as the store does (``StoreTriples``) and write them through
    ``write_batch``, 512 at a time."""
    batch: list[StoreTriples] = []
    for message in messages:
        batch.append(decode(StoreTriples, message))
        if len(batch) == 512:
            write_batch(stores, batch)
            batch = []
    write_batch(stores, batch)
