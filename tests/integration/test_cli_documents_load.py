"""tg-load-document, tg-list-documents, tg-show-document-hierarchy on the real ingestion pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.golden import ENV, check, invoke
from tests.support.poll import eventually
from tests.support.processors import INGEST, SAMPLES
from tests.support.stack import Stack, stack_fixture
from trustgraph_flow.librarian import processor as librarian
from trustgraph_flow.store.service import state as service_state

PDF = "urn:trustgraph:doc:world-facts"


stack = stack_fixture(INGEST)


async def test_load_list_and_show_a_pdf(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = await invoke(stack.url, "tg-list-documents")
    assert (empty.code, empty.stdout) == (
        0,
        "No documents in collection 'default' of user 'trustgraph'.\n",
    )

    loaded = await stack.cli(
        "tg-load-document",
        str(SAMPLES / "world-facts.pdf"),
        "--id",
        "world-facts",
        "--title",
        "World facts",
    )
    assert loaded.code == 0, loaded.stderr
    assert loaded.stdout.splitlines()[-1] == PDF  # the URI is the last line of stdout
    progress = loaded.stderr.splitlines()  # piped: plain lines, one per stage reached
    assert progress[0] == "uploading 2336/2336 bytes"
    assert progress[-1] == "complete: 3 pages, 3 chunks, 13 edges"  # plural-aware

    listed = await invoke(stack.url, "tg-list-documents", "--format", "json")
    (row,) = json.loads(listed.stdout)
    assert {k: row[k] for k in ("id", "title", "type", "status", "pages", "chunks", "edges")} == {
        "id": PDF,
        "title": "World facts",
        "type": "application/pdf",
        "status": "complete",
        "pages": 3,
        "chunks": 3,
        "edges": 13,
    }
    table = await invoke(stack.url, "tg-list-documents")
    assert table.stdout.splitlines()[0].split() == [
        "ID",
        "Title",
        "Type",
        "Status",
        "Pages",
        "Chunks",
        "Edges",
        "Time",
    ]
    assert table.stdout.splitlines()[2].split()[:8] == [
        PDF,
        "World",
        "facts",
        "application/pdf",
        "complete",
        "3",
        "3",
        "13",
    ]

    tree = await eventually(  # the store writes the last subgraph a moment after "complete"
        lambda: invoke(
            stack.url, "tg-show-document-hierarchy", PDF, "--show-content", "--max-content", "60"
        ),
        lambda r: r.stdout.count(" → ") == 2 * 13,
    )
    assert tree.code == 0, tree.stderr
    check("hierarchy_world_facts.txt", tree.stdout)
    as_json = await stack.cli(
        "tg-show-document-hierarchy", "world-facts", "--show-content", "--format", "json", env=ENV
    )
    check("hierarchy_world_facts.json", as_json.stdout)
    doc = json.loads(as_json.stdout)
    assert [p["number"] for p in doc["pages"]] == [1, 2, 3]
    assert all(c["content"] for p in doc["pages"] for c in p["chunks"])  # full text, not cut
    hidden = await invoke(stack.url, "tg-show-document-hierarchy", PDF, "-U", "bob")
    assert hidden.code == 1
    assert hidden.stderr == f"Error: no document '{PDF}' in collection 'default' of user 'bob'.\n"

    # A document too large for one reply (here: the reply limit lowered below this one's
    # 4.4 KB, over two chunks' 2.9 KB) is shown a window of chunks at a time; the default
    # window (200) too large, the error names how.
    monkeypatch.setattr(service_state, "MAX_REPLY_BYTES", 4_000)
    whole = await invoke(stack.url, "tg-show-document-hierarchy", PDF)
    assert (whole.code, whole.stdout) == (1, "")
    assert whole.stderr == (
        f"Error: the hierarchy of '{PDF}' is too large for one reply at 200 chunks: ask "
        "fewer with --limit N (and --offset M to skip the first M).\n"
    )
    second = await invoke(stack.url, "tg-show-document-hierarchy", PDF, "-l", "1", "--offset", "1")
    assert second.code == 0, second.stderr
    assert "Chunks: 2 of 3 (the next: --offset 2)" in second.stdout
    assert "Page 2" in second.stdout and "Page 1" not in second.stdout
    assert "Page 3" not in second.stdout and "Nile → flows through → Cairo" in second.stdout
    rest = await stack.cli(
        "tg-show-document-hierarchy", PDF, "--offset", "1", "--show-content", "--format", "json"
    )
    assert rest.code == 0, rest.stderr
    pages = json.loads(rest.stdout)["pages"]
    assert [(p["number"], len(p["chunks"])) for p in pages] == [(2, 1), (3, 1)]
    assert all(c["content"] for p in pages for c in p["chunks"])
    beyond = await invoke(stack.url, "tg-show-document-hierarchy", PDF, "--offset", "3")
    assert beyond.code == 0 and "Chunks: none: the document has 3" in beyond.stdout


async def test_document_errors(stack: Stack, tmp_path: Path) -> None:
    unknown = await stack.cli("tg-show-document-hierarchy", "urn:trustgraph:doc:nope")
    assert (unknown.code, unknown.stdout) == (1, "")
    assert unknown.stderr == (
        "Error: no document 'urn:trustgraph:doc:nope' in collection 'default' of user 'trustgraph'.\n"
    )

    text = str(SAMPLES / "capitals.txt")
    first = await invoke(stack.url, "tg-load-document", text, "--no-wait")
    uri = first.stdout.strip()
    assert first.code == 0 and uri.startswith("urn:trustgraph:doc:capitals-")
    again = await invoke(stack.url, "tg-load-document", text)
    assert again.code == 1 and "already exists" in again.stderr
    assert len(again.stderr.splitlines()) == 1

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"this is not a PDF at all")
    failed = await stack.cli("tg-load-document", str(broken))
    assert failed.code == 1 and failed.stdout == ""
    assert failed.stderr.splitlines()[-1].startswith("Error: processing urn:trustgraph:doc:broken-")
    broken_id = failed.stderr.splitlines()[-1].split()[2]
    why = await stack.cli("tg-show-document-hierarchy", broken_id)
    assert (why.code, why.stdout) == (1, "")
    assert why.stderr.startswith(
        f"Error: document '{broken_id}' failed and has no pages or chunks: "
    )
    assert "does not exist" not in why.stderr and "no document" not in why.stderr
    assert len(why.stderr.splitlines()) == 1
    listed = await invoke(stack.url, "tg-list-documents", "--format", "json")
    states = {r["id"]: r["status"] for r in json.loads(listed.stdout)}
    assert states[uri] in ("processing", "complete") and "failed" in states.values()
    other = await invoke(stack.url, "tg-list-documents", "-U", "bob")
    assert other.stdout == "No documents in collection 'default' of user 'bob'.\n"


async def test_a_stalled_pipeline_is_reported_not_waited_on_forever(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, [librarian.proc], data_dir=tmp_path) as alone:
        # No decoder runs: the document is stored and then never makes progress.
        result = await invoke(
            alone.url, "tg-load-document", str(SAMPLES / "writers.md"), "--stall-timeout", "1"
        )
        assert result.code == 1 and result.stdout == ""
        error = result.stderr.splitlines()[-1]
        assert (
            error.startswith("Error: urn:trustgraph:doc:writers-")
            and "no progress for 1 s" in error
        )
        assert "status processing, 0 pages, 0/0 chunks extracted" in error


EVIL = "\x1b[2J\x1b]0;owned\x07A rather long title for a small note"
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07A rather long title for a small note"


async def test_piped_tables_keep_whole_titles_and_escape_control_characters(
    stack: Stack, tmp_path: Path
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Ada Lovelace was born in London.\n")
    loaded = await stack.cli("tg-load-document", str(note), "--title", EVIL)
    assert loaded.code == 0, loaded.stderr
    table = await stack.cli("tg-list-documents", env=ENV)
    (row,) = table.stdout.splitlines()[2:]
    assert SHOWN in row and "\x1b" not in table.stdout  # whole, not cut to 12 characters
    listed = await stack.cli("tg-list-documents", "--format", "json")
    assert json.loads(listed.stdout)[0]["title"] == EVIL  # JSON stays exact
    tree = await stack.cli("tg-show-document-hierarchy", loaded.stdout.strip(), env=ENV)
    assert f'Title: "{SHOWN}"' in tree.stdout and "\x1b" not in tree.stdout
