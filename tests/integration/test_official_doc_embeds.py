"""The official ``tg-load-doc-embeds`` and ``tg-save-doc-embeds`` against our gateway: a
msgpack file of chunk vectors becomes chunk vectors of the named collection, found by
``tg-invoke-document-embeddings``; saved again, and loaded into another collection, it is found
there too (docs/gateway.md, bulk import and export)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import aiohttp
import pytest

from tests.support.official import official_bin, run_official
from tests.support.poll import eventually
from tests.support.stack import CliResult, Stack, run_argv
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.vectors import processor as vectors

pytestmark = pytest.mark.timeout(300)

TEXTS = {
    "urn:test:doc/c1": "Apples grow on trees in the orchard.",
    "urn:test:doc/c2": "The moon orbits the earth once a month.",
}

# The reference's core file: msgpack records ["de", {"m": {"i", "m", "c"}, "c": [{"c", "v"}]}],
# written with the official client's own msgpack (our venv does not carry it).
WRITE_CORE = """
import json, sys, msgpack
records = json.load(sys.stdin)
with open(sys.argv[1], "wb") as f:
    for r in records:
        f.write(msgpack.packb(["de", r], use_bin_type=True))
"""
# A saved core moved to another collection (the official --collection fails in the client).
MOVE_CORE = """
import sys, msgpack
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as out:
    for kind, r in msgpack.Unpacker(f, raw=False):
        r["m"]["c"] = sys.argv[3]
        out.write(msgpack.packb([kind, r], use_bin_type=True))
        print(r["m"]["i"], len(r["c"]), len(r["c"][0]["v"]))
