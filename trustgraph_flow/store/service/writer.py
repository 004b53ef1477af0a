"""The writer: a batch of store messages into their collections' stores, then the trace index.

Each message arrives parsed and checked (``StoreTriples``: its N-Quads text read by
pyoxigraph when the runtime decoded it, so a refused term has already dead-lettered its
message alone). Each (user, collection) group is written before the runtime acks the
batch: bulk-written (``Store.bulk_extend``) when it is large, in one transaction
(``Store.extend``) when it is small or on a SPARQL server. Quads are a set, so a
redelivered message changes nothing; the sqlite index is written after the store with
idempotent upserts, so a crash between the two is repaired by the redelivery.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import pyoxigraph as ox
from pydantic import ValidationError

from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, GRAPH_SOURCE
from trustgraph_base.schema.core import StoreTriples, Triples
from trustgraph_base.wire import describe
from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.core.rows import Resolver
from trustgraph_flow.store.core.sources import SourceResolver
from trustgraph_flow.store.governance import documents
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.sparql.client import StoreUnavailable

log = logging.getLogger(__name__)

BULK_MIN = 5_000
"""Groups of at least this many triples in an embedded store are written with
``Store.bulk_extend`` (RocksDB files built aside and ingested: ~6 µs of CPU per triple
against ~11 for a transactional ``Store.extend``); smaller ones, and every group on a SPARQL
server, with ``extend``: bulk files that small cost as much to compact as they saved."""


@dataclass
class WriteReport:
    """What a batch did: triples written, messages rejected (id, reason)."""

    written: int = 0
    dropped: int = 0  # messages of a removed load (``removed_loads``), not written
    traces: int = 0  # messages written that carried trace triples (``urn:graph:retrieval``)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    retry: list[StoreTriples | Triples] = field(default_factory=list)  # to redeliver, as given
    # Not written because the store server could not be reached (or failed): the caller
    # holds these until it answers instead of redelivering them (``store_triples``).
    unavailable: list[StoreTriples | Triples] = field(default_factory=list)


_RETRIEVAL = ox.NamedNode(GRAPH_RETRIEVAL)
_SOURCE = ox.NamedNode(GRAPH_SOURCE)


Given = StoreTriples | Triples


def readable(messages: Sequence[Given], report: WriteReport) -> list[tuple[Given, StoreTriples]]:
    """Each message with its form as the store reads it; a ``Triples`` whose terms
    pyoxigraph refuses (e.g. ``http://ex.com/%zz``) is rejected alone, logged (from the
    topic, the runtime dead-letters it before it gets here)."""
    out: list[tuple[Given, StoreTriples]] = []
    for msg in messages:
        if isinstance(msg, StoreTriples):
            out.append((msg, msg))
            continue
        try:
            out.append((msg, StoreTriples.of(msg)))
        except ValidationError as exc:
            m = msg.metadata
            reason = describe(exc)
            log.warning(
                "rejecting Triples %s (user=%s collection=%s): %s",
                m.id,
                m.user,
                m.collection,
                reason,
            )
            report.rejected.append((m.id, reason))
    return out


def write_batch(
    stores: Backend,
    messages: Sequence[Given],
    seal: Seal | None = None,
    removed: RemovedLoads | None = None,
) -> WriteReport:
    """Write every acceptable message; a message pyoxigraph refuses is rejected alone, logged.

    With a ``seal``, the traces the batch ended are then signed and logged (``governance.seal``).
    A message of a load in ``removed`` is dropped: on the writer thread, as a removal is, so
    it was either written before the removal (which removed it) or is dropped after it."""
    report = WriteReport()
    if removed is not None:
        kept = [m for m in messages if not removed.removed(m.metadata)]
        report.dropped, messages = len(messages) - len(kept), kept
    groups: dict[tuple[str, str], list[StoreTriples]] = defaultdict(list)
    given: dict[tuple[str, str], list[Given]] = defaultdict(list)
    for original, msg in readable(messages, report):
        key = (msg.metadata.user, msg.metadata.collection)
        groups[key].append(msg)
        given[key].append(original)
    for (user, collection), group in groups.items():
        try:
            with stores.lease(user, collection, create=True) as handle:
                assert handle is not None
                trace: list[StoreTriples] = []  # a trace's messages (most are not)
                other: list[StoreTriples] = []
                for m in group:
                    (trace if GRAPH_RETRIEVAL in m.text else other).append(m)
                retrieval = [q for m in trace for q in m.quads if q.graph_name == _RETRIEVAL]
                # The traces this batch begins, their entities indexed before the write
                # (embedded: signed from the writer's record without a count, claims.py).
                index = handle.index
                claiming = index if retrieval and isinstance(index, Claiming) else None
                fresh = claiming.claim(retrieval) if claiming is not None else frozenset()
                extended = write_group(handle, group)
                if extended and isinstance(stores, Stores):  # its memtables flushed now and then
                    stores.extended(handle, extended)
                report.written += sum(len(m.quads) for m in group)
                if retrieval:
                    report.traces += len(trace)
                    resolve = SourceResolver(handle.store)
                    roots = (
                        index.record(retrieval, resolve)
                        if claiming is None  # else its entities' rows are written: not again
                        else claiming.record(retrieval, resolve, claimed=True)
                    )
                    if seal is not None:
                        seal.after_write(handle, retrieval, roots=roots, fresh=fresh)
                if len(retrieval) < sum(len(m.quads) for m in trace):
                    other = group  # a trace's message with other graphs' quads too
                # Only those can hold a document's quads: a search of a trace's text for the
                # source graph's name, never there, costs ~2 us a KB (~10 us a message).
                if seal is not None and any(GRAPH_SOURCE in m.text for m in other):
                    source = [q for m in group for q in m.quads if q.graph_name == _SOURCE]
                    documents.after_write(seal, handle, source)
        except StoreUnavailable as exc:
            # The server, not this collection: every group would fail alike until it is back.
            log.warning(
                "cannot write %d messages of user=%s collection=%s (held until the store "
                "server answers): %s",
                len(group),
                user,
                collection,
                exc,
            )
            report.unavailable.extend(given[(user, collection)])
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
            report.retry.extend(given[(user, collection)])
    return report


@runtime_checkable
class Claiming(Protocol):
    """An index that maps a batch's trace entities before the store writes them; its
    ``record`` then need not write them again."""

    def claim(self, quads: Iterable[ox.Quad]) -> Set[str]: ...

    def record(
        self, quads: Iterable[ox.Quad], resolve: Resolver | None = None, claimed: bool = False
    ) -> Set[str]: ...


def write_group(handle: Handle, group: list[StoreTriples]) -> int:
    """Write one collection's messages: bulk when large (embedded), else in one transaction;
    how many quads went in a transaction."""
    quads = [q for m in group for q in m.quads]
    if len(quads) >= BULK_MIN and isinstance(handle.store, ox.Store):  # embedded backend
        # Every quad is parsed and checked already: nothing can be refused half-way. A
        # crash before it returns leaves the batch unacked: redelivered, written again.
        handle.store.bulk_extend(quads)
        return 0
    if quads:
        handle.store.extend(quads)
    return len(quads)
