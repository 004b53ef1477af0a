"""The knowledge service: each user's knowledge cores (``cores.py`` keeps them).

Every part is checked when it is put (its triples parse as the store reads them and name
no graph; each vector is a non-empty list of numbers under an IRI), so a stored core always
loads. Loading a ``kg`` core publishes its triples to the collection's default graph (as
``import/triples`` does) and upserts its graph embeddings as the collection's entity
vectors; a ``de`` core's chunk vectors become the collection's chunk vectors. The vectors a
load wrote carry the core's URI as their document, and the core's URI holds the facts it
loaded in ``urn:graph:source`` (``tg:contains``, as a chunk's subgraph holds those extracted
from it: ``trustgraph_base.provenance.cores``), so unloading takes exactly those out: its
vectors, and its facts that no document (nor another core) holds too.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from pydantic import ValidationError

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError, WireError
from trustgraph_base.messaging import EXPLAIN, TRIPLES_STORE, VECTORS, Context
from trustgraph_base.provenance.cores import core_triples, core_uri
from trustgraph_base.rdf.terms import check_iri
from trustgraph_base.schema import (
    ExplainRequest,
    KnowledgeRequest,
    KnowledgeResponse,
    StoreTriples,
    Triples,
    VectorItem,
    VectorRequest,
)
from trustgraph_base.schema.llm import vector_of
from trustgraph_base.wire import from_json
from trustgraph_flow.librarian.cores import CoreStore

PART_ITEMS_MAX = 10_000  # triples, entities or chunks in one part
VECTORS_WAIT_S = 60.0
UPSERT_BATCH = 500

# kind → the parts a core of that kind holds (the request's field, the wire name).
PARTS = {
    "kg": (("triples", "triples"), ("graph_embeddings", "graph-embeddings")),
    "de": (("document_embeddings", "document-embeddings"),),
}


def _bad(message: str) -> ServiceError:
    return ServiceError(ErrorType.BAD_REQUEST, f"knowledge: {message}")


def _items(body: dict[str, Any], field: str) -> list[Any]:
    items = body.get(field)
    if not isinstance(items, list):
        raise _bad(f"a part needs '{field}': a list")
    if len(items) > PART_ITEMS_MAX:
        raise _bad(f"at most {PART_ITEMS_MAX} {field} in one part, not {len(items)}")
    return items


def _vector(given: Any) -> list[float]:
    found = vector_of(given)
    if found is None:
        raise _bad("each vector is a non-empty list of numbers")
    return found


def _iri(value: Any, what: str) -> str:
    if isinstance(value, dict):  # a term, {"t": "i", "i": IRI}
        value = value.get("i") if value.get("t", "i") == "i" else None
    if not isinstance(value, str):
        raise _bad(f"each {what} is an IRI")
    try:
        return check_iri(value)
    except ValueError as exc:
        raise _bad(f"{what}: {exc}") from None


def checked_triples(body: dict[str, Any], user: str, collection: str, core: str) -> Triples:
    """A triples part as the store will take it (``ServiceError`` naming what is wrong)."""
    try:
        batch = from_json(
            Triples,
            {
                "metadata": {"id": core_uri(core), "user": user, "collection": collection},
                "triples": _items(body, "triples"),
            },
        )
        StoreTriples.of(batch)
    except (WireError, ValidationError) as exc:
        raise _bad(f"triples: {exc}") from None
    if any(t.g for t in batch.triples):
        raise _bad("a core's triples are in the default graph (no 'g')")
    return batch


def vector_items(part: str, body: dict[str, Any], core: str) -> list[VectorItem]:
    """A graph- or document-embeddings part as vector index items."""
    field, key = ("entities", "entity") if part == "graph-embeddings" else ("chunks", "chunk_id")
    items = []
    for given in _items(body, field):
        found = given if isinstance(given, dict) else {}
        vector = _vector(found.get("vector", found.get("vectors")))
        items.append(
            VectorItem(id=_iri(found.get(key), key), vector=vector, document=core_uri(core))
        )
    return items


def check_part(part: str, body: dict[str, Any], req: KnowledgeRequest) -> None:
    if part == "triples":
        checked_triples(body, req.user, req.collection, req.id)
    else:
        vector_items(part, body, req.id)


def _kind(operation: str) -> str:
    return "de" if "-de-" in operation else "kg"


def _required_id(req: KnowledgeRequest) -> str:
    if not req.id:
        raise _bad(f"{req.operation} needs 'id' (the core's)")
    return req.id


async def put(store: CoreStore, req: KnowledgeRequest, kind: str) -> None:
    core = _required_id(req)
    if req.library_metadata is not None or req.library_blob is not None:
        raise _bad(
            "a core's library parts are not kept here: add the document to the library "
            "(tg-add-library-document)"
        )
    given = [(wire, getattr(req, field)) for field, wire in PARTS[kind]]
    parts = [(wire, body) for wire, body in given if body is not None]
    if not parts:
        names = " or ".join(f"'{wire}'" for _f, wire in PARTS[kind])
        raise _bad(f"{req.operation} needs {names}")
    for wire, body in parts:  # every part is checked before any is kept
        check_part(wire, body, req)
    for wire, body in parts:
        await asyncio.to_thread(store.append, req.user, kind, core, wire, body)


async def each_part(
    store: CoreStore, user: str, kind: str, core: str
) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """The core's parts in order, read a page at a time (``not-found`` when it has none)."""
    after, first = -1, True
    while True:
        page = await asyncio.to_thread(store.parts, user, kind, core, after)
        if first and not page:
            raise ServiceError(ErrorType.NOT_FOUND, f"no knowledge core {core!r} ({kind})")
        first = False
        for seq, part, body in page:
            after = seq
            yield part, body
        if not page:
            return


