"""The trace list (newest first, a page with its cursor and filters) and finding one trace by id
or URI (``resolve``), as the explain views and the operations read them."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance.uris import (
    is_session_id,
    session_trace_uris,
    trace_kind,
    trace_root,
)
from trustgraph_base.rdf.terms import check_iri
from trustgraph_base.schema.explain import (
    ExplainRequest,
    TraceSummary,
)
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.core.rows import TraceFilter, TraceRow, sort_key


def list_traces(handle: Handle | None, limit: int) -> list[TraceSummary]:
    """The newest top-level traces (sub-traces excluded), newest first."""
    if handle is None:
        return []
    return [summary_of(r) for r in handle.index.newest(limit)]


def page_traces(
    handle: Handle | None, req: ExplainRequest
) -> tuple[list[TraceSummary], str | None]:
    """One page of the trace list, narrowed by the request's filters, and the next page's cursor."""
    flt, after = request_filter(req)
    if handle is None:
        return [], None
    rows, last = handle.index.page(req.limit, flt, after)
    return [summary_of(r) for r in rows], encode_cursor(last) if last else None


def request_filter(req: ExplainRequest) -> tuple[TraceFilter, tuple[str, str] | None]:
    """What the request narrows the list to, and the key its cursor resumes after."""
    flt = TraceFilter(
        search=req.search or "",
        kind=req.type,
        status=req.status,
        since=_instant("since", req.since),
        until=_instant("until", req.until),
    )
    if flt.since and flt.until and flt.since > flt.until:  # the two dates swapped, likely
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"since {req.since!r} is after until {req.until!r}: the window holds no time",
        )
    return flt, _decode_cursor(req.cursor) if req.cursor else None


def summary_of(r: TraceRow) -> TraceSummary:
    return TraceSummary(id=r.id, type=r.kind, question=r.question, time=r.time, status=r.status)


def _instant(name: str, value: str | None) -> str | None:
    if not value:
        return None
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"{name} {value!r} is not a date-time (e.g. 2026-01-31T12:00:00Z)",
        ) from None
    return sort_key(value)


def encode_cursor(last: tuple[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(last)).encode()).decode()


def _decode_cursor(cursor: str) -> tuple[str, str]:
    try:
        key, last = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if isinstance(key, str) and isinstance(last, str):
            return key, last
    except (ValueError, TypeError, binascii.Error):
        pass
    raise ServiceError(
        ErrorType.BAD_REQUEST, "malformed cursor: pass back the cursor of the previous page"
    )


def candidates(trace_id: str) -> list[str]:
    """The question URIs an id may name: a trace URI itself, or a bare session id under each prefix."""
    if trace_kind(trace_id) is not None:
        try:
            check_iri(trace_id)
        except ValueError as exc:
            raise ServiceError(ErrorType.BAD_REQUEST, f"malformed trace id: {exc}") from None
        return [trace_id]
    if is_session_id(trace_id):
        return session_trace_uris(trace_id)
    raise ServiceError(
        ErrorType.BAD_REQUEST,
        f"malformed trace id {trace_id!r}: expected a trace URI (urn:trustgraph:agent:…, "
        "urn:trustgraph:question:…, urn:trustgraph:docrag:…) or a session id",
    )


def resolve(handle: Handle | None, trace_id: str) -> str:
    """The question URI of a trace, or ServiceError not-found."""
    return resolve_row(handle, trace_id).id


def resolve_row(handle: Handle | None, trace_id: str) -> TraceRow:
    """The index row of a trace, or ServiceError not-found."""
    options = candidates(trace_id)
    if handle is not None:
        for uri in options:
            if (row := handle.index.get(uri)) is not None:
                return row
    raise ServiceError(ErrorType.NOT_FOUND, f"no trace {trace_id!r} in this collection")


def list_one(handle: Handle | None, trace_id: str) -> TraceSummary:
    """The list row of one trace (not-found as ``resolve``)."""
    root = resolve(handle, trace_id)
    assert handle is not None
    r = handle.index.get(root)
    assert r is not None
    return TraceSummary(id=r.id, type=r.kind, question=r.question, time=r.time, status=r.status)


def top_level(handle: Handle, row: TraceRow) -> str:
    """The top-level trace a (sub-)trace belongs to, up its parents' chain (the trace itself
    when it has no parent; its parent's trace when that is not indexed yet)."""
    top, seen = row, {row.id}
    while top.parent is not None:
        up = trace_root(top.parent) or top.parent
        found = handle.index.get(up)
        if found is None or found.id in seen:
            return up
        top = found
        seen.add(top.id)
    return top.id
