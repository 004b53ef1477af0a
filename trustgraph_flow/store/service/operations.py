"""The explain service's operations on a collection: views on reader threads, deletions and
purges on the writer thread, a long trace streamed in pieces (``streaming.py``)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.integrity.keys import public_pem
from trustgraph_base.messaging import (
    COLLECTION_DELETED,
    LOADS_REMOVED,
)
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.schema.documents import CollectionDeleted, LoadsRemoved
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_flow.removed_loads import RemovedLoads
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.governance import (
    attest,
    deletion,
    documents,
    erasure,
    log_pages,
    retention,
    verify,
)
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.service import intake
from trustgraph_flow.store.service.arriving import arrived
from trustgraph_flow.store.service.state import Ctx, checked, read, write
from trustgraph_flow.store.service.streaming import stream_trace
from trustgraph_flow.store.views import (
    diff,
    explain,
    export,
    hierarchy,
    lineage,
    removals,
    traces,
    verdicts,
)

WRITES = frozenset(
    {
        "delete-trace",
        "delete-document",
        "delete-collection",
        "purge-traces",
        "seal-document",
        "seal-bundle",
    }
)


def explain_op(
    stores: Backend,
    req: ExplainRequest,
    seal: Seal | None = None,
    removed: RemovedLoads | None = None,
) -> ExplainResponse:
    """One explain operation against the caller's collection. A removal (of a collection,
    or of a document with the loads ``upto`` a number) first records the loads it removes,
    on the writer thread: their messages still in flight are not written after it."""
    if removed is not None and req.upto is not None and req.operation in REMOVALS:
        document = doc_iri(req.id) if req.operation == "delete-document" else ""
        removed.add(req.user, req.collection, document, req.upto)
    if req.operation == "delete-collection":
        stores.drop(req.user, req.collection)
        if seal is not None:
            seal.forget((req.user, req.collection))
        return ExplainResponse()
    if req.operation == "list-collections":  # a shard that is down: the others', and it named
        found, down = stores.reached()
        mine = {collection for user, collection in found if user == req.user}
        return ExplainResponse(collections=sorted(mine), unreachable=down)
    # A read answers an absent collection as an empty one (the server backend then skips
    # its registry lookup); a deletion must know.
    with stores.lease(req.user, req.collection, as_empty=req.operation not in WRITES) as handle:
        return on_collection(handle, req, seal)


REMOVALS = frozenset({"delete-document", "delete-collection"})


def on_collection(
    handle: Handle | None, req: ExplainRequest, seal: Seal | None = None
) -> ExplainResponse:
    if req.operation == "list-traces":
        pager = verdicts.page_by_verdict if req.verdict else traces.page_traces
        found, cursor = pager(handle, req)
        return ExplainResponse(traces=found, cursor=cursor)
    if req.operation == "faithfulness":
        return ExplainResponse(faithfulness=verdicts.faithfulness(handle, req))
    if req.operation == "purge-traces":
        if req.older_than is None:
            raise ServiceError(ErrorType.BAD_REQUEST, "purge-traces needs older_than (seconds)")
        gone = retention.purge(handle, req.older_than, dry_run=req.dry_run, seal=seal)
        return ExplainResponse(deleted=gone[: req.limit], count=len(gone))
    if req.operation == "seal-document":
        signed = documents.seal_document(handle, seal, doc_iri(req.id))
        return ExplainResponse(count=1 if signed else 0)
    if req.operation == "seal-bundle":
        sealed = attest.seal_bundle(handle, seal, req.id, req.reason)
        return ExplainResponse(export=sealed, media_type="application/json")
    if req.operation == "export-document":
        text, after = attest.export_document(handle, doc_iri(req.id), req.cursor)
        return ExplainResponse(export=text, media_type="application/trig", cursor=after or None)
    if req.operation in ("audit-log", "verify-log") and req.cursor is not None:
        return log_page(handle, req, seal)
    if req.operation == "audit-log":
        return ExplainResponse(export=verify.audit_log(handle, seal), media_type="application/json")
    if req.operation in ("verify-trace", "verify-log"):
        return ExplainResponse(verification=verify.answer(handle, req.operation, req.id, seal))
    if not req.id:
        raise ServiceError(ErrorType.BAD_REQUEST, f"operation {req.operation!r} needs an id")
    if req.operation == "get-trace" and req.step_limit is not None:
        view, total = explain.get_trace_window(
            handle, req.id, req.include_provenance, req.step_offset or 0, req.step_limit
        )
        return ExplainResponse(trace=view, step_total=total)
    if req.operation == "get-trace":
        return ExplainResponse(trace=explain.get_trace(handle, req.id, req.include_provenance))
    if req.operation == "delete-trace":
        row = traces.resolve_row(handle, req.id)
        assert handle is not None  # resolve_row found the trace
        if (top := traces.top_level(handle, row)) != row.id:  # alone, its caller keeps a
            raise ServiceError(  # step whose evidence is gone
                ErrorType.FORBIDDEN,
                f"{row.id} is a sub-trace of {top}: delete that trace (its sub-traces go with it)",
            )
        summary = traces.list_one(handle, req.id)
        deletion.delete_trace(handle, req.id, seal)
        return ExplainResponse(deleted=[summary], count=1)
    if req.operation == "delete-document":
        report = (
            erasure.remove_document(
                handle,
                doc_iri(req.id),
                reason=req.reason,
                purge_traces=req.purge_traces,
                seal=seal,
            )
            if handle
            else None
        )
        if report is None:
            raise ServiceError(ErrorType.NOT_FOUND, f"no document {req.id!r} in this collection")
        return ExplainResponse(removal=report)
    if req.operation == "export-trace":
        text, media_type = export.export_trace(handle, req.id, req.format, rdf_11=req.rdf11)
        return ExplainResponse(export=text, media_type=media_type)
    if req.operation == "diff-traces":
        if not req.other:
            raise ServiceError(ErrorType.BAD_REQUEST, "diff-traces needs other (the second trace)")
        return ExplainResponse(diff=diff.diff_traces(handle, req.id, req.other))
    if req.operation == "source-usage":
        chars = None if req.char_start is None else (req.char_start, req.char_end)
        return ExplainResponse(usage=lineage.source_usage(handle, req.id, req.limit, chars))
    if req.operation != "document-hierarchy":
        raise ServiceError(ErrorType.BAD_REQUEST, f"unknown operation {req.operation!r}")
    store = handle.store if handle else None
    window = hierarchy.document_window(store, doc_iri(req.id), req.chunk_offset, req.chunk_limit)
    if window is None or handle is None:
        raise ServiceError(ErrorType.NOT_FOUND, removals.not_here(store, doc_iri(req.id), req.id))
    document = lineage.with_usage(handle, window.view, window.page_chunks)
    return ExplainResponse(document=document, chunk_total=window.total)


def log_page(handle: Handle | None, req: ExplainRequest, seal: Seal | None) -> ExplainResponse:
    """``audit-log`` or ``verify-log`` one page at a time (``cursor``: empty for the first)."""
    if seal is None:
        raise ServiceError(
            ErrorType.BAD_REQUEST, "this store does not sign traces (its setting signing is off)"
        )
    if handle is not None:
        seal.settle(handle)
    cursor = req.cursor or ""
    if req.operation == "audit-log":
        found, after = log_pages.export_page(handle, cursor, req.limit)
        keys = {kid: public_pem(key) for kid, key in seal.keys.public.items()}
        text = json.dumps({**found, "keys": keys})
        return ExplainResponse(export=text, media_type="application/json", cursor=after)
    checked, after, total = log_pages.verify_page(handle, seal.keys, cursor, req.limit)
    return ExplainResponse(verification=checked, cursor=after, count=total)


# What to ask instead when a reply is too large, where it is not the usual "lower the limit".
TOO_LARGE = {
    "document-hierarchy": "ask for its chunks a window at a time (chunk_limit, chunk_offset)"
}


def doc_iri(doc_id: str) -> str:
    """The document URI of an id or URI, checked as pyoxigraph would; bad-request otherwise."""
    try:
        uri = document_uri(doc_id)
        ox.NamedNode(uri)
    except ValueError as exc:
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"malformed document id {doc_id!r}: {exc}"
        ) from None
    return uri


async def explain_service(req: ExplainRequest, ctx: Ctx) -> AsyncIterator[ExplainResponse]:
    """Deletions on the writer thread, views on a reader thread; a streamed trace in pieces."""
    if req.operation == "get-trace" and req.streaming:
        async for piece in stream_trace(ctx, req):
            yield piece
        return
    if req.operation == "delete-collection":  # every load into it so far, by this clock
        req = req.model_copy(update={"upto": time.time_ns()})
    run = write if req.operation in WRITES else read
    state = ctx.state
    if req.operation == "seal-document" and (why := state.holds.holding(req.user, req.collection)):
        raise ServiceError(ErrorType.STORE_UNAVAILABLE, why)  # the librarian asks again later
    fix = TOO_LARGE.get(req.operation)
    try:
        resp = await arrived(  # a trace read at once after its answer: waited for a moment
            req,
            ctx,
            lambda: run(
                ctx, lambda stores: checked(explain_op(stores, req, state.seal, state.removed), fix)
            ),
        )
    except ServiceError as exc:  # its server is away: the librarian is told when it is back
        if req.operation == "seal-document" and exc.type == ErrorType.STORE_UNAVAILABLE:
            await intake.seal_refused(ctx, req.user, req.collection)
        raise
    if req.operation == "delete-collection":
        # The librarian's documents and the vector indexes go too (durable: delivered
        # even to a processor that is down now); the chunker and extractor drop its work.
        where = {"user": req.user, "collection": req.collection, "upto": req.upto}
        await ctx.publish(COLLECTION_DELETED, CollectionDeleted(**where))
        await ctx.publish(LOADS_REMOVED, LoadsRemoved(**where))
    yield resp
