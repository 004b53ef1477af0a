"""tg-export-audit and tg-verify-log read the store's answers a page at a time, each asked with
the cursor the page before named (trustgraph_cli/paging.py). A store that names as the next
a page it sent before stops the command in one line, whichever loop it is in (the trace
list, the log, a document's pages, the log's verification): before, only a document page
naming itself was caught, and every other repeat asked again without end.

The store here is a gateway stand-in at the HTTP level (the explain service's REST route),
answering each operation with one trace, one document and its log entry; ``pages`` says
what each paged operation names as the next page of each cursor it is asked with."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.support.stack import CliResult, run_cli

pytestmark = pytest.mark.no_store  # a stand-in answers: once, in the embedded run

DOC = "urn:trustgraph:doc:d1"
TRACE = "urn:trustgraph:question:q1"
TRIG = f'<urn:graph:source> {{ <{DOC}/p1/c0> <urn:p> "chunk" . }}\n'
SUMMARY = {"id": TRACE, "type": "graph-rag", "question": "q", "time": "2026-12-07T00:00:00Z"}
ENTRY = {"record": {"entry": {"kind": "document", "subject": DOC}}}
SHORT = 20.0  # seconds: a command that loops without end is stopped well before the test's own


class StandIn:
    """The explain service as a gateway answers it over REST; ``pages[operation]`` maps each
    cursor the operation is asked with (None: none sent) to the cursor it names next."""

    def __init__(self, pages: dict[str, dict[str | None, str]]) -> None:
        self.pages = pages
        self.asked: list[tuple[str, str | None]] = []

    async def explain(self, request: web.Request) -> web.Response:
        body = await request.json()
        operation, cursor = body["operation"], body.get("cursor")
        self.asked.append((operation, cursor))
        answer: dict[str, Any] = {}
        if operation == "list-traces":
            answer["traces"] = [] if cursor else [SUMMARY]
        elif operation == "export-trace":
            answer["export"] = TRIG
        elif operation == "audit-log":
            log = {"chains": {"local": [] if cursor else [ENTRY]}, "heads": {}, "total": 1}
            answer["export"] = json.dumps({**log, "keys": {}})
        elif operation == "verify-log":
            answer["verification"] = {"verified": True, "entries": 0 if cursor else 1}
        elif operation == "export-document":
            answer["export"] = "" if cursor else TRIG.replace("chunk", "signed")
        elif operation == "seal-bundle":
            answer["export"] = "{}"
        if (after := self.pages.get(operation, {}).get(cursor)) is not None:
            answer["cursor"] = after
        return web.json_response(answer)


@asynccontextmanager
async def gateway(pages: dict[str, dict[str | None, str]]) -> AsyncIterator[tuple[str, StandIn]]:
    stand_in = StandIn(pages)
    app = web.Application()
    app.router.add_post("/api/v1/flow/default/service/explain", stand_in.explain)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/", stand_in
    finally:
        await runner.cleanup()


async def command(url: str, name: str, *args: str) -> CliResult:
    return await run_cli(name, *args, env={"TRUSTGRAPH_URL": url}, timeout=SHORT)


@pytest.mark.parametrize(
    ("pages", "said"),
    [
        # the second page of the trace list names the first page's cursor again
        ({"list-traces": {None: "t1", "t1": "t2", "t2": "t1"}}, "the trace list's page 2 again"),
        # the log's second page names itself
        ({"audit-log": {"": "l1", "l1": "l1"}}, "the log's page 2 again"),
        # a document's pages go round two cursors
        ({"export-document": {"": "d1", "d1": "d2", "d2": "d1"}}, f"document {DOC!r}'s page 2"),
    ],
    ids=["trace-list", "log", "document"],
)
async def test_a_store_naming_a_page_again_stops_the_export_in_one_line(
    tmp_path: Path, pages: dict[str, dict[str | None, str]], said: str
) -> None:
    async with gateway(pages) as (url, stand_in):
        got = await command(url, "tg-export-audit", str(tmp_path / "bundle"))
    assert got.code == 1 and got.stdout == "", got
    last = got.stderr.splitlines()[-1]  # after the progress lines
    assert last.startswith("Error: the store sent ") and said in last, got.stderr
    assert last.endswith("(a store that names a page it sent as the next would never end)")
    assert len(stand_in.asked) < 10  # each page asked once, then stopped
    assert not (tmp_path / "bundle").exists()


async def test_the_logs_verification_naming_a_page_again_stops_in_one_line() -> None:
    async with gateway({"verify-log": {"": "v1", "v1": "v1"}}) as (url, stand_in):
        got = await command(url, "tg-verify-log")
    assert got.code == 1, got
    assert got.stderr.splitlines()[-1].startswith("Error: the store sent the log's page 2 again")
    assert stand_in.asked == [("verify-log", ""), ("verify-log", "v1")]


async def test_pages_are_joined_until_the_last(tmp_path: Path) -> None:
    """Every loop reads each page once, in order, and the bundle holds all of them."""
    pages: dict[str, dict[str | None, str]] = {
        "list-traces": {None: "t1"},
        "audit-log": {"": "l1"},
        "export-document": {"": "d1"},
    }
    async with gateway(pages) as (url, stand_in):
        got = await command(url, "tg-export-audit", str(tmp_path / "bundle"))
    assert got.code == 0, got
    assert got.stdout.startswith("wrote 1 trace, 1 document, 1 log entry in 1 chain"), got.stdout
    assert [a for a in stand_in.asked if a[0] != "export-trace"] == [
        ("list-traces", None),
        ("list-traces", "t1"),
        ("audit-log", ""),
        ("audit-log", "l1"),
        ("export-document", ""),
        ("export-document", "d1"),
        ("seal-bundle", None),
    ]
    (document,) = (tmp_path / "bundle" / "documents").iterdir()
    assert "signed" in document.read_text()
