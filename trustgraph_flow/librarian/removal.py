"""Removing a document: from the vector index and the graph store first, then here."""

from __future__ import annotations

import asyncio
import logging

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import EXPLAIN, LOADS_REMOVED, VECTORS
from trustgraph_base.schema import (
    ExplainRequest,
    LibrarianRequest,
    LibrarianResponse,
    LoadsRemoved,
    VectorRequest,
)
from trustgraph_flow.librarian.state import Ctx, named
from trustgraph_flow.librarian.store import Scope

log = logging.getLogger(__name__)


async def remove(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """Ask the vector index and the store to forget the document, then drop our own data.

    Downstream removals go first so that an unreachable service leaves the document
    listed (and the removal can be retried) rather than orphaning its vectors. Each records
    that the document's loads so far are removed before it deletes, and refuses their later
    writes: work still in flight for a load in progress leaves nothing behind
    (``removed_loads``). The chunker and extractor are told first, to stop early.
    """
    documents = ctx.state.store.documents
    doc = named(req, "remove-document")
    info = documents.require(scope, doc)
    timeout = ctx.settings.removal_timeout
    where = {"user": scope.user, "collection": scope.collection}
    upto = ctx.state.clock.next()  # every load of it so far, none started after
    await ctx.publish(LOADS_REMOVED, LoadsRemoved(document=doc, upto=upto, **where))
    try:
        for kind in ("chunk", "entity"):
            await ctx.client(VECTORS).request(
                VectorRequest(
                    operation="delete-document", document=doc, kind=kind, upto=upto, **where
                ),
                timeout=timeout,
            )
    except (RequestTimeout, ServiceError) as exc:
        raise ServiceError(
            ErrorType.UNAVAILABLE,
            f"could not remove {doc!r} from the vector index ({exc}); retry later",
        ) from None
    removal = None
    try:
        answer = await ctx.client(EXPLAIN).request(
            ExplainRequest(
                operation="delete-document",
                id=doc,
                purge_traces=req.purge_traces,
                reason=req.reason,
                upto=upto,
                **where,
            ),
            timeout=timeout,
        )
        removal = answer.removal
    except (RequestTimeout, ServiceError) as exc:
        # Not found: nothing of it was written yet. Else it stays listed, to be removed again.
        if not isinstance(exc, ServiceError) or exc.type != ErrorType.NOT_FOUND:
            raise ServiceError(
                ErrorType.UNAVAILABLE,
                f"could not remove {doc!r} from the graph store ({exc}); retry later",
            ) from None
        log.info("the store holds nothing of %s yet", doc)
    ctx.state.removed.add(scope.user, scope.collection, doc, upto)  # its late events: ignored
    await asyncio.to_thread(documents.remove, scope, doc)
    return LibrarianResponse(document=info, removal=removal)
