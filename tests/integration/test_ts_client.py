"""The official TypeScript client (``@trustgraph/client``, pinned in tests/js/package.json)
against our gateway: tests/js/drive.mjs runs each call the client documents on its default
socket path (``/api/socket``); each works with our data or ends at once with our refusal.

Node and the package (``npm ci`` in tests/js) are needed; without them the test skips, unless
``TG_REQUIRE_TS_CLIENT`` is set (``.ci/run`` sets it): then it fails.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.node import JS
from tests.support.node import node as node_with
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import ADMIN, Stack, create_key

pytestmark = pytest.mark.timeout(600)


def node() -> list[str]:
    return node_with("@trustgraph/client")


async def drive(
    command: list[str], stack: Stack, user: str, *token: str
) -> dict[str, dict[str, Any]]:
    """Run drive.mjs against the stack's /api/socket (with ``token``); its outcome per call."""
    url = stack.url.replace("http://", "ws://") + "api/socket"
    proc = await asyncio.create_subprocess_exec(
        *command,
        str(JS / "drive.mjs"),
        url,
        user,
        *token,
        cwd=JS,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 400)
    assert proc.returncode == 0, err.decode()[-2000:]
    lines = [json.loads(ln) for ln in out.decode().splitlines() if ln.startswith("{")]
    return {line["call"]: line for line in lines}


async def test_the_typescript_client_works_or_is_refused_at_once(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    command = node()
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "world-facts.pdf"))
        assert loaded.code == 0, loaded.stderr
        calls = await drive(command, stack, "trustgraph")

    assert [c for c, r in calls.items() if r["outcome"] == "hung"] == [], calls
    works = {c: r["value"] for c, r in calls.items() if r["outcome"] == "works"}
    labels = {t["o"].get("v") for t in works["triplesQuery"]}
    assert "Paris" in labels, works["triplesQuery"]
    assert works["textCompletion"]
    assert len(works["embeddings"]) == 1 and len(works["embeddings"][0]) > 1
    streamed = works["graphRagStreaming"]
    assert "Paris" in streamed["text"], streamed
    assert f"{streamed['explain'][0]}/synthesis" in streamed["explain"]  # the explain events
    docs = works["documentRagStreaming"]
    assert "Warsaw" in docs["text"] and f"{docs['explain'][0]}/synthesis" in docs["explain"]
    # The client's own bugs (docs/gateway.md): graphRag and documentRag take the first reply,
    # an explain event, as the answer; agent reads chunk_type, which 2.x replies no longer carry.
    assert works["graphRag"] == "" and works["documentRag"] == ""
    assert works["agent"] == {"text": ""}

    doc = "urn:test:ts-client:moons"
    assert doc in [d["id"] for d in works["librarian.getDocuments"]]
    assert doc not in [d["id"] for d in works["librarian.getDocuments.after"]]
    metadata = works["librarian.getDocumentMetadata"]
    assert metadata["title"] == "Moons of Quuxar" and metadata["kind"] == "text/plain"
    assert metadata["comments"] == "a note on moons" and metadata["tags"] == ["astro"]
    assert "librarian.removeDocument" in works and "librarian.getProcessing" in works

    refused = {c: r["error"] for c, r in calls.items() if r["outcome"] == "refused"}
    # What we do not offer ends with our reason, in a few seconds at most.
    # The flow and config services (docs/config.md): the one flow; the user's configuration.
    assert works["flows.getFlows"] == ["default"] and works["flows.getFlowBlueprints"] == [
        "default"
    ]
    assert "there is one flow, 'default'" in refused["flows.startFlow"]
    assert "template.graph-rag-answer" in works["config.getConfigAll"]["config"]["prompt"]
    assert "graph-rag-answer" in works["config.getPrompts"]  # the reference's template-index
    assert works["knowledge.getKnowledgeCores"] == []  # the user's knowledge cores: none yet
    # Collection management over the socket, as the client asks it: described, then listed.
    research = {"collection": "research", "name": "Research", "description": "papers"}
    assert works["collectionManagement.updateCollection"] == {**research, "tags": ["lab"]}
    listed = works["collectionManagement.listCollections"]
    assert {**research, "tags": ["lab"]} in listed and "default" in [
        c["collection"] for c in listed
    ]
    assert "operation" in refused["librarian.streamDocument"]  # no stream-document here
    assert set(works) | set(refused) == set(calls)
    slow = {c: r["ms"] for c, r in calls.items() if c in refused and r["ms"] > 5000}
    assert slow == {}


async def test_the_typescript_client_with_a_users_api_key(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """The client sends its key as ``?token=``: it acts as the key's user, and only as it."""
    command = node()
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, token=ADMIN) as stack:
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "world-facts.pdf"))
        assert loaded.code == 0, loaded.stderr  # the admin's, as user trustgraph
        key = await create_key(stack, "alice")
        calls = await drive(command, stack, "alice", key)

    assert [c for c, r in calls.items() if r["outcome"] == "hung"] == [], calls
    works = {c: r["value"] for c, r in calls.items() if r["outcome"] == "works"}
    assert works["triplesQuery"] == []  # trustgraph's graph is not alice's
    listed = works["librarian.getDocuments"]
    assert [(d["id"], d["user"]) for d in listed] == [("urn:test:ts-client:moons", "alice")]
    assert works["librarian.getDocumentMetadata"]["title"] == "Moons of Quuxar"
    assert works["librarian.getDocuments.after"] == []
    assert [c["collection"] for c in works["collectionManagement.listCollections"]] == [
        "default",
        "research",
    ]  # alice's own: none of trustgraph's
