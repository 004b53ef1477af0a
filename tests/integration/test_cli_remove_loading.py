"""Removing a document, or deleting its collection, while it is still loading leaves nothing of
it (docs/lineage.md, "Removing a load still in progress"), through the commands on the real
pipeline: not in the graph store (any graph), the vector indexes, the librarian's texts or the
hierarchy, once every stage has gone quiet; and the same id loads again completely.

"Quiet" is a barrier, not a sleep: a small document loaded into another collection after
the removal queues behind the removed load's work on every topic, so once the store holds
its facts, whatever the removed load still had in flight has been written or dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import aiohttp
import pytest

from tests.support.ingest import Client
from tests.support.poll import eventually
from tests.support.processors import INGEST, SAMPLES
from tests.support.stack import CliResult, Stack, run_cli, stack_fixture
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import VECTORS, Bus, RequestClient
from trustgraph_base.schema import DocumentInfo, LibrarianRequest, VectorRequest

# A large document's removal takes longer than the 30 s a removal may take by default.
stack = stack_fixture(INGEST, settings={"librarian": {"removal_timeout": 300.0}})
USER = "trustgraph"  # the commands' default user
SENTENCE = "Sentence {n} says that City{n} is the capital of Country{n}.\n"
TIMEOUT = 240.0  # the machine is shared: generous, the test asserts what happened
# Every quad but the descriptions any load shares, which a removal leaves (as it does after
# a complete load): the software agents and the extraction prompt. ``{log}``: the signing
# log's graph too, or not (a complete load's document is signed once or twice, as its last
# facts reach the store before or after the librarian asks: docs/audit.md).
EVERYTHING = """PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX tg: <https://trustgraph.ai/ns/>
SELECT (COUNT(*) AS ?n) WHERE {{
  {{ ?s ?p ?o }} UNION {{
    GRAPH ?g {{ ?s ?p ?o }}
    FILTER NOT EXISTS {{ GRAPH ?g {{ ?s a ?shared }} VALUES ?shared {{ prov:Agent tg:Prompt }} }}
    {log}
  }}
}}"""


def text_file(tmp_path: Path, name: str, sentences: int) -> Path:
    path = tmp_path / name
    path.write_text("".join(SENTENCE.format(n=n) for n in range(sentences)))
    return path


class Watch:
    """The librarian and the vector index, asked directly on the bus (fast polls)."""

    def __init__(self, stack: Stack) -> None:
        self.bus = Bus(stack.pulsar_url)
        self.client = Client(self.bus, stack.topics, user=USER)
        self.vectors = RequestClient(self.bus, stack.topics, VECTORS, "tester-vectors")

    async def close(self) -> None:
        await self.client.close()
        await self.vectors.close()
        await self.bus.close()

    async def info(self, doc: str, collection: str) -> DocumentInfo | None:
        """The document's row (None: the librarian has none), waiting as long as a loaded
        librarian takes to answer."""
        req = LibrarianRequest(
            operation="get-document", document_id=doc, user=USER, collection=collection
        )
        try:
            return (await self.client.librarian.request(req, timeout=TIMEOUT)).document
        except ServiceError as exc:
            if exc.type != ErrorType.NOT_FOUND:
                raise
            return None

    async def vector_ids(self, collection: str) -> list[str]:
        found = []
        for kind in ("chunk", "entity"):
            req = VectorRequest(
                operation="list", kind=kind, user=USER, collection=collection, limit=1000
            )
            found += [i.id for i in (await self.vectors.request(req, timeout=30)).items]
        return found


async def quads(stack: Stack, collection: str, *, log: bool = True) -> int:
    """The collection's quads in any graph, but for the shared descriptions (tg-sparql)."""
    query = EVERYTHING.format(log="" if log else "FILTER(?g != <urn:tg:integrity>)")
    got = await stack.cli("tg-sparql", "-C", collection, "--format", "json", query)
    if got.code == 1 and got.stderr.startswith(f"Error: no collection {collection!r} "):
        return 0  # no such collection (deleted): tg-sparql says so rather than count 0
    assert got.code == 0, got.stderr
    return int(json.loads(got.stdout)["results"]["bindings"][0]["n"]["value"])


async def alike(stack: Stack, watch: Watch, one: str, other: str) -> bool:
    """Whether two collections hold as many quads (the signing log aside) and the same
    vectors (the store may still be writing a complete load's last facts)."""
    counts = [await quads(stack, one, log=False), await quads(stack, other, log=False)]
    vectors = [sorted(await watch.vector_ids(c)) for c in (one, other)]
    return counts[0] == counts[1] > 0 and vectors[0] == vectors[1] != []


async def quiet(stack: Stack, tmp_path: Path) -> None:
    """Every stage has passed the removed load's work: a document loaded after it into
    another collection is complete and its facts are in the store."""
    name = f"quiet-{len(list(tmp_path.glob('quiet-*')))}.txt"
    (tmp_path / name).write_bytes((SAMPLES / "capitals.txt").read_bytes())
    done = await stack.cli("tg-load-document", str(tmp_path / name), "-C", "quiet")
    assert done.code == 0, done.stderr
    await eventually(lambda: quads(stack, "quiet"), lambda n: n > 0, timeout=60)


