"""The trace list's rules, the same whichever index stores it: what a row holds when a fact is
missing, what a filter keeps, and how a page ends (its cursor).

The sqlite index (``embedded/trace_index.py``) states the filter in SQL (``STATUS``, every
value a parameter) and reads rows in key order from its table; the graph index
(``server/graph_index.py``) walks its time buckets and applies ``matches``. Both build rows
with ``trace_row`` and end a page with ``page_of``. A page's key is ``(sort key, id)``, newest
first; ``after`` is the last key of the page before, exclusive.
"""

from __future__ import annotations

from trustgraph_base.provenance.uris import trace_kind
from trustgraph_flow.store.core.rows import TraceFilter, TraceRow

Cursor = tuple[str, str]  # (sort key, trace id) of a page's last row

# Each status as (complete, failed) columns: None matches any value.
STATUS: dict[str, tuple[int, int | None]] = {
    "complete": (1, None),
    "failed": (0, 1),
    "interrupted": (0, 2),
    "in-progress": (0, 0),
}


def trace_row(
    trace_id: str,
    kind: object,
    question: object,
    time: object,
    parent: object,
    complete: object,
    failed: object,
) -> TraceRow:
    """A row from stored values, any of them missing (None or ""): the kind then read from
    the trace's URI, the failure as 0."""
    return TraceRow(
        trace_id,
        str(kind) if kind else (trace_kind(trace_id) or "agent"),
        str(question or ""),
        str(time or ""),
        str(parent) if parent else None,
        bool(complete),
        int(str(failed or 0)),
    )


def in_window(key: str, flt: TraceFilter) -> bool:
    """Whether a sort key lies in the filter's time window (``since`` in, ``until`` out)."""
    return not (flt.since and key < flt.since) and not (flt.until and key >= flt.until)


def matches(key: str, row: TraceRow, flt: TraceFilter) -> bool:
    """Whether the filter keeps a row (its sort key ``key``)."""
    if flt.kind and row.kind != flt.kind:
        return False
    if flt.status and row.status != flt.status:
        return False
    if not in_window(key, flt):
        return False
    return not flt.search or flt.search.casefold() in row.question.casefold()


def page_of(found: list[tuple[str, TraceRow]], limit: int) -> tuple[list[TraceRow], Cursor | None]:
    """A page of ``limit`` rows from ``limit + 1`` found in order (key, row), and its cursor
    when there is more."""
    rows = [row for _, row in found[:limit]]
    more = len(found) > limit and rows
    return rows, ((found[limit - 1][0], rows[-1].id) if more else None)
