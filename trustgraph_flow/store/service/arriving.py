"""A trace read at once after its answer: waited for while its messages are on their way.

A ``tg-invoke-*`` command prints a trace id when the answer comes; the trace's messages are
persisted by the broker before that answer, but the store writes them in its next batch,
and on a loaded machine that can be a moment after the id is read. So a read of one trace
(``ONE_TRACE``) that is not found, for a well-formed id (a malformed one is bad-request,
answered at once) in a collection the store holds, is asked again with backoff for up to
the store's ``trace_wait`` seconds (the request's ``wait``, when it sets one, shortens it:
a probe in the user's other collections waits for nothing). Only the first look and the
collection check hold a reader thread; the waits between are the event loop's. Past the
wait the not-found stands, as before. A user with ``WAITS_A_USER`` reads waiting (or all
users with ``WAITS``) is answered at once: unknown ids asked in a loop hold few of the
service's requests.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TypeVar

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.service.state import Ctx, read
from trustgraph_flow.store.views import traces

log = logging.getLogger(__name__)
T = TypeVar("T")

# The explain operations that read (or delete) traces named by id.
ONE_TRACE = frozenset({"get-trace", "export-trace", "verify-trace", "diff-traces", "delete-trace"})
FIRST_PAUSE = 0.05  # seconds before the second look; each pause doubles, up to LONGEST_PAUSE
LONGEST_PAUSE = 0.8


def waited(req: ExplainRequest, ctx: Ctx) -> float:
    """How long a not-found ``req`` may wait for its trace: 0 unless it reads one trace."""
    if req.operation not in ONE_TRACE:
        return 0.0
    limit = ctx.settings.trace_wait
    return limit if req.wait is None else min(req.wait, limit)


async def arrived(req: ExplainRequest, ctx: Ctx, attempt: Callable[[], Awaitable[T]]) -> T:
    """``attempt()``'s answer; a not-found for a trace of ``ONE_TRACE`` in a collection the
    store holds is asked again (pauses doubling from ``FIRST_PAUSE``) until found or
    ``waited`` seconds have passed, then raised as it came."""
    try:
        return await attempt()
    except ServiceError as exc:
        if exc.type != ErrorType.NOT_FOUND or (limit := waited(req, ctx)) <= 0:
            raise
        if crowded(req.user):
            raise  # too many reads waiting: told at once
        missing = exc
    _waiting[req.user] += 1
    try:
        if not await read(ctx, lambda stores: held(stores, req)):
            raise missing  # no such collection: a mistyped -C is told at once
        return await again(req, ctx, attempt, limit, missing)
    finally:
        _waiting[req.user] -= 1
        if not _waiting[req.user]:
            del _waiting[req.user]


async def again(
    req: ExplainRequest,
    ctx: Ctx,
    attempt: Callable[[], Awaitable[T]],
    limit: float,
    missing: Exception,
) -> T:
    """``attempt()`` after pauses doubling from ``FIRST_PAUSE`` up to ``LONGEST_PAUSE``,
    until it finds the trace or ``limit`` seconds have passed (then ``missing``); a delete
    only once a reader has found the trace."""
    log.debug("trace %r of %s/%s not stored yet: waiting", req.id, req.user, req.collection)
    loop = asyncio.get_running_loop()
    deadline, pause = loop.time() + limit, FIRST_PAUSE
    while (left := deadline - loop.time()) > 0:
        await asyncio.sleep(min(pause, left))
        pause = min(pause * 2, LONGEST_PAUSE)
        if req.operation == "delete-trace" and not await read(ctx, lambda s: stored(s, req)):
            continue
        try:
            return await attempt()
        except ServiceError as exc:
            if exc.type != ErrorType.NOT_FOUND:
                raise
            missing = exc
    raise missing


# A wait holds one of the service's requests at once (service_concurrency, 64): so that one
# user asking for unknown ids in a loop holds few, and no crowd of users holds them all,
# past these many waits at once a not-found is answered at once, as before.
WAITS_A_USER = 8
WAITS = 32
_waiting: Counter[str] = Counter()  # the reads waiting now, by user (in this process)


def crowded(user: str) -> bool:
    """Whether ``user`` (or everyone together) has as many reads waiting as may wait."""
    return _waiting[user] >= WAITS_A_USER or _waiting.total() >= WAITS


def stored(stores: Backend, req: ExplainRequest) -> bool:
    """Whether the request's collection holds its trace (on a reader thread)."""
    with stores.lease(req.user, req.collection) as handle:
        try:
            traces.resolve_row(handle, req.id)
        except ServiceError:
            return False
    return True


def held(stores: Backend, req: ExplainRequest) -> bool:
    """Whether the store holds the request's collection (on a reader thread)."""
    with stores.lease(req.user, req.collection) as handle:
        return handle is not None
