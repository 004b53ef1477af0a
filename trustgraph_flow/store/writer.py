"""The writer: a batch of Triples messages into their collections' stores, then the trace index.

Each (user, collection) group is written with one ``Store.extend`` (one transaction)
before the runtime acks the batch. Quads are a set, so a redelivered message changes
nothing; the sqlite index is written after the store with idempotent upserts, so a
crash between the two is repaired by the redelivery.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL
from trustgraph_base.schema.core import Triples
from trustgraph_flow.store.convert import ConversionError, quad_of
from trustgraph_flow.store.stores import Stores

log = logging.getLogger(__name__)


@dataclass
class WriteReport:
    """What a batch did: quads written, messages rejected (with reasons)."""

    written: int = 0
    rejected: list[tuple[str, str]] | None = None


def convert_message(msg: Triples) -> list[ox.Quad]:
    """All quads of one message, or ``ConversionError`` for the first one pyoxigraph refuses."""
    return [quad_of(t) for t in msg.triples]


def write_batch(stores: Stores, messages: Sequence[Triples]) -> WriteReport:
    """Write every convertible message; a message that does not convert is rejected alone."""
    report = WriteReport(rejected=[])
    groups: dict[tuple[str, str], list[Triples]] = defaultdict(list)
    quads: dict[tuple[str, str], list[ox.Quad]] = defaultdict(list)
    for msg in messages:
        key = (msg.metadata.user, msg.metadata.collection)
        try:
            converted = convert_message(msg)
        except ConversionError as exc:
            log.warning("rejecting Triples %s (user=%s collection=%s): %s", msg.metadata.id, *key, exc)
            assert report.rejected is not None
            report.rejected.append((msg.metadata.id, str(exc)))
            continue
        groups[key].append(msg)
        quads[key].extend(converted)
    for key, group in groups.items():
        handle = stores.get(*key, create=True)
        assert handle is not None
        handle.store.extend(quads[key])
        report.written += len(quads[key])
        retrieval = [t for m in group for t in m.triples if t.g == GRAPH_RETRIEVAL]
        if retrieval:
            handle.index.record(retrieval)
    return report