async def nothing_left(stack: Stack, watch: Watch, doc: str, collection: str) -> None:
    """The collection holds nothing of ``doc``, by every way a user can look."""
    assert await quads(stack, collection) == 0
    assert await watch.vector_ids(collection) == []
    assert await watch.info(doc, collection) is None
    shown = await stack.cli("tg-show-document-hierarchy", doc, "-C", collection)
    assert shown.code == 1 and "no document" in shown.stderr, shown
    again = await stack.cli("tg-remove-document", doc, "-C", collection)
    assert again.code == 1 and "no document" in again.stderr, again
    assert len(again.stderr.strip().splitlines()) == 1  # one clear line, no traceback


async def remove(stack: Stack, doc: str, collection: str) -> None:
    """tg-remove-document, again as its answer says when a store server was too busy to
    answer (an oxigraph serve under the load's writes may refuse a request: 500, EAGAIN)."""
    for _ in range(5):
        removed = await stack.cli("tg-remove-document", doc, "-C", collection)
        if removed.code == 0:
            return
        assert "retry later" in removed.stderr, removed.stderr  # and it is still listed:
        await asyncio.sleep(2)
    raise AssertionError(f"not removed after 5 tries: {removed.stderr}")


async def loading(stack: Stack, path: Path, *args: str) -> asyncio.Task[CliResult]:
    """tg-load-document running meanwhile."""
    load = run_cli("tg-load-document", str(path), *args, env=stack.env, timeout=TIMEOUT)
    return asyncio.create_task(load)


async def ended(load: asyncio.Task[CliResult]) -> None:
    """The interrupted tg-load-document ends (its document is gone), whatever it says."""
    await asyncio.wait_for(load, TIMEOUT)


@pytest.mark.timeout(TIMEOUT * 3)
async def test_removed_mid_chunking_leaves_nothing(
    stack: Stack, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A text of 12,000 chunks: the chunker is still publishing them when it is removed."""
    caplog.set_level(logging.INFO, logger="trustgraph_flow.chunker")
    path = text_file(tmp_path, "big.txt", 30_000)
    doc = "urn:trustgraph:doc:big"
    watch = Watch(stack)
    try:
        load = await loading(stack, path, "--id", "big", "-C", "c1", "--chunk-size", "150")
        await eventually(
            lambda: watch.info(doc, "c1"), lambda i: i is not None and i.chunks_done > 0, TIMEOUT
        )
        await remove(stack, doc, "c1")
        await ended(load)
        await quiet(stack, tmp_path)
        assert "was removed while it was chunked: stopped at chunk" in caplog.text
        await nothing_left(stack, watch, doc, "c1")
    finally:
        await watch.close()


@pytest.mark.timeout(TIMEOUT * 3)
async def test_removed_mid_extraction_leaves_nothing_and_loads_again(
    stack: Stack, tmp_path: Path
) -> None:
    path = text_file(tmp_path, "mid.txt", 3_000)
    doc = "urn:trustgraph:doc:mid"
    watch = Watch(stack)
    try:
        clean = await stack.cli("tg-load-document", str(path), "--id", "mid", "-C", "clean")
        assert clean.code == 0, clean.stderr
        load = await loading(stack, path, "--id", "mid", "-C", "c2")
        info = await eventually(
            lambda: watch.info(doc, "c2"),
            lambda i: i is not None and i.pages_chunked == 1 and i.chunks_done > 0,
            TIMEOUT,
        )
        assert info is not None and info.chunks_done < info.chunks  # still extracting
        await remove(stack, doc, "c2")
        await ended(load)
        await quiet(stack, tmp_path)
        await nothing_left(stack, watch, doc, "c2")
        # The same id loads again, completely: as the clean load of the same text did.
        again = await stack.cli("tg-load-document", str(path), "--id", "mid", "-C", "c2")
        assert again.code == 0, again.stderr
        assert again.stderr.splitlines()[-1] == clean.stderr.splitlines()[-1]
        assert again.stderr.splitlines()[-1].startswith("complete: 0 pages, ")
        await eventually(lambda: alike(stack, watch, "clean", "c2"), bool, timeout=60)
    finally:
        await watch.close()


@pytest.mark.timeout(TIMEOUT * 3)
async def test_a_collection_deleted_mid_load_stays_empty(stack: Stack, tmp_path: Path) -> None:
    path = text_file(tmp_path, "coll.txt", 3_000)
    doc = "urn:trustgraph:doc:coll"
    watch = Watch(stack)
    try:
        load = await loading(stack, path, "--id", "coll", "-C", "c3")
        await eventually(
            lambda: watch.info(doc, "c3"), lambda i: i is not None and i.chunks_done > 0, TIMEOUT
        )
        async with aiohttp.ClientSession() as http:
            body = {"operation": "delete-collection", "collection": "c3"}
            async with http.post(f"{stack.url}api/v1/collection-management", json=body) as resp:
                assert resp.status == 200, await resp.text()
        await ended(load)
        await quiet(stack, tmp_path)
        await nothing_left(stack, watch, doc, "c3")
        listed = await stack.cli("tg-list-documents", "-C", "c3", "--format", "json")
        assert listed.code == 1 and "Error: no collection 'c3' of user" in listed.stderr, listed
    finally:
        await watch.close()
