"""Which reads the store waits on for a trace not stored yet (store/service/arriving.py): a
read of one trace by a well-formed id in a collection it holds, for ``trace_wait`` at most
(the request's ``wait`` shortening it); the answer after the wait is the not-found it was.
Anything else answers at once: a malformed id, a collection the store does not hold (a
mistyped -C), ``wait`` 0 (a probe of the user's other collections), another operation.
(tests/integration/test_cli_trace_arriving.py: a trace that arrives during the wait.)"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.handlers import streamed
from tests.support.logs import told
from tests.support.poll import until
from tests.support.store import document, graph_rag, labels, msg
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store import processor
from trustgraph_flow.store.service.arriving import WAITS_A_USER
from trustgraph_flow.store.service.state import write
from trustgraph_flow.store.service.writer import write_batch

WAITING = "trustgraph_flow.store.service.arriving"


@asynccontextmanager
async def opened(tmp_path: Path, wait: float) -> AsyncIterator[processor.Ctx]:
    """The store's state as the runtime opens it (no broker), alice's and bob's collections
    written; a read waits ``wait`` seconds at most."""
    settings = processor.StoreSettings(data_dir=str(tmp_path), trace_wait=wait)
    async with processor.proc.context(settings, bus=None) as context:  # type: ignore[arg-type]
        batch = [msg(document() + labels() + graph_rag("g1", 1)), msg(labels(), user="bob")]
        await write(context, lambda s: write_batch(s, batch))
        yield context


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[processor.Ctx]:
    async with opened(tmp_path, 0.2) as context:
        yield context


@contextmanager
def watched() -> Iterator[list[logging.LogRecord]]:
    """The store's lines saying a read waits for its trace, while the block runs."""
    records = list[logging.LogRecord]()
    with told(WAITING, records.append):
        yield records


async def answer(ctx: processor.Ctx, **fields: Any) -> str:
    """The error type the explain service answers ``fields`` with (alice's, by default)."""
    request = ExplainRequest(**{"user": "alice", "collection": "default", **fields})
    with pytest.raises(ServiceError) as caught:
        async for _ in streamed(processor.explain_service(request, ctx)):
            pass
    return caught.value.type


async def refused(ctx: processor.Ctx, **fields: Any) -> tuple[str, bool]:
    """The error type the explain service answers ``fields`` with, and whether it waited."""
    with watched() as records:
        kind = await answer(ctx, **fields)
    return kind, bool(records)


WAITED: list[dict[str, Any]] = [
    {"operation": "get-trace", "id": "urn:trustgraph:question:g9"},
    {"operation": "get-trace", "id": "g9", "streaming": True},  # a bare session id
    {"operation": "export-trace", "id": "urn:trustgraph:question:g9"},
    {"operation": "verify-trace", "id": "urn:trustgraph:question:g9"},
    {"operation": "diff-traces", "id": "urn:trustgraph:question:g1", "other": "g9"},
    {"operation": "delete-trace", "id": "urn:trustgraph:question:g9"},
]
AT_ONCE: list[tuple[dict[str, Any], str]] = [
    ({"operation": "get-trace", "id": "urn:trustgraph:question:g9", "wait": 0}, "not-found"),
    ({"operation": "get-trace", "id": "g9", "collection": "typo"}, "not-found"),
    ({"operation": "get-trace", "id": "not a trace id"}, "bad-request"),
    ({"operation": "document-hierarchy", "id": "urn:trustgraph:doc:d9"}, "not-found"),
]


async def test_a_trace_not_stored_is_waited_for_then_not_found(ctx: processor.Ctx) -> None:
    for fields in WAITED:
        assert await refused(ctx, **fields) == (ErrorType.NOT_FOUND, True), fields


async def test_anything_else_answers_at_once(ctx: processor.Ctx) -> None:
    for fields, answer in AT_ONCE:  # a probe's wait 0, a mistyped -C, a malformed id, a document
        assert await refused(ctx, **fields) == (ErrorType(answer), False), fields


async def test_a_user_with_many_reads_waiting_is_answered_at_once(tmp_path: Path) -> None:
    """Each wait holds one of the service's requests: a user asking for unknown ids in a loop
    holds ``WAITS_A_USER`` at most (then is answered at once), and another user still waits."""
    async with opened(tmp_path, 60.0) as ctx, asyncio.TaskGroup() as group:
        with watched() as records:

            async def waiting(count: int) -> bool:
                return len(records) == count

            crowd = [
                group.create_task(answer(ctx, operation="get-trace", id=f"g{n}"))
                for n in range(10, 10 + WAITS_A_USER)
            ]
            await until(lambda: waiting(WAITS_A_USER))
            assert await answer(ctx, operation="get-trace", id="g99") == ErrorType.NOT_FOUND
            assert len(records) == WAITS_A_USER  # the one more did not wait
            bob = group.create_task(answer(ctx, operation="get-trace", id="g98", user="bob"))
            await until(lambda: waiting(WAITS_A_USER + 1))
        for task in [*crowd, bob]:
            task.cancel()


async def test_a_delete_waits_on_a_reader_and_deletes_the_trace_once_it_arrives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """delete-trace runs on the writer thread (everyone's ingestion; embedded, each of its
    jobs has every SPARQL snapshot taken again): its looks while it waits are a reader's,
    and only the first look and the delete itself are the writer's."""
    async with opened(tmp_path, 20.0) as ctx:
        writer, jobs = ctx.state.writer, list[object]()
        submit = writer.submit

        def counted(fn: Any, *args: Any) -> Any:
            jobs.append(fn)
            return submit(fn, *args)

        monkeypatch.setattr(writer, "submit", counted)
        kind = await answer(ctx, operation="delete-trace", id="g9", wait=0.5)
        assert kind == ErrorType.NOT_FOUND
        assert len(jobs) == 1  # its first look; before: one writer job a look (5)
        request = ExplainRequest(user="alice", operation="delete-trace", id="g8")

        async def delete() -> list[Any]:
            return [r async for r in streamed(processor.explain_service(request, ctx))]

        with watched() as records:
            deleting = asyncio.create_task(delete())

            async def waiting() -> bool:
                return bool(records)

            await until(waiting)
            batch = [msg(graph_rag("g8", 3), ident="g8")]
            await write(ctx, lambda s: write_batch(s, batch))
            replies = await deleting
        assert [d.id for d in replies[-1].deleted] == ["urn:trustgraph:question:g8"]