async def load(store: CoreStore, req: KnowledgeRequest, kind: str, ctx: Context[Any]) -> None:
    core = _required_id(req)
    if req.flow not in ("", "default"):
        raise ServiceError(
            ErrorType.NOT_FOUND, f"no flow {req.flow!r}: there is one flow, 'default'"
        )
    await asyncio.to_thread(store.require, req.user, kind, core)
    vectors = ctx.client(VECTORS)
    store.loaded(req.user, kind, core, req.collection)  # before any write: unload finds it
    async for part, body in each_part(store, req.user, kind, core):
        if part == "triples":
            facts = checked_triples(body, req.user, req.collection, core)
            await ctx.publish(TRIPLES_STORE, facts)  # then what holds them: a message apart
            held = core_triples(core_uri(core), facts.triples)
            await ctx.publish(TRIPLES_STORE, Triples(metadata=facts.metadata, triples=held))
            continue
        items = vector_items(part, body, core)
        for at in range(0, len(items), UPSERT_BATCH):
            await vectors.request(
                VectorRequest(
                    operation="upsert",
                    kind="entity" if part == "graph-embeddings" else "chunk",
                    items=items[at : at + UPSERT_BATCH],
                    user=req.user,
                    collection=req.collection,
                ),
                timeout=VECTORS_WAIT_S,
            )


async def unload(store: CoreStore, req: KnowledgeRequest, ctx: Context[Any]) -> None:
    core = _required_id(req)
    collections = await asyncio.to_thread(store.unloaded, req.user, "kg", core)
    if not collections:
        raise ServiceError(ErrorType.NOT_FOUND, f"knowledge core {core!r} is not loaded")
    uri, why = core_uri(core), f"knowledge core {core!r} unloaded"
    for collection in collections:
        where = {"user": req.user, "collection": collection}
        await ctx.client(VECTORS).request(
            VectorRequest(operation="delete-document", kind="entity", document=uri, **where),
            timeout=VECTORS_WAIT_S,
        )
        forget = ExplainRequest(operation="delete-document", id=uri, reason=why, **where)
        try:  # the facts it holds that no document (nor another core) holds too
            await ctx.client(EXPLAIN).request(forget, timeout=VECTORS_WAIT_S)
        except RequestTimeout:
            raise ServiceError(
                ErrorType.UNAVAILABLE,
                f"{why}, but its facts are still in {collection!r}: the graph store did not "
                "answer; load and unload it again",
            ) from None
        except ServiceError as exc:  # not-found: no triples, or loaded before they were held
            if exc.type != ErrorType.NOT_FOUND:
                raise


async def answer(
    store: CoreStore, req: KnowledgeRequest, ctx: Context[Any]
) -> AsyncIterator[KnowledgeResponse]:
    """One knowledge operation for ``req.user``: its replies (several for a core's get)."""
    op, kind = req.operation, _kind(req.operation)
    if op in ("list-kg-cores", "list-de-cores"):
        yield KnowledgeResponse(ids=await asyncio.to_thread(store.ids, req.user, kind))
    elif op in ("get-kg-core", "get-de-core"):
        async for part, body in each_part(store, req.user, kind, _required_id(req)):
            fields = {field: body for field, wire in PARTS[kind] if wire == part}
            yield KnowledgeResponse(**fields, end_of_stream=False)
        yield KnowledgeResponse(eos=True)
    elif op in ("put-kg-core", "put-de-core"):
        await put(store, req, kind)
        yield KnowledgeResponse()
    elif op in ("delete-kg-core", "delete-de-core"):
        await asyncio.to_thread(store.delete, req.user, kind, _required_id(req))
        yield KnowledgeResponse()
    elif op in ("load-kg-core", "load-de-core"):
        await load(store, req, kind, ctx)
        yield KnowledgeResponse()
    else:
        await unload(store, req, ctx)
        yield KnowledgeResponse()
