"""Documents found by user, as the reference's librarian finds them: the official client
names no collection when it reads a document, so a document, or a trace's answer or
observation document, of another collection is looked for in the caller's other
collections — never in another user's, nor outside the collections a key may read."""

from __future__ import annotations

import base64
from pathlib import Path

import aiohttp
import pytest

from tests.support.official import official_bin, run_official
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import ADMIN, Stack, create_key

pytestmark = pytest.mark.timeout(400)


async def test_a_document_of_another_collection_is_found_by_user(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    official = official_bin()
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, token=ADMIN) as stack:
        alice = await create_key(stack, "alice")
        only_default = await create_key(stack, "alice", "--collection", "default")
        bob = await create_key(stack, "bob")
        text = SAMPLES / "capitals.txt"
        loaded = await stack.cli("tg-load-document", str(text), "-C", "research", "-t", alice)
        assert loaded.code == 0, loaded.stderr
        doc = loaded.stdout.strip().splitlines()[-1]
        asked = await stack.cli(
            "tg-invoke-graph-rag", "-q", "What is the capital of France?", "-C", "research",
            "-t", alice,
        )  # fmt: skip
        assert asked.code == 0, asked.stderr
        trace = next(
            ln for ln in asked.stderr.splitlines() if ln.startswith("trace: ")
        ).removeprefix("trace: ")

        # The official client reads a document naming no collection: found in research.
        got = await run_official(
            official, stack, "tg-get-document-content", doc, "-o", str(tmp_path / "got"),
            "-t", alice,
        )  # fmt: skip
        assert got.code == 0, got.stderr
        assert (tmp_path / "got").read_bytes() == text.read_bytes()
        shown = await run_official(
            official, stack, "tg-show-explain-trace", trace, "-C", "research", "-t", alice
        )
        assert shown.code == 0, shown.stderr
        assert "Error fetching content" not in shown.stdout, shown.stdout
        answer = asked.stdout.strip().splitlines()[0]
        assert f"Answer:\n  {answer[:40]}" in shown.stdout, shown.stdout

        async def content(key: str, collection: str) -> tuple[int, str]:
            body = {"operation": "get-document-content", "document-id": doc}
            body["collection"] = collection
            headers = {"Authorization": f"Bearer {key}"}
            async with (
                aiohttp.ClientSession() as http,
                http.post(stack.url + "api/v1/librarian", json=body, headers=headers) as r,
            ):
                reply = await r.json()
                if "error" in reply:  # the reference's REST answers an error in the body
                    return r.status, reply["error"]["type"]
                return r.status, base64.b64decode(reply["content"]).decode()

        assert await content(alice, "default") == (200, text.read_text())
        assert await content(alice, "nowhere") == (200, text.read_text())
        # A key for alice's default collection only, and bob, find nothing there.
        assert (await content(only_default, "default"))[1] == "not-found"
        assert (await content(bob, "default"))[1] == "not-found"
