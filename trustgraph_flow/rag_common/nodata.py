"""The errors of a retrieval that finds nothing, saying why (asked of the librarian), and
the refusal of a question to a collection that does not exist."""

from __future__ import annotations

import time
from typing import Any, Literal
from weakref import WeakKeyDictionary

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import EXPLAIN, LIBRARIAN, Context
from trustgraph_base.schema import DEFAULT_COLLECTION, LibrarianRequest, LibrarianResponse
from trustgraph_base.schema.core import Scoped
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_base.schema.rag import RagRequest
from trustgraph_flow.rag_common.seen import SeenCollections

LOOKUP_TIMEOUT = 5.0  # seconds to wait for the librarian when explaining an empty result
PROBE_TIMEOUT = 2.0  # before a question: then it goes ahead (a stack without a librarian)


QUIET_FOR = 30.0  # seconds the librarian is not asked again after it did not answer
# Per request client (one a processor's context): the monotonic time to ask again after.
_quiet_until: WeakKeyDictionary[object, float] = WeakKeyDictionary()

SHOWN_COLLECTIONS = 5  # the user's other collections named when one is empty (a typo's)


def no_data_error(req: Scoped, others: list[str] | None = None) -> ServiceError:
    """The error for a collection with nothing to retrieve from; ``others``: the user's
    collections that are not it, named so that a mistyped ``-C`` shows the right one."""
    hint = ""
    if others:
        shown = ", ".join(others[:SHOWN_COLLECTIONS])
        more = len(others) - SHOWN_COLLECTIONS
        rest = f" and {more} more (tg-list-collections)" if more > 0 else ""
        hint = f", or ask in one of the user's collections: {shown}{rest}"
    return ServiceError(
        ErrorType.NO_DATA,
        f"collection {req.collection!r} of user {req.user!r} has no documents; "
        f"load some with tg-load-document{hint}",
    )


async def ask_librarian(
    ctx: Context[Any],
    req: Scoped,
    operation: Literal["list-documents", "list-collections"],
    wait: float = LOOKUP_TIMEOUT,
) -> LibrarianResponse | None:
    """The librarian's answer to ``operation`` in ``req``'s scope; None when it does not
    answer within ``wait`` seconds (the error then says less, but is still said), and
    at once for ``QUIET_FOR`` seconds after that: a question is not kept waiting twice."""
    client = ctx.client(LIBRARIAN)
    if time.monotonic() < _quiet_until.get(client, 0.0):
        return None
    listing = LibrarianRequest(operation=operation, user=req.user, collection=req.collection)
    try:
        return await client.request(listing, timeout=min(wait, ctx.settings.request_timeout))
    except RequestTimeout:
        _quiet_until[client] = time.monotonic() + QUIET_FOR
        return None
    except ServiceError:
        return None


async def nothing_found_error(
    ctx: Context[Any], req: Scoped, missing: Literal["edges", "chunks"]
) -> ServiceError:
    """The error when retrieval finds nothing, saying why: no documents (and which other
    collections the user has: a mistyped ``-C``), documents still being processed, or
    documents from which nothing was extracted (asked of the librarian; if it does not
    answer, the plain ``no_data_error``)."""
    found = await ask_librarian(ctx, req, "list-documents")
    if found is None:
        return no_data_error(req)
    if not found.documents:
        listed = await ask_librarian(ctx, req, "list-collections")
        names = [c.collection for c in listed.collections] if listed else []
        return no_data_error(req, [c for c in names if c != req.collection])
    docs = found.documents
    noun = "document" if len(docs) == 1 else "documents"
    what = "knowledge edges were extracted" if missing == "edges" else "text chunks were indexed"
    where = f"collection {req.collection!r} of user {req.user!r}"
    busy = sum(d.status in ("uploading", "processing") for d in docs)
    if busy:
        hint = f"{busy} of them still being processed: ask again when tg-list-documents shows them complete"
    elif missing == "edges":
        hint = (
            "the LLM found no facts in them (tg-list-documents shows each document's edges "
            "and errors); tg-invoke-document-rag answers from their text"
        )
    else:
        hint = "tg-list-documents shows each document's status and errors"
    return ServiceError(
        ErrorType.NO_DATA, f"no {what} from the {len(docs)} {noun} in {where} ({hint})"
    )


async def refuse_unknown_collection(ctx: Context[Any], req: Scoped) -> None:
    """Refuse a question to a collection that does not exist (nothing stored, no document
    being loaded, not described: a mistyped ``-C``) before its trace is written, so asking
    leaves no collection behind; an existing one that finds nothing is traced as before.
    Not asked: the default collection, a sub-trace's (its parent's trace is there), and one
    this process saw exist and has not heard deleted since (``seen.py``).
    When the store or the librarian does not answer, the question goes ahead."""
    key, store = (req.user, req.collection), ctx.client(EXPLAIN)
    seen = SeenCollections.of(ctx, EXPLAIN)
    sub = isinstance(req, RagRequest) and bool(req.parent_uri)
    if req.collection == DEFAULT_COLLECTION or sub or key in seen:
        return
    heard = seen.heard
    asked = ExplainRequest(operation="list-collections", user=req.user, collection=req.collection)
    try:
        stored = await store.request(
            asked, timeout=min(PROBE_TIMEOUT, ctx.settings.request_timeout)
        )
    except (ServiceError, RequestTimeout):
        return
    if stored.unreachable:  # a store shard is down: the collection may be on it
        return
    if req.collection not in stored.collections:
        # The librarian knows a collection whose first document is being loaded right now.
        listed = await ask_librarian(ctx, req, "list-collections", PROBE_TIMEOUT)
        if listed is None:
            return
        names = {c.collection for c in listed.collections} | set(stored.collections)
        if req.collection not in names:
            raise no_data_error(req, sorted(names))
    seen.keep(key, heard)
