"""Helpers for the ingestion tests: start the pipeline, upload, wait, read the store."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import RunningProcessors
from trustgraph_base.messaging import (
    EXPLAIN,
    LIBRARIAN,
    TRIPLES_QUERY,
    Bus,
    RequestClient,
    Topics,
)
from trustgraph_base.provenance import GRAPH_SOURCE
from trustgraph_base.rdf.terms import IriTerm, Triple, term_key
from trustgraph_base.schema import (
    DocumentInfo,
    LibrarianRequest,
    LibrarianResponse,
    TriplesQueryRequest,
)
from trustgraph_base.settings import ProcessorSettings

__test__ = False

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
USER = "alice"


def configured(proc_module: Any, base: ProcessorSettings, **overrides: Any) -> Any:
    """The processor's own settings class, on the test's broker, prefix and data dir."""
    cls = proc_module.proc.settings_cls
    return cls(**{**base.model_dump(), **overrides})


async def start(
    processors: RunningProcessors, base: ProcessorSettings, *modules: Any, **overrides: Any
) -> None:
    for module in modules:
        await processors.start(module.proc, configured(module, base, **overrides))


def scope_of(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if k == "collection"}


class Client:
    """The test's view of the system: librarian and store requests as one user."""

    def __init__(self, bus: Bus, topics: Topics, user: str = USER) -> None:
        self.user = user
        self.librarian = RequestClient(bus, topics, LIBRARIAN, f"tester-{user}")
        self.triples_client = RequestClient(bus, topics, TRIPLES_QUERY, f"tester-{user}")
        self.explain = RequestClient(bus, topics, EXPLAIN, f"tester-{user}")

    async def close(self) -> None:
        for client in (self.librarian, self.triples_client, self.explain):
            await client.close()

    async def lib(self, operation: str, **fields: Any) -> LibrarianResponse:
        req = LibrarianRequest(operation=operation, user=self.user, **fields)
        return await self.librarian.request(req, timeout=15)

    async def upload(
        self,
        name: str,
        data: bytes,
        mime_type: str,
        *,
        part_size: int = 4096,
        process: bool = True,
        **fields: Any,
    ) -> DocumentInfo:
        """Store it (``add-document``, or ``begin-upload`` and ``upload-chunk`` of
        ``part_size`` bytes when larger), then, with ``process``, start its processing into
        the same collection (``add-processing``)."""
        meta = {"document_metadata": {"id": name, "kind": mime_type, "title": name}, **fields}
        if len(data) <= part_size:
            content = base64.b64encode(data).decode()
            resp = await self.lib("add-document", content=content, **meta)
        else:
            begun = await self.lib("begin-upload", total_size=len(data), **meta)
            for n, at in enumerate(range(0, len(data), part_size)):
                content = base64.b64encode(data[at : at + part_size]).decode()
                await self.lib(
                    "upload-chunk",
                    upload_id=begun.upload_id,
                    chunk_index=n,
                    content=content,
                    **scope_of(fields),
                )
            resp = await self.lib("complete-upload", upload_id=begun.upload_id, **scope_of(fields))
        assert resp.document is not None
        if not process:
            return resp.document
        record = {"id": f"load-{name}", "document_id": resp.document.id}
        collection = fields.get("collection")
        if collection is not None:
            record["collection"] = collection
        started = await self.lib("add-processing", processing_metadata=record, **fields)
        assert started.document is not None
        return started.document

    async def settled(self, doc: str, timeout: float = 60) -> DocumentInfo:
        """Wait until the document is complete or failed."""

        async def poll() -> DocumentInfo:
            while True:
                info = (await self.lib("get-document", id=doc)).document
                assert info is not None
                if info.status in ("complete", "failed"):
                    return info
                await asyncio.sleep(0.05)

        return await asyncio.wait_for(poll(), timeout)

    async def content(self, uri: str, **fields: Any) -> bytes:
        return base64.b64decode((await self.lib("get-content", id=uri, **fields)).content)

    async def triples(self, graph: str | None = GRAPH_SOURCE, **pattern: Any) -> list[Triple]:
        req = TriplesQueryRequest(user=self.user, g=graph, **pattern)
        return (await self.triples_client.request(req, timeout=15)).triples

    async def wait_triples(
        self,
        ready: Callable[[set[tuple[str, str, str]]], bool],
        graph: str | None = GRAPH_SOURCE,
        timeout: float = 30,
    ) -> set[tuple[str, str, str]]:
        """Poll the store until ``ready`` holds for its (s, p, o) keys (the writer is async)."""

        async def poll() -> set[tuple[str, str, str]]:
            while True:
                found = keys(await self.triples(graph))
                if ready(found):
                    return found
                await asyncio.sleep(0.05)

        return await asyncio.wait_for(poll(), timeout)


def keys(triples: list[Triple]) -> set[tuple[str, str, str]]:
    return {(term_key(t.s), term_key(t.p), term_key(t.o)) for t in triples}


def k(term: IriTerm | str) -> str:
    """The key of an IRI (given as a term or a string)."""
    return term_key(term if isinstance(term, IriTerm) else IriTerm(i=term))


def objects(found: set[tuple[str, str, str]], s: str, p: IriTerm) -> set[str]:
    return {o for (s2, p2, o) in found if s2 == k(s) and p2 == k(p)}
