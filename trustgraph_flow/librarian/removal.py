"""Removing a document: from the vector index and the graph store first, then here."""

from __future__ import annotations

import asyncio
import logging

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import EXPLAIN, VECTORS
from trustgraph_base.schema import (
    ExplainRequest,
    LibrarianRequest,
    LibrarianResponse,
    VectorRequest,
)
from trustgraph_flow.librarian.state import Ctx, named
from trustgraph_flow.librarian.store import Scope

log = logging.getLogger(__name__)


async def remove(req: LibrarianRequest, scope: Scope, ctx: Ctx) -> LibrarianResponse:
    """Ask the vector index and the store to forget the document, then drop our own data.

    Downstream removals go first so that an unreachable service leaves the document
    listed (and the removal can be retried) rather than orphaning its vectors.
    """
    documents = ctx.state.store.documents
    doc = named(req, "remove-document")
    info = documents.require(scope, doc)
    timeout = ctx.settings.removal_timeout
    where = {"user": scope.user, "collection": scope.collection}
    try:
        for kind in ("chunk", "entity"):
            await ctx.client(VECTORS).request(
                VectorRequest(operation="delete-document", document=doc, kind=kind, **where),
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
                **where,
            ),
            timeout=timeout,
        )
        removal = answer.removal
    except RequestTimeout as exc:
        raise ServiceError(
            ErrorType.UNAVAILABLE,
            f"could not remove {doc!r} from the graph store ({exc}); retry later",
        ) from None
    except ServiceError as exc:
        # The store may not know the document (nothing was extracted): nothing to remove.
        log.warning("store did not remove %s: %s", doc, exc)
    await asyncio.to_thread(documents.remove, scope, doc)
    return LibrarianResponse(document=info, removal=removal)
