"""The errors of a retrieval that finds nothing, saying why (asked of the librarian)."""

from __future__ import annotations

from typing import Any, Literal

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import LIBRARIAN, Context
from trustgraph_base.schema import LibrarianRequest
from trustgraph_base.schema.rag import RagRequest

LOOKUP_TIMEOUT = 5.0  # seconds to wait for the librarian when explaining an empty result


def no_data_error(req: RagRequest) -> ServiceError:
    """The error for a collection with nothing to retrieve from."""
    return ServiceError(
        ErrorType.NO_DATA,
        f"collection {req.collection!r} of user {req.user!r} has no documents; "
        "load some with tg-load-document",
    )


async def nothing_found_error(
    ctx: Context[Any], req: RagRequest, missing: Literal["edges", "chunks"]
) -> ServiceError:
    """The error when retrieval finds nothing, saying why: no documents, documents still
    being processed, or documents from which nothing was extracted (asked of the librarian;
    if it does not answer, the plain ``no_data_error``)."""
    listing = LibrarianRequest(operation="list-documents", user=req.user, collection=req.collection)
    try:
        found = await ctx.client(LIBRARIAN).request(
            listing, timeout=min(LOOKUP_TIMEOUT, ctx.settings.request_timeout)
        )
    except (ServiceError, RequestTimeout):
        return no_data_error(req)
    docs = found.documents
    if not docs:
        return no_data_error(req)
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
