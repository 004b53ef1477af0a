"""The writer: a batch of Triples messages into their collections' stores, then the trace index.

Each (user, collection) group is written before the runtime acks the batch: parsed in
full and bulk-written (``Store.bulk_extend``) when it is large, loaded in one transaction
(``Store.load`` of N-Quads text) when it is small, or ``Store.extend`` of converted quads
when a message holds blank nodes. Quads are a set, so a redelivered message changes
nothing; the sqlite index is written after the store with idempotent upserts, so a crash
between the two is repaired by the redelivery.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL
from trustgraph_base.schema.core import Triples
from trustgraph_flow.store.backend import Backend, Handle
from trustgraph_flow.store.convert import ConversionError, nquads, quad_of
from trustgraph_flow.store.links import SourceResolver

log = logging.getLogger(__name__)

BULK_MIN = 5_000
"""Groups of at least this many triples in an embedded store are written with
``Store.bulk_extend`` (RocksDB files built aside and ingested: ~9 µs of CPU per triple
against ~20 for a transactional ``Store.load``); smaller ones, and every group on a SPARQL
server, with ``load``: bulk files that small cost as much to compact as they saved."""


@dataclass
class WriteReport:
    """What a batch did: triples written, messages rejected (id, reason)."""

    written: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)
    retry: list[Triples] = field(default_factory=list)  # their collection failed: redeliver


def convert_message(msg: Triples) -> list[ox.Quad]:
    """All quads of one message, or ``ConversionError`` for the first one pyoxigraph refuses."""
    return [quad_of(t) for t in msg.triples]


def write_batch(stores: Backend, messages: Sequence[Triples]) -> WriteReport:
    """Write every acceptable message; a message pyoxigraph refuses is rejected alone, logged."""
    report = WriteReport()
    groups: dict[tuple[str, str], list[Triples]] = defaultdict(list)
    for msg in messages:
        groups[(msg.metadata.user, msg.metadata.collection)].append(msg)
    for (user, collection), group in groups.items():
        try:
            with stores.lease(user, collection, create=True) as handle:
                assert handle is not None
                written = write_group(handle, group, report)
                retrieval = [t for m in written for t in m.triples if t.g == GRAPH_RETRIEVAL]
                if retrieval:
                    handle.index.record(retrieval, SourceResolver(handle.store))
        except OSError as exc:
            # This collection only (its store would not open or write): the other groups
            # of the batch are done and acked; these messages are redelivered alone.
            log.warning(
                "cannot write %d messages of user=%s collection=%s (will retry): %s",
                len(group),
                user,
                collection,
                exc,
            )
            report.retry.extend(group)
    return report


def write_group(handle: Handle, group: list[Triples], report: WriteReport) -> list[Triples]:
    """Write one collection's messages in one transaction; returns the messages written."""
    texts = [nquads(m.triples) for m in group]
    if all(text is not None for text in texts):
        text = "".join(texts)  # type: ignore[arg-type]
        count = sum(len(m.triples) for m in group)
        try:
            if count >= BULK_MIN and isinstance(handle.store, ox.Store):  # embedded backend
                # Parsed in full first: a term pyoxigraph refuses raises here, before
                # anything is written (the bulk writer would keep what came before it).
                handle.store.bulk_extend(list(ox.parse(text, ox.RdfFormat.N_QUADS)))
            else:
                handle.store.load(text, ox.RdfFormat.N_QUADS)
            report.written += count
            return group
        except SyntaxError:
            pass  # some term is refused: find the message that holds it, below
    good: list[Triples] = []
    quads: list[ox.Quad] = []
    for msg in group:
        try:
            quads.extend(convert_message(msg))
        except ConversionError as exc:
            m = msg.metadata
            log.warning(
                "rejecting Triples %s (user=%s collection=%s): %s", m.id, m.user, m.collection, exc
            )
            report.rejected.append((m.id, str(exc)))
            continue
        good.append(msg)
    handle.store.extend(quads)
    report.written += len(quads)
    return good