"""


def finished(result: CliResult) -> bool:
    """Whether an official doc-embeds command did its work: 2.11.1 runs it on import, then its
    console script calls ``main()`` once more, which fails (exit 1) whatever happened."""
    late = "TypeError: main() missing 1 required positional argument: 'running'"
    lines = result.stderr.strip().splitlines()
    return result.code == 0 or (
        result.code == 1 and lines[-1:] == [late] and "Error" not in result.stdout
    )


async def save_for_a_while(bin_dir: Path, url: str, out: Path) -> str:
    """Run ``tg-save-doc-embeds`` a few seconds, then interrupt it as its user would (Ctrl-C)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    proc = await asyncio.create_subprocess_exec(
        str(bin_dir / "tg-save-doc-embeds"), "-u", url, "-o", str(out),
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    await asyncio.sleep(6)
    proc.send_signal(signal.SIGINT)
    said, _ = await asyncio.wait_for(proc.communicate(), 30)
    return said.decode()


async def test_load_and_save_doc_embeds(pulsar_url: str, tmp_path: Path) -> None:
    bin_dir = official_bin()
    async with (
        Stack(pulsar_url, "docembeds", [embeddings.proc, vectors.proc], data_dir=tmp_path) as stack,
        aiohttp.ClientSession() as http,
    ):
        url = stack.url + "api/v1/flow/default/service/embeddings"
        async with http.post(url, json={"texts": list(TEXTS.values())}) as reply:
            assert reply.status == 200, await reply.text()
            vecs = (await reply.json())["vectors"]
        chunks = [{"c": cid, "v": v} for cid, v in zip(TEXTS, vecs, strict=True)]
        core = tmp_path / "core.msgpack"
        records = [{"m": {"i": "urn:test:doc", "m": [], "c": "default"}, "c": chunks}]
        wrote = await run_argv(
            [str(bin_dir / "python"), "-c", WRITE_CORE, str(core)],
            stdin=json.dumps(records).encode(),
        )
        assert wrote.code == 0, wrote.stderr

        async def asked(collection: str, text: str) -> CliResult:
            return await run_official(
                bin_dir, stack, "tg-invoke-document-embeddings", "-c", collection, text
            )

        async def first(collection: str, text: str) -> str:
            found = await eventually(
                lambda: asked(collection, text), lambda r: "urn:test:doc/" in r.stdout
            )
            assert found.code == 0, found.stderr
            return next(ln for ln in found.stdout.splitlines() if ln.startswith("1. "))

        loaded = await run_official(
            bin_dir, stack, "tg-load-doc-embeds", "-u", stack.url, "-i", str(core)
        )
        assert finished(loaded), loaded.stdout + loaded.stderr
        assert "urn:test:doc/c1" in await first("default", "Where do apples grow?")
        assert "urn:test:doc/c2" in await first("default", "What orbits the earth?")
        other = await asked("copy", "Where do apples grow?")  # only the named collection
        assert other.code == 0 and "urn:test:doc" not in other.stdout

        # saved (the default collection: the socket's without ?collection=), moved to "copy"
        # and loaded again: the same chunks are found there
        saved = tmp_path / "saved.msgpack"
        said = await save_for_a_while(bin_dir, stack.url, saved)
        assert "Output file closed" in said, said
        moved = await run_argv(
            [str(bin_dir / "python"), "-c", MOVE_CORE, str(saved), str(tmp_path / "m"), "copy"]
        )
        assert moved.code == 0, moved.stderr
        assert moved.stdout.split() == ["urn:test:doc", "2", str(len(vecs[0]))]
        again = await run_official(
            bin_dir, stack, "tg-load-doc-embeds", "-u", stack.url, "-i", str(tmp_path / "m")
        )
        assert finished(again), again.stdout + again.stderr
        assert "urn:test:doc/c1" in await first("copy", "Where do apples grow?")
        assert "urn:test:doc/c2" in await first("copy", "What orbits the earth?")


async def test_bad_frames_are_refused_and_write_nothing(pulsar_url: str, tmp_path: Path) -> None:
    async with (
        Stack(pulsar_url, "docembeds", [vectors.proc], data_dir=tmp_path) as stack,
        aiohttp.ClientSession() as http,
    ):
        sock = stack.url + "api/v1/flow/default/import/document-embeddings"
        async with http.ws_connect(sock) as ws:
            await ws.send_str("{oops")
            assert json.loads(await ws.receive_str())["error"]["type"] == "bad-frame"
            for chunk, says in (
                ({"chunk_id": "urn:test:x", "vectors": ["a"]}, "list of numbers"),
                ({"chunk_id": "not an iri", "vectors": [1.0]}, "IRI"),
                ({"vectors": [1.0]}, "chunk_id"),
            ):
                frame = {"metadata": {"collection": "bad"}, "chunks": [chunk]}
                await ws.send_str(json.dumps(frame))
                error = json.loads(await ws.receive_str())["error"]
                assert error["type"] == "bad-frame" and says in error["message"], error
            many = [{"chunk_id": f"urn:test:n{i}", "vectors": [1.0]} for i in range(1001)]
            await ws.send_str(json.dumps({"metadata": {"collection": "bad"}, "chunks": many}))
            error = json.loads(await ws.receive_str())["error"]
            assert error["type"] == "bad-frame" and "at most 1000 chunks" in error["message"]
            good = {"chunk_id": "urn:test:good", "vectors": [[1.0, 0.0], [0.0, 1.0]]}
            await ws.send_str(json.dumps({"metadata": {"collection": "bad"}, "chunks": [good]}))
        export = stack.url + "api/v1/flow/default/export/document-embeddings"
        async with http.ws_connect(export, params={"collection": "bad"}) as ws:
            msg = await ws.receive(timeout=30)
        assert msg.type == aiohttp.WSMsgType.TEXT, msg
        # only the good frame was written; of its vectors the first is kept (stored unit length)
        assert json.loads(msg.data) == {
            "metadata": {"id": "", "metadata": [], "collection": "bad"},
            "chunks": [{"chunk_id": "urn:test:good", "vectors": [1.0, 0.0]}],
        }
