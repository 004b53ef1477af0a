"""Asking the store to sign a document's extraction provenance once the document is
complete (the store's ``seal-document``; docs/audit.md), and again until it has.

A document is marked ``unsealed`` when it completes (``ASKING`` while a request waits for
its answer, so a client can tell "not answered yet" from "refused") and unmarked once the
store signs it;
a store that is busy or down then signs it on a later try (every ``seal_retry_seconds``),
so a crash or a long load elsewhere never leaves a document unsigned for good.

A store that answers ``store-unavailable`` (the shard its collection is on is down: its
writes are held, not written) leaves the reason in ``held``: the document is complete but
not in the store yet, and says so (tg-load-document, tg-list-documents) until it is signed.
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
    db.execute(f"UPDATE documents SET unsealed={ASKING}" + _WHERE, key)
    try:
        await ctx.client(EXPLAIN).request(request, timeout=SEAL_TIMEOUT)
    except (RequestTimeout, ServiceError) as exc:
        log.warning("%s is complete but the store did not sign its provenance yet: %s", doc, exc)
        why = None  # a timeout or another refusal: what was said before stands
        if isinstance(exc, ServiceError) and exc.type == ErrorType.STORE_UNAVAILABLE:
            why = exc.message
        db.execute("UPDATE documents SET unsealed=1, held=COALESCE(?, held)" + _WHERE, (why, *key))
        return "timeout" if isinstance(exc, RequestTimeout) else "refused"
    db.execute("UPDATE documents SET unsealed=0, held=NULL" + _WHERE, key)
    return "signed"


async def retry_unsealed(ctx: Context[Any, Any], db: sqlite3.Connection, every: float) -> None:
    """Forever: each complete document still marked, offered again (a store that does not
    answer ends the round: it is still away)."""
    while True:
        await asyncio.sleep(every)
        rows = db.execute(
            "SELECT user, collection, id FROM documents WHERE unsealed>0 AND status='complete'"
        ).fetchall()
        for user, collection, doc in rows:
            outcome = await seal(ctx, db, Scope(user, collection), doc)
            if outcome == "timeout":
                break
            if outcome == "signed":
                log.info("%s: its provenance is signed now", doc)
