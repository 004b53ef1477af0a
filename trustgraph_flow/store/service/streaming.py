"""A long trace streamed in replies of agent steps, the next piece read while one is sent."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator

from trustgraph_base import gcpause
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse, TraceView
from trustgraph_base.wire import encode, keep_encoding
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.service import state
from trustgraph_flow.store.service.arriving import arrived
from trustgraph_flow.store.service.state import Ctx, checked, read
from trustgraph_flow.store.views import explain

STREAM_STEPS = 500  # agent steps in a streamed get-trace's first reply (unless step_limit says)
STREAM_MAX_STEPS = 4000  # later replies double up to this: fewer hops for a long trace


def stream_spans(offset: int, total: int, fixed: int | None) -> list[tuple[int, int]]:
    """The step ranges of a streamed trace's replies: ``fixed`` steps each when the request
    says, else ``STREAM_STEPS`` first (shown at once), then twice as many each time up to
    ``STREAM_MAX_STEPS`` (a 20,000-step trace in 8 replies, not 40: each reply is a few
    hops between processes, and on a loaded machine every hop waits for the scheduler)."""
    spans: list[tuple[int, int]] = []
    start, size = offset, fixed or STREAM_STEPS
    while start < total:
        spans.append((start, min(start + size, total)))
        start += size
        if fixed is None:
            size = min(size * 2, STREAM_MAX_STEPS)
    return spans or [(0, 0)]


async def stream_trace(ctx: Ctx, req: ExplainRequest) -> AsyncIterator[ExplainResponse]:
    """A trace in replies of agent steps (``stream_spans``), the next read on a reader
    thread while one travels; a piece too large for one reply is sent as two halves.

    No cyclic collection while the pieces are read and sent: each piece's ~10^5 objects
    are freed by reference counting once it is sent, but the collector, let back in after
    each window was built, walked them all first (and the clock's full collection waits).
    """
    lease = contextlib.ExitStack()
    last: ExplainResponse | None = None
    ahead: dict[tuple[int, int], asyncio.Future[TraceView]] = {}

    def fetch(span: tuple[int, int]) -> asyncio.Future[TraceView]:
        if span not in ahead:
            work = functools.partial(piece, reader, *span)
            ahead[span] = asyncio.ensure_future(read(ctx, work))
        return ahead[span]

    try:
        reader = await arrived(req, ctx, lambda: read(ctx, lambda s: opened(lease, s, req)))
        lease.enter_context(gcpause.gc_paused())
        pending = stream_spans(req.step_offset or 0, reader.total, req.step_limit)
        while pending:
            span = pending.pop(0)
            view = await fetch(span)
            del ahead[span]
            if pending:
                fetch(pending[0])  # read while this piece is encoded and sent
            resp = ExplainResponse(trace=view, step_total=reader.total, end_of_stream=not pending)
            data = encode(resp)
            size = len(data)
            keep_encoding(resp, data)  # sent as encoded here, not serialised again
            if span[1] - span[0] > 1 and size > state.MAX_REPLY_BYTES:
                middle = (span[0] + span[1]) // 2
                pending[:0] = [(span[0], middle), (middle, span[1])]
                continue
            if size > state.MAX_REPLY_BYTES:
                checked(resp)  # one step alone over the limit: refused, naming the fix
            if not pending:
                last = resp
            else:
                yield resp
    finally:
        # A piece still being read holds the lease: wait for it before letting go.
        await asyncio.gather(*ahead.values(), return_exceptions=True)
        lease.close()
    if last is not None:  # after the lease ends: the runtime stops reading at the last reply
        yield last


def opened(
    lease: contextlib.ExitStack, stores: Backend, req: ExplainRequest
) -> explain.TraceReader:
    """The trace's reader on a lease kept for the stream (in ``lease``); a read that fails is
    passed through the lease as a ``with`` block passes it, so a sharded store names the
    shard whose server failed ("shard 'c' is unreachable: …", as every other view)."""
    with contextlib.ExitStack() as mine:
        handle = mine.enter_context(stores.lease(req.user, req.collection, as_empty=True))
        reader = explain.open_trace(handle, req.id, req.include_provenance)
        lease.enter_context(mine.pop_all())  # found: held until the stream ends
        return reader


def piece(reader: explain.TraceReader, start: int, stop: int, _: Stores) -> TraceView:
    """Steps ``start`` to ``stop`` of a trace being streamed (on a reader thread)."""
    return reader.window(start, stop)
