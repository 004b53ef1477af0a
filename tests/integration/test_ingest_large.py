"""Large documents through the real pipeline with tg-load-document (issue 36 item 1).

A text larger than a broker message (5 MiB) and a 20 MB PDF load to ``complete`` as a
user loads them; a file over the librarian's limit is refused with one line. The 200 MB
PDF is the bench's (``python -m bench.bench_large_pdf``, docs/ingestion.md).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import aiohttp
import pytest

from tests.support.ingest import Client
from tests.support.large_pdf import make_pdf
from tests.support.processors import INGEST
from tests.support.sparql_server import embedded_only
from tests.support.stack import CliResult, Stack, run_cli, stack_fixture
from trustgraph_base.messaging import Bus
from trustgraph_flow.chunker import split

stack = stack_fixture(INGEST)
LOAD_TIMEOUT = 300.0  # the machine is shared: generous, the test asserts what happened
SENTENCES = "Sentence {n} says that Paris is the capital of France.\n"


async def load(stack: Stack, path: Path, *args: str) -> CliResult:
    return await run_cli("tg-load-document", str(path), *args, env=stack.env, timeout=LOAD_TIMEOUT)


async def read_text(client: Client, uri: str) -> str:
    """A text from the librarian, read in ranges as the chunker reads it."""
    got = ""
    while True:
        resp = await client.lib("get-content", id=uri, offset=len(got))
        part = base64.b64decode(resp.content).decode()
        got += part
        if not part or len(got) >= resp.total:
            return got


@pytest.mark.timeout(LOAD_TIMEOUT + 60)
async def test_a_text_larger_than_a_message_loads_completely(stack: Stack, tmp_path: Path) -> None:
    text = "".join(SENTENCES.format(n=n) for n in range(110_000))  # 6.1 MB, > 5 MiB
    assert len(text.encode()) > 5 * 2**20
    path = tmp_path / "long.txt"
    path.write_text(text)
    loaded = await load(stack, path, "--id", "long", "--chunk-size", "60000")
    assert loaded.code == 0, loaded.stderr
    doc = loaded.stdout.splitlines()[-1]
    assert doc == "urn:trustgraph:doc:long"
    assert loaded.stderr.splitlines()[-1].startswith("complete: 0 pages, 105 chunks")
    bus = Bus(stack.pulsar_url)
    client = Client(bus, stack.topics, user="trustgraph")
    try:
        assert await read_text(client, doc) == text  # kept whole, served in ranges
        last = base64.b64decode((await client.lib("get-content", id=f"{doc}/c104")).content)
        assert text.rstrip().endswith(last.decode()) and len(last) > 30_000
    finally:
        await client.close()
        await bus.close()


@pytest.mark.timeout(LOAD_TIMEOUT + 60)
@embedded_only("the chunker's reading of a text is under test; the store's backend is not")
async def test_a_large_text_that_is_not_ascii_is_chunked_as_written(
    stack: Stack, tmp_path: Path
) -> None:
    """Over 1 MiB a page-less text goes to the chunker by reference: it read the document's
    bytes as if they were characters, so a non-ASCII text got its tail again (67 chunks where
    its text gives 63) or failed where a character straddled a reply."""
    text = "".join(f"Line {n}: the café in Besançon serves crêpes.\n" for n in range(26_000))
    path = tmp_path / "accents.txt"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())  # 1.3 MB, with a byte-order mark
    loaded = await load(stack, path, "--id", "accents", "--chunk-size", "20000")
    assert loaded.code == 0, loaded.stderr
    doc = loaded.stdout.splitlines()[-1]
    spans = split(text, 20000, 100)  # the chunker's own split of the text as decoded
    assert loaded.stderr.splitlines()[-1].startswith(f"complete: 0 pages, {len(spans)} chunks")
    bus = Bus(stack.pulsar_url)
    client = Client(bus, stack.topics, user="trustgraph")
    try:
        for n in (0, len(spans) - 1):
            chunk = base64.b64decode((await client.lib("get-content", id=f"{doc}/c{n}")).content)
            span = spans[n]
            assert chunk.decode() == text[span.offset : span.offset + span.length]
    finally:
        await client.close()
        await bus.close()


@pytest.mark.timeout(LOAD_TIMEOUT + 60)
async def test_a_20_mb_pdf_loads_completely(stack: Stack, tmp_path: Path) -> None:
    path = tmp_path / "large.pdf"
    written = make_pdf(path, size=20 * 2**20, big_text=1_300_000)
    assert path.stat().st_size > 20 * 2**20
    loaded = await load(stack, path, "--id", "large", "--chunk-size", "60000")
    assert loaded.code == 0, loaded.stderr
    doc = loaded.stdout.splitlines()[-1]
    listed = await stack.cli("tg-list-documents", "--format", "json")
    (row,) = json.loads(listed.stdout)
    assert (row["id"], row["status"], row["pages"]) == (doc, "complete", 7)
    assert row["edges"] > 0
    bus = Bus(stack.pulsar_url)
    client = Client(bus, stack.topics, user="trustgraph")
    try:
        page = await read_text(client, f"{doc}/p3")  # the page too large to travel inline
        assert len(page) > 2**20 and page.split() == written.split()
    finally:
        await client.close()
        await bus.close()


async def test_a_file_over_the_limit_is_refused_in_one_line(stack: Stack, tmp_path: Path) -> None:
    path = tmp_path / "huge.pdf"
    with path.open("wb") as fh:  # sparse: 300 MB that costs no disk
        fh.truncate(300 * 2**20)
    refused = await load(stack, path)
    assert refused.code == 1
    assert refused.stderr.strip().splitlines() == [refused.stderr.strip()]  # one line, no traceback
    assert "314,572,800 bytes is larger than the librarian takes (268,435,456 bytes, 256 MiB)" in (
        refused.stderr
    )
    listed = await stack.cli("tg-list-documents", "--format", "json")
    assert json.loads(listed.stdout) == []  # nothing kept


@pytest.mark.timeout(LOAD_TIMEOUT + 60)
async def test_chunks_the_index_refuses_end_the_document_with_the_reason(
    stack: Stack, tmp_path: Path
) -> None:
    path = tmp_path / "wide.txt"  # chunks of ~100,000 bytes: the vector index takes 65,535
    path.write_text("".join(SENTENCES.format(n=n) for n in range(4_000)))
    loaded = await load(stack, path, "--id", "wide", "--chunk-size", "100000")
    assert loaded.code == 0, loaded.stderr  # complete, not processing for good
    listed = await stack.cli("tg-list-documents", "--format", "json")
    (row,) = json.loads(listed.stdout)
    assert (row["status"], row["chunks"]) == ("complete", 3)
    # c0 and c1 are both too large; the error names the one whose failure came first
    failed = [n for n in (0, 1) if f"/c{n}: failed on every try" in row["error"]]
    assert failed and "65,535" in row["error"], row


@pytest.mark.timeout(LOAD_TIMEOUT + 60)
async def test_a_long_page_is_drawn_from_a_layout_larger_than_one_reply(
    stack: Stack, tmp_path: Path
) -> None:
    path = tmp_path / "long-page.pdf"
    make_pdf(path, size=0, big_text=200_000)  # its layout: ~4 MB of JSON, replies hold 3 MiB
    loaded = await load(stack, path, "--id", "long-page", "--chunk-size", "20000")
    assert loaded.code == 0, loaded.stderr
    page = loaded.stdout.splitlines()[-1] + "/p3"
    body = {"page": page, "chars": [[0, 40]], "scale": 0.25}
    async with (
        aiohttp.ClientSession() as http,
        http.post(stack.url + "api/v1/page-image", json=body) as resp,
    ):
        assert resp.status == 200, await resp.text()
        assert resp.content_type == "image/png"


@pytest.mark.timeout(LOAD_TIMEOUT + 60)
async def test_a_long_load_piped_reports_extraction_as_it_goes(
    stack: Stack, tmp_path: Path
) -> None:
    """Piped, tg-load-document prints a line each tenth or so of the chunks, to the end.

    Each poll brings a few chunks; a line used to need a tenth in one poll, so a long
    load printed its first count and then nothing until "complete".
    """
    path = tmp_path / "many.txt"
    path.write_text("".join(SENTENCES.format(n=n) for n in range(5_000)))
    loaded = await load(stack, path, "--id", "many", "--chunk-size", "500")
    assert loaded.code == 0, loaded.stderr
    lines = loaded.stderr.splitlines()
    assert lines[-1].startswith("complete: 0 pages, ") and lines[-1].endswith(" edges")
    total = int(lines[-1].split(", ")[1].split()[0])
    assert total > 400
    counts = [int(line.split()[1].split("/")[0]) for line in lines if line.startswith("extract")]
    assert counts == sorted(counts) and counts[-1] <= total
    assert len([n for n in counts if 0 < n < total]) >= 3, lines  # not first count, then silence
