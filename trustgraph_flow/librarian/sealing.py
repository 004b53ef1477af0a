"""Asking the store to sign a document's extraction provenance once the document is
complete (the store's ``seal-document``; docs/audit.md), and again until it has.

A document is marked ``unsealed`` when it completes (``ASKING`` while a request waits for
its answer, so a client can tell "not answered yet" from "refused") and unmarked once the
store signs it;
a store that is busy or down then signs it on a later try (every ``seal_retry_seconds``),
so a crash or a long load elsewhere never leaves a document unsigned for good.

A store that answers ``store-unavailable`` (the shard its collection is on is down: its
writes are held, not written) leaves the reason in ``held``, and so does one that does not
answer in time (``SEAL_TIMEOUT``): the document is complete but the store has not confirmed
it holds its graph, and says so (tg-load-document, tg-list-documents) until it is signed:
offered again on every try, and at once when the store says it wrote the writes it held,
or that the server it refused a seal for answers again (``held-written``).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import Any

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import EXPLAIN, Context
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.librarian.store import Scope

log = logging.getLogger(__name__)
# Short: the event's ack waits for the first try, and a store that is down must not hold
# the events up (the retries then sign it).
SEAL_TIMEOUT = 5.0
_WHERE = " WHERE user=? AND collection=? AND id=?"
ASKING = 2  # unsealed: a request is out; 1: answered (or not) without a signature


async def seal(ctx: Context[Any, Any], db: sqlite3.Connection, scope: Scope, doc: str) -> str:
    """One request: ``signed``, or why not (``timeout``: the store is away; ``refused``: it
    answered with an error, e.g. the provenance is not stored yet); the document stays
    marked until it is signed."""
    request = ExplainRequest(
        operation="seal-document", id=doc, user=scope.user, collection=scope.collection
    )
    key = (scope.user, scope.collection, doc)
    unanswered = f"the store did not answer within {SEAL_TIMEOUT:g} s (busy, or away)"
    db.execute(f"UPDATE documents SET unsealed={ASKING}" + _WHERE, key)
    try:
        await ctx.client(EXPLAIN).request(request, timeout=SEAL_TIMEOUT)
    except (RequestTimeout, ServiceError) as exc:
        log.warning("%s is complete but the store did not sign its provenance yet: %s", doc, exc)
        if isinstance(exc, RequestTimeout):  # busy or away: a reason given before stands
            db.execute(
                "UPDATE documents SET unsealed=1, held=COALESCE(held, ?)" + _WHERE,
                (unanswered, *key),
            )
            return "timeout"
        # store-unavailable says why; another refusal (its provenance not all stored yet)
        # leaves a reason given before, but not "did not answer": it did
        said = exc.message if exc.type == ErrorType.STORE_UNAVAILABLE else None
        db.execute(
            "UPDATE documents SET unsealed=1, held=COALESCE(?, NULLIF(held, ?))" + _WHERE,
            (said, unanswered, *key),
        )
        return "refused"
    db.execute("UPDATE documents SET unsealed=0, held=NULL" + _WHERE, key)
    return "signed"


async def retry_unsealed(ctx: Context[Any, Any], db: sqlite3.Connection, every: float) -> None:
    """Forever: each complete document still marked, offered again."""
    while True:
        await asyncio.sleep(every)
        await offer(ctx, db)


async def offer(ctx: Context[Any, Any], db: sqlite3.Connection, scope: Scope | None = None) -> None:
    """Each complete document still marked (``scope``: of that collection) offered again; a
    store that does not answer ends the round: it is still away. Also when the store says it
    wrote what it held for a shard that was down (``held-written``): signed then, not up to
    ``seal_retry_seconds`` later."""
    where = "" if scope is None else " AND user=? AND collection=?"
    rows = db.execute(
        "SELECT user, collection, id FROM documents WHERE unsealed>0 AND status='complete'" + where,
        () if scope is None else (scope.user, scope.collection),
    ).fetchall()
    for user, collection, doc in rows:
        outcome = await seal(ctx, db, Scope(user, collection), doc)
        if outcome == "timeout":
            break
        if outcome == "signed":
            log.info("%s: its provenance is signed now", doc)
