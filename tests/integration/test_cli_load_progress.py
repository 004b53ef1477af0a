"""tg-load-document while it follows a document: a restarted gateway is waited on, and a
long page-less text counts its chunks as they are made."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.golden.golden import invoke
from tests.support.poll import eventually
from tests.support.processors import INGEST, SAMPLES
from tests.support.stack import Stack, command_line, stack_fixture
from trustgraph_base.bounds import Bound
from trustgraph_base.messaging import free_port
from trustgraph_cli import options
from trustgraph_cli.client import GatewayClient
from trustgraph_flow import decoder
from trustgraph_flow.gateway.server import Gateway, GatewaySettings
from trustgraph_flow.store.views import hierarchy

stack = stack_fixture(INGEST)


async def test_a_load_waits_for_a_restarted_gateway(stack: Stack, tmp_path: Path) -> None:
    """The gateway goes away while the load is followed and is back a second later, as
    tg-start's launcher restarts a crashed one: the load waits for it, then completes."""
    settings = second_gateway(stack, tmp_path)
    gateway = Gateway(settings)
    url = await gateway.start()
    await stack.stop_processor(decoder.proc.name)  # the load stays in "decoding" meanwhile
    proc = await loading(url, str(SAMPLES / "capitals.txt"))
    assert proc.stderr is not None
    try:
        while not (line := await asyncio.wait_for(proc.stderr.readline(), 30)).startswith(
            b"decoding"
        ):
            assert line, "tg-load-document ended before following the document"
        await gateway.stop()
        await asyncio.sleep(1)  # the launcher's restart delay: the behaviour under test
        gateway = Gateway(settings)
        await gateway.start()
        await stack.start_processor(decoder.proc)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
        await gateway.stop()
    lines = err.decode().splitlines()
    assert proc.returncode == 0, lines
    assert f"gateway at {url} refused the connection: waiting up to 5 s for it to come back" in (
        lines
    )
    assert lines[-1].startswith("complete: ") and out.decode().startswith("urn:trustgraph:doc:")


async def test_a_stream_waits_for_a_restarted_gateway(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The WebSocket, as REST: a gateway that answered this client and then refuses its next
    connect (nothing was sent) is waited on, one line on stderr, and the request goes."""
    settings = second_gateway(stack, tmp_path)
    gateway = Gateway(settings)
    url = await gateway.start()
    ask = {"operation": "list-traces"}
    try:
        async with GatewayClient(options.Gateway(url, None, None, "default", False)) as client:
            assert await answers(client.stream("explain", ask)) == [[]]
            await gateway.stop()
            again = asyncio.create_task(answers(client.stream("explain", ask)))
            said = ""
            while "refused the connection" not in said:  # refused and waiting: bring it back
                assert not again.done(), again.result()
                said += capsys.readouterr().err
                await asyncio.sleep(0.02)
            gateway = Gateway(settings)
            await gateway.start()
            assert await asyncio.wait_for(again, 10) == [[]]
    finally:
        await gateway.stop()
    assert said == (
        f"gateway at {url} refused the connection: waiting up to 5 s for it to come back\n"
    )


async def answers(replies: AsyncIterator[dict[str, Any]]) -> list[Any]:
    """The traces of each list-traces reply."""
    return [r["traces"] async for r in replies]


async def test_a_long_text_shows_its_chunks_as_they_are_made(stack: Stack, tmp_path: Path) -> None:
    """A page-less text is one page to the chunker: while its spans are recorded, then its
    chunks go out, the progress says so (it said "decoding" for a minute on 20 MB)."""
    await stack.stop_processor("extractor")  # the load stops once chunked: cheap, and shown
    text = tmp_path / "long.txt"
    text.write_text("Ada Lovelace was born in London in the year 1815. " * 4000)
    proc = await loading(
        stack.url, str(text), "--id", "long", "--chunk-size", "100", "--chunk-overlap", "0"
    )
    assert proc.stderr is not None
    lines: list[str] = []
    try:
        while not lines or not lines[-1].startswith("extracting"):
            line = await asyncio.wait_for(proc.stderr.readline(), 60)
            assert line, lines
            lines.append(line.decode().rstrip())
    finally:
        proc.kill()
        await proc.wait()
    assert lines[-1] == "extracting 0/2000 chunks", lines
    # split, the text's 2,000 chunk spans are recorded with the librarian (~1 s here; ¼ of
    # the wait at 5 MB): its own stage, no longer "decoding"; then chunking counts to 2,000
    recording = lines.index("recording 2000 chunk spans")
    assert [line.split()[0] for line in lines[recording + 1 : -1]] == ["chunking"] * (
        len(lines) - recording - 2
    ), lines
    made = [line.split() for line in lines if line.startswith("chunking")]
    counts = [int(n.removesuffix("/2000")) for _, n, unit in made if unit == "chunks"]
    assert len(counts) == len(made) >= 1 and counts == sorted(set(counts)), lines
    assert 0 < counts[-1] < 2000, lines
    await its_hierarchy_is_shown_a_window_at_a_time(stack, "urn:trustgraph:doc:long", 2000)


async def its_hierarchy_is_shown_a_window_at_a_time(stack: Stack, doc: str, total: int) -> None:
    """A document of more chunks than the command shows (200) is shown its first 200, with a
    line naming the next window; the JSON carries the count; a request with no window, over
    what a reply may hold, is refused at the count (the bound lowered here below ``total``)."""
    first = await eventually(
        lambda: invoke(stack.url, "tg-show-document-hierarchy", doc),
        lambda r: f"of {total:,}" in r.stdout,
    )
    assert first.code == 0, first.stderr
    assert f"Chunks: 1-200 of {total:,} (the next: --offset 200)" in first.stdout
    assert first.stdout.count("Chunk ") == 200
    last = await invoke(
        stack.url, "tg-show-document-hierarchy", doc, "--offset", "1900", "--format", "json"
    )
    assert last.code == 0, last.stderr
    view = json.loads(last.stdout)
    assert view["chunk_total"] == total
    assert [c["index"] for c in view["chunks"]] == list(range(1900, total))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hierarchy, "CHUNK_WINDOW", Bound(None, 1, 1000))
        async with aiohttp.ClientSession() as http:
            explain = stack.url + "api/v1/flow/default/service/explain"
            body = {"operation": "document-hierarchy", "id": doc}
            async with http.post(explain, json=body) as resp:
                status, said = resp.status, await resp.json()
    assert (status, said["error"]["type"]) == (200, "result-too-large"), said  # as data
    assert said["error"]["message"] == (
        f"the document has {total:,} chunks, more than one reply holds (1,000 at most): ask "
        "for its chunks a window at a time (chunk_limit, chunk_offset)"
    )


def second_gateway(stack: Stack, tmp_path: Path) -> GatewaySettings:
    """A gateway of its own on ``stack``'s broker, to stop and start again on its port."""
    return GatewaySettings(
        pulsar_url=stack.pulsar_url, topic_prefix=stack.prefix, host="127.0.0.1",
        port=free_port(), data_dir=str(tmp_path / "gw"), instance="second",
    )  # fmt: skip


async def loading(url: str, *args: str) -> asyncio.subprocess.Process:
    """tg-load-document ``args`` against the gateway at ``url``, its stderr read as it goes."""
    return await asyncio.create_subprocess_exec(
        *command_line("tg-load-document"), *args, "--api-url", url,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
