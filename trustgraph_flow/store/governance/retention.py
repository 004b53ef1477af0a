"""Retention: purge top-level traces (with their sub-traces) older than a period.

By request (explain ``purge-traces``) or by itself: with the store setting ``retention``
(e.g. ``TG_RETENTION=30d``) the processor purges every collection on disk once per
``retention_interval`` seconds. A trace's age is its question's ``prov:startedAtTime``;
traces without one are never purged by age.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.explain import TraceSummary
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.governance.deletion import delete_trace
from trustgraph_flow.store.governance.seal import Seal

log = logging.getLogger(__name__)


def cutoff(older_than: float, now: datetime | None = None) -> str:
    """The ``sort_time`` (UTC, sortable text) before which a trace is older than ``older_than`` s."""
    when = (now or datetime.now(UTC)) - timedelta(seconds=older_than)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def expired(handle: Handle, older_than: float) -> list[TraceSummary]:
    """The top-level traces started before the cutoff, oldest first (one partial-index range scan)."""
    out = []
    for trace_id in handle.index.expired(cutoff(older_than)):
        row = handle.index.get(str(trace_id))
        if row is not None:
            out.append(
                TraceSummary(
                    id=row.id,
                    type=row.kind,
                    question=row.question,
                    time=row.time,
                    status=row.status,
                )
            )
    return out


def purge(
    handle: Handle | None, older_than: float, *, dry_run: bool, seal: Seal | None = None
) -> list[TraceSummary]:
    """Delete (or, dry run, only list) the expired traces of one collection; the ones this
    call removed (a trace another replica removed first is skipped, not an error)."""
    if handle is None:
        return []
    found = expired(handle, older_than)
    if dry_run:
        return found
    gone = []
    for trace in found:
        try:
            delete_trace(
                handle, trace.id, seal, f"retention: started more than {older_than:.0f} s before"
            )
        except ServiceError as exc:
            if exc.type != ErrorType.NOT_FOUND:
                raise
            continue  # removed meanwhile: another store replica's pass (or a request) took it
        gone.append(trace)
    return gone


def purge_all(stores: Backend, older_than: float, seal: Seal | None = None) -> int:
    """Apply the retention period to every collection on disk; the number of traces removed."""
    removed = 0
    found, down = stores.reached()
    for line in down:
        log.warning("retention: %s; its collections are purged at a later pass", line)
    for user, collection in found:
        with stores.lease(user, collection) as handle:
            gone = purge(handle, older_than, dry_run=False, seal=seal)
        if gone:
            log.info(
                "retention: removed %d traces older than %.0f s from %s/%s",
                len(gone),
                older_than,
                user,
                collection,
            )
        removed += len(gone)
    return removed
