"""The vectors service on Milvus: Milvus Lite (the default) and a Milvus server by URI.

Hostile user, collection, id and document strings; upsert replacing by id; redelivered
writes; an emptied index; SIGKILL after acknowledged writes; no Milvus process left over.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningProcessors
from tests.support.clients import client_fixture
from tests.support.launcher import start_module
from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import VECTORS, RequestClient
from trustgraph_base.messaging.broker import free_port
from trustgraph_base.schema import VectorItem, VectorRequest, VectorResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.vectors import processor as vectors

pytestmark = pytest.mark.no_store  # no triple store here: runs in the embedded run only

Client = RequestClient[VectorRequest, VectorResponse]

HOSTILE = [
    'a"b', "a'b", "a\\", "x\" || true || \"", "x' OR 1=1 --", "line\nbreak", "tab\there",
    "nul\0byte", "é😀", "../../etc", "a_b", "a/b", "", "%", "*",
]  # fmt: skip


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(p) for p in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def _gone(pids: set[int]) -> None:
    while True:
        if not any(_alive(p) for p in pids):
            return
        await asyncio.sleep(0.05)


@pytest.fixture
def milvus_server(tmp_path: Path) -> Iterator[str]:
    """A Milvus server (Milvus Lite's server binary listening on a loopback TCP port)."""
    from milvus_lite.server import Server

    port = free_port()
    server = Server(str(tmp_path / "server.db"), address=f"127.0.0.1:{port}")
    assert server.init() and server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture(params=["lite", "server"])
def backend(request: pytest.FixtureRequest, settings: ProcessorSettings) -> vectors.Settings:
    uri = request.getfixturevalue("milvus_server") if request.param == "server" else ""
    return vectors.Settings(**settings.model_dump(), vectors_uri=uri)


client = client_fixture(VECTORS, "vectors-tester")


def upsert(user: str, collection: str, *items: VectorItem) -> VectorRequest:
    return VectorRequest(user=user, collection=collection, operation="upsert", items=list(items))


def query(user: str, collection: str, vector: list[float], limit: int = 10) -> VectorRequest:
    return VectorRequest(
        user=user, collection=collection, operation="query", vector=vector, limit=limit
    )


def delete_document(user: str, collection: str, document: str) -> VectorRequest:
    return VectorRequest(
        user=user, collection=collection, operation="delete-document", document=document
    )


async def found(client: Client, req: VectorRequest) -> list[tuple[str, str]]:
    return [(m.id, m.text) for m in (await client.request(req, timeout=20)).matches]


async def test_hostile_names_stay_isolated(
    processors: RunningProcessors, backend: vectors.Settings, client: Client
) -> None:
    await processors.start(vectors.proc, backend)
    names = [n or "-" for n in HOSTILE]  # user and collection must not be empty
    for i, name in enumerate(names):
        await client.request(
            upsert(name, name, VectorItem(id=f"u{i}", vector=[1, 0], text=name)), timeout=20
        )
        await client.request(
            upsert("u", name, VectorItem(id=f"c{i}", vector=[1, 0], text=name)), timeout=20
        )
    # the old folder scheme joined user and collection with a NUL: these two must differ
    await client.request(upsert("a\0b", "c", VectorItem(id="first", vector=[1, 0])), timeout=20)
    await client.request(upsert("a", "b\0c", VectorItem(id="second", vector=[1, 0])), timeout=20)
    for i, name in enumerate(names):
        assert await found(client, query(name, name, [1, 0])) == [(f"u{i}", name)]
        if name != "u":
            assert await found(client, query("u", name, [1, 0])) == [(f"c{i}", name)]
    assert [m for m, _ in await found(client, query("a\0b", "c", [1, 0]))] == ["first"]
    assert [m for m, _ in await found(client, query("a", "b\0c", [1, 0]))] == ["second"]


async def test_hostile_ids_and_documents(
    processors: RunningProcessors, backend: vectors.Settings, client: Client
) -> None:
    await processors.start(vectors.proc, backend)
    items = [
        VectorItem(id=f"id:{s}", vector=[1, i + 1], text=f"text:{s}", document=s)
        for i, s in enumerate(HOSTILE)
    ]
    await client.request(upsert("u", "c", *items), timeout=20)
    every = await found(client, query("u", "c", [1, 0], limit=100))
    assert sorted(every) == sorted((it.id, it.text) for it in items)
    remaining = {it.id for it in items}
    for it in items:
        gone = await client.request(delete_document("u", "c", it.document or "-"), timeout=20)
        if it.document:  # an empty document is refused by the service, "-" matches nothing
            assert gone.count == 1
            remaining.discard(it.id)
        left = {m for m, _ in await found(client, query("u", "c", [1, 0], limit=100))}
        assert left == remaining


async def test_upsert_replaces_and_redelivery_is_idempotent(
    processors: RunningProcessors, backend: vectors.Settings, client: Client
) -> None:
    await processors.start(vectors.proc, backend)
    first = upsert("u", "c", VectorItem(id="a", vector=[1, 0, 0], text="old", document="d1"),
                   VectorItem(id="b", vector=[0, 1, 0], text="b", document="d2"))  # fmt: skip
    for _ in range(3):  # a redelivered write changes nothing
        assert (await client.request(first, timeout=20)).count == 2
    resp = await client.request(query("u", "c", [1, 0, 0]), timeout=20)
    assert [(m.id, m.text) for m in resp.matches] == [("a", "old"), ("b", "b")] and resp.count == 2
    assert resp.matches[0].score == pytest.approx(1.0) and resp.matches[1].score == pytest.approx(
        0.0
    )

    # the same id again: replaced (vector, text and document), not added
    again = upsert("u", "c", VectorItem(id="a", vector=[0, 0, 2], text="new", document="d2"),
                   VectorItem(id="a", vector=[0, 0, 1], text="newest", document="d2"))  # fmt: skip
    assert (await client.request(again, timeout=20)).count == 2  # how many were given
    resp = await client.request(query("u", "c", [0, 0, 1]), timeout=20)
    assert [(m.id, m.text) for m in resp.matches] == [
        ("a", "newest"),
        ("b", "b"),
    ] and resp.count == 2
    assert (await client.request(delete_document("u", "c", "d1"), timeout=20)).count == 0
    assert (await client.request(delete_document("u", "c", "d2"), timeout=20)).count == 2
    assert (await client.request(delete_document("u", "c", "d2"), timeout=20)).count == 0

    # an emptied index holds no dimension any more; a non-empty one refuses another
    await client.request(upsert("u", "c", VectorItem(id="z", vector=[1, 0])), timeout=20)
    with pytest.raises(ServiceError) as err:
        await client.request(upsert("u", "c", VectorItem(id="y", vector=[1, 0, 0, 0])), timeout=20)
    assert err.value.type == "bad-request" and "2-dimensional" in err.value.message
    with pytest.raises(ServiceError, match="more than the 65,535"):
        await client.request(
            upsert("u", "c", VectorItem(id="y", vector=[1, 0], text="é" * 40_000)), timeout=20
        )
    assert await found(client, query("u", "c", [0, 1])) == [("z", "")]


async def test_a_query_counts_the_index_after_every_change(
    processors: RunningProcessors, backend: vectors.Settings, client: Client
) -> None:
    """A query's ``count`` is the index's size after each kind of write, each one made after
    a query (Milvus Lite's size is kept between writes, a server's asked each time)."""
    await processors.start(vectors.proc, backend)

    async def size() -> int:
        return (await client.request(query("u", "c", [1, 0], limit=1), timeout=20)).count

    def item(name: str, document: str) -> VectorItem:
        return VectorItem(id=name, vector=[1, 0], document=document)

    assert await size() == 0
    await client.request(upsert("u", "c", item("a", "d1"), item("b", "d1")), timeout=20)
    assert await size() == 2
    await client.request(upsert("u", "c", item("b", "d2"), item("c", "d2")), timeout=20)
    assert await size() == 3  # b replaced, c added
    await client.request(delete_document("u", "c", "d1"), timeout=20)
    assert await size() == 2
    await client.request(VectorRequest(operation="delete-collection", user="u", collection="c"),
                         timeout=20)  # fmt: skip
    assert await size() == 0
    await client.request(upsert("u", "c", item("e", "d3")), timeout=20)
    assert await size() == 1


async def start_vectors(settings: ProcessorSettings, ready: Path) -> asyncio.subprocess.Process:
    return await start_module(
        "trustgraph_flow.vectors.processor",
        "--pulsar-url", settings.pulsar_url, "--topic-prefix", settings.topic_prefix,
        "--data-dir", settings.data_dir, "--log-level", "WARNING",
        ready=ready,
    )  # fmt: skip


async def test_sigkill_loses_no_acknowledged_write_and_leaves_no_process(
    settings: ProcessorSettings, client: Client, tmp_path: Path
) -> None:
    ready = tmp_path / "ready"
    first = await start_vectors(settings, ready)
    try:
        helpers = _children(first.pid)
        assert helpers, "Milvus Lite runs as a child process of the processor"

        async def write(i: int) -> int:
            batch = [
                VectorItem(id=f"m{i}-{k}", vector=[1, i, k], document=f"d{i}") for k in range(5)
            ]
            await client.request(upsert("u", "c", *batch), timeout=30)
            return i

        acked = [await write(i) for i in range(20)]  # each acknowledged before the next
        first.send_signal(signal.SIGKILL)
        await first.wait()
        await asyncio.wait_for(_gone(helpers), 30)  # Milvus Lite follows its parent down
        second = await start_vectors(settings, ready)
        try:
            resp = await client.request(query("u", "c", [1, 0, 0], limit=1000), timeout=30)
            assert {m.id for m in resp.matches} == {f"m{i}-{k}" for i in acked for k in range(5)}
            assert resp.count == 100
        finally:
            helpers = _children(second.pid)
            second.terminate()
            assert await second.wait() == 0
            await asyncio.wait_for(_gone(helpers), 30)
    finally:
        if first.returncode is None:
            first.kill()
            await first.wait()


async def test_stopping_in_process_leaves_no_milvus_process(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    before = _children(os.getpid())
    running = RunningProcessors()
    await running.start(vectors.proc, vectors.Settings(**settings.model_dump()))
    await client.request(upsert("u", "c", VectorItem(id="a", vector=[1, 0])), timeout=20)
    started = _children(os.getpid()) - before
    assert started
    await running.stop_all()
    assert not any(_alive(p) for p in started)


def test_two_replicas_on_one_server_see_each_others_changes(
    milvus_server: str, tmp_path: Path
) -> None:
    """Two processors' stores on one Milvus server (replicas): one's drop is not the other's stale cache."""
    from trustgraph_flow.vectors.milvus import MilvusVectors

    a, b = MilvusVectors.open(milvus_server, tmp_path), MilvusVectors.open(milvus_server, tmp_path)
    try:
        item = VectorItem(id="x", vector=[1, 0], text="first", document="d")
        assert a.upsert("u", "c", "chunk", [item]) == 1
        assert b.upsert("u", "c", "chunk", [item]) == 1  # the same message on both: one copy
        assert [(m.id, m.text) for m in b.query("u", "c", "chunk", [1, 0], 10)[0]] == [
            ("x", "first")
        ]
        assert a.drop("u", "c") == 1
        assert b.query("u", "c", "chunk", [1, 0], 10) == ([], 0)
        again = VectorItem(id="y", vector=[0, 1, 0], text="after", document="d")
        assert b.upsert("u", "c", "chunk", [again]) == 1  # b still remembered a 2-dimensional index
        assert [(m.id, m.text) for m in a.query("u", "c", "chunk", [0, 1, 0], 10)[0]] == [
            ("y", "after")
        ]
        assert a.delete_document("u", "c", "chunk", "d") == 1
        assert b.delete_document("u", "c", "chunk", "d") == 0
    finally:
        a.close()
        b.close()


async def test_a_killed_milvus_lite_is_started_again(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    before = _children(os.getpid())
    await processors.start(vectors.proc, vectors.Settings(**settings.model_dump()))
    await client.request(upsert("u", "c", VectorItem(id="a", vector=[1, 0])), timeout=20)
    (lite,) = _children(os.getpid()) - before
    os.kill(lite, signal.SIGKILL)
    await asyncio.wait_for(_gone({lite}), 30)
    await client.request(upsert("u", "c", VectorItem(id="b", vector=[0, 1])), timeout=30)
    assert sorted(m for m, _ in await found(client, query("u", "c", [1, 1]))) == ["a", "b"]
    (again,) = _children(os.getpid()) - before
    assert again != lite
