"""Which reads the store waits on for a trace not stored yet (store/service/arriving.py): a
read of one trace by a well-formed id in a collection it holds, for ``trace_wait`` at most
(the request's ``wait`` shortening it); the answer after the wait is the not-found it was.
Anything else answers at once: a malformed id, a collection the store does not hold (a
mistyped -C), ``wait`` 0 (a probe of the user's other collections), another operation.
(tests/integration/test_cli_trace_arriving.py: a trace that arrives during the wait.)"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.handlers import streamed
from tests.support.store import document, graph_rag, labels, msg
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store import processor
from trustgraph_flow.store.service.state import write
from trustgraph_flow.store.service.writer import write_batch

WAITING = "trustgraph_flow.store.service.arriving"


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[processor.Ctx]:
    """The store's state as the runtime opens it (no broker), alice's collection written."""
    settings = processor.StoreSettings(data_dir=str(tmp_path), trace_wait=0.2)
    async with processor.proc.context(settings, bus=None) as context:  # type: ignore[arg-type]
        batch = [msg(document() + labels() + graph_rag("g1", 1))]
        await write(context, lambda s: write_batch(s, batch))
        yield context


async def refused(ctx: processor.Ctx, **fields: Any) -> tuple[str, bool]:
    """The error type the explain service answers ``fields`` with, and whether it waited."""
    request = ExplainRequest(**{"user": "alice", "collection": "default", **fields})
    logger, records = logging.getLogger(WAITING), list[logging.LogRecord]()

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    seen = Seen(logging.DEBUG)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(seen)
    try:
        with pytest.raises(ServiceError) as caught:
            async for _ in streamed(processor.explain_service(request, ctx)):
                pass
    finally:
        logger.removeHandler(seen)
        logger.setLevel(level)
    return caught.value.type, bool(records)


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
