"""The errors of a retrieval that finds nothing, saying why (asked of the librarian)."""

from __future__ import annotations

from typing import Any, Literal

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import LIBRARIAN, Context
from trustgraph_base.schema import LibrarianRequest, LibrarianResponse
from trustgraph_base.schema.rag import RagRequest

LOOKUP_TIMEOUT = 5.0  # seconds to wait for the librarian when explaining an empty result


SHOWN_COLLECTIONS = 5  # the user's other collections named when one is empty (a typo's)


def no_data_error(req: RagRequest, others: list[str] | None = None) -> ServiceError:
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
    ctx: Context[Any], req: RagRequest, operation: Literal["list-documents", "list-collections"]
) -> LibrarianResponse | None:
    """The librarian's answer to ``operation`` in ``req``'s scope; None when it does not
    answer within ``LOOKUP_TIMEOUT`` (the error then says less, but is still said)."""
    listing = LibrarianRequest(operation=operation, user=req.user, collection=req.collection)
    try:
        return await ctx.client(LIBRARIAN).request(
            listing, timeout=min(LOOKUP_TIMEOUT, ctx.settings.request_timeout)
        )
    except (ServiceError, RequestTimeout):
        return None


async def nothing_found_error(
    ctx: Context[Any], req: RagRequest, missing: Literal["edges", "chunks"]
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
