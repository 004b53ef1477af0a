"""tg-list-collections on the real stack: each user's collections, as every -C names them,
and none of another user's; the SPARQL endpoint's 404 points at it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack, create_key
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.processor import proc as store

P = "urn:test:in"


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with Stack(
        pulsar_url, prefix, [store, librarian], data_dir=tmp_path, token=ADMIN
    ) as running:
        for user, collection in (("alice", "default"), ("alice", "work"), ("bob", "private")):
            triple = Triple(s=iri(f"urn:test:{user}-{collection}"), p=iri(P), o=lit(user))
            meta = Metadata(id=f"{user}-{collection}", user=user, collection=collection)
            await running.publish(TRIPLES_STORE, Triples(metadata=meta, triples=[triple]))
        await eventually(
            lambda: running.cli("tg-query-triples", "-p", P, "-U", "bob", "-C", "private"),
            lambda r: "urn:test:bob" in r.stdout,
        )
        yield running


async def test_each_user_lists_their_own_collections(stack: Stack) -> None:
    alice, bob = await create_key(stack, "alice"), await create_key(stack, "bob")
    as_alice, as_bob = {"TRUSTGRAPH_TOKEN": alice}, {"TRUSTGRAPH_TOKEN": bob}
    shown = await stack.cli("tg-list-collections", env=as_alice)
    assert shown.code == 0, shown.stderr
    assert [ln.split()[0] for ln in shown.stdout.splitlines()[2:]] == ["default", "work"]
    listed = await stack.cli("tg-list-collections", "--format", "json", env=as_bob)
    assert [c["collection"] for c in json.loads(listed.stdout)] == ["private"], listed
    # The operator names the user; -C asks for one collection, and says when there is none.
    one = await stack.cli("tg-list-collections", "-U", "alice", "-C", "work", "--format", "csv")
    assert one.code == 0 and one.stdout.splitlines()[1:] == ["work,work,,"], one
    none = await stack.cli("tg-list-collections", "-C", "private", env=as_alice)
    assert (none.code, none.stdout) == (1, ""), none
    assert none.stderr.splitlines() == [
        "Error: no collection 'private' of this API key's user: tg-list-collections lists them all"
    ]
    nobody = await stack.cli("tg-list-collections", "-U", "carol")
    assert (nobody.code, nobody.stdout.strip()) == (0, "No collections of user 'carol'."), nobody

    # The SPARQL endpoint's 404 for a collection the user does not have names this command.
    url = f"{stack.url}api/v1/sparql/private"
    headers = {"Authorization": f"Bearer {alice}"}
    async with aiohttp.ClientSession() as http:
        params = {"query": "SELECT * WHERE { ?s ?p ?o }"}
        async with http.get(url, params=params, headers=headers) as resp:
            body = await resp.json()
    assert resp.status == 404, body
    assert "tg-list-collections" in body["error"]["message"]
