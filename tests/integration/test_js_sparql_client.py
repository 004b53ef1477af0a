"""A JavaScript SPARQL client nobody on the project wrote (``fetch-sparql-endpoint``, pinned
in tests/js/package.json) against the SPARQL 1.1 Protocol endpoint, with its defaults: form
POST, GET and direct POST, SELECT, ASK, CONSTRUCT and DESCRIBE (it asks for Turtle and reads
our RDF 1.2 answer), the protocol's dataset, and an unknown collection or an update refused."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.node import JS, node
from tests.support.sparql_stack import seeded_stack
from tests.support.stack import Stack, create_key
from tests.support.store import labels

pytestmark = pytest.mark.timeout(300)
FOX = "urn:trustgraph:entity:fox"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with seeded_stack(pulsar_url, prefix, tmp_path) as running:
        yield running


async def test_a_javascript_sparql_client_with_its_defaults(stack: Stack) -> None:
    command = node("fetch-sparql-endpoint")
    key = await create_key(stack, "alice")
    proc = await asyncio.create_subprocess_exec(
        *command,
        str(JS / "sparql.mjs"),
        stack.url + "api/v1/sparql",
        key,
        cwd=JS,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 200)
    assert proc.returncode == 0, err.decode()[-2000:]
    calls = {c["call"]: c for c in map(json.loads, out.decode().splitlines())}
    works = {name: c["value"] for name, c in calls.items() if "value" in c}
    for how in ("select", "select.get", "select.direct"):
        assert works[how] == ["dog", "fox"], calls[how]
    assert works["ask"] is True
    fox = [t for t in works["construct"] if t[1]["value"] == LABEL]
    assert fox == [
        [
            {"type": "NamedNode", "value": FOX},
            {"type": "NamedNode", "value": LABEL},
            {"type": "Literal", "value": "fox"},
        ]
    ]
    assert len(works["construct"]) == 2 and works["describe"] == 2
    # An RDF 1.2 triple term in our Turtle is read as an RDF/JS quad term, its subject the fox.
    assert works["quoted"] == [["Quad", {"type": "NamedNode", "value": FOX}]]
    assert works["dataset"] > len(labels())  # urn:graph:source as the default graph
    assert "404" in calls["unknown"]["error"] and "no-such-collection" in calls["unknown"]["error"]
    # Refused; the client does not read an update's error body (it asks to ignore it).
    assert "HTTP status 400" in calls["update"]["error"]
