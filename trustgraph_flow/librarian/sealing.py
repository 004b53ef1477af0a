"""Asking the store to sign a document's extraction provenance once the document is
complete (the store's ``seal-document``; docs/audit.md)."""

from __future__ import annotations

import logging

from trustgraph_base.errors import RequestTimeout, ServiceError
from trustgraph_base.messaging import EXPLAIN
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.librarian.state import Ctx
from trustgraph_flow.librarian.store import Scope

log = logging.getLogger(__name__)
# Short: the event's ack waits for it, and a store that is down must not hold the events up
# (the document is then left unsigned, logged; the trace of every answer is signed anyway).
SEAL_TIMEOUT = 5.0


async def seal(ctx: Ctx, scope: Scope, doc: str) -> None:
    """One request; a store that does not answer (or signs nothing) leaves it unsigned, logged."""
    request = ExplainRequest(
        operation="seal-document", id=doc, user=scope.user, collection=scope.collection
    )
    try:
        await ctx.client(EXPLAIN).request(request, timeout=SEAL_TIMEOUT)
    except (RequestTimeout, ServiceError) as exc:
        log.warning("%s is complete but the store did not sign its provenance: %s", doc, exc)
