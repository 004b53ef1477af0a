"""Per-user API keys on the real stack: the key fixes the user; admin commands manage keys."""

from __future__ import annotations

import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack, create_key
from tests.support.store import graph_rag, msg
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.provenance import uris
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.store.processor import proc as store

P = "urn:test:secret"


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token=ADMIN) as running:
        for user, collection in (("alice", "default"), ("alice", "work"), ("bob", "default")):
            triple = Triple(s=iri(f"urn:test:{user}-{collection}"), p=iri(P), o=lit(user))
            meta = Metadata(id=f"{user}-{collection}", user=user, collection=collection)
            await running.publish(TRIPLES_STORE, Triples(metadata=meta, triples=[triple]))
        await eventually(
            lambda: running.cli("tg-query-triples", "-p", P, "-U", "bob"),
            lambda r: "urn:test:bob" in r.stdout,
        )
        yield running


def frame(rid: str, service: str, request: dict[str, Any]) -> str:
    return json.dumps({"id": rid, "service": service, "request": request})


async def test_a_key_acts_as_its_user_and_no_other(stack: Stack) -> None:
    alice, bob = await create_key(stack, "alice"), await create_key(stack, "bob")
    assert alice.startswith("tg_") and alice != bob

    code, out, _ = await stack.cli("tg-query-triples", "-p", P, env={"TRUSTGRAPH_TOKEN": alice})
    assert code == 0 and "urn:test:alice-default" in out and "bob" not in out
    code, out, _ = await stack.cli("tg-query-triples", "-p", P, env={"TRUSTGRAPH_TOKEN": bob})
    assert code == 0 and "urn:test:bob-default" in out and "alice" not in out

    # bob naming alice: refused on the command line, over REST and on a raw socket frame
    code, out, err = await stack.cli(
        "tg-query-triples", "-p", P, "-U", "alice", env={"TRUSTGRAPH_TOKEN": bob}
    )
    assert (code, out) == (1, "")
    assert "belongs to user 'bob'; it cannot act as user 'alice'" in err and "[forbidden]" in err
    headers = {"Authorization": f"Bearer {bob}"}
    url = stack.url + "api/v1/flow/default/service/"
    async with aiohttp.ClientSession() as http:
        for service, body in (
            ("triples", {"user": "alice", "p": {"t": "i", "i": P}}),
            ("sparql", {"user": "alice", "query": "SELECT * { ?s ?p ?o }"}),
            ("explain", {"user": "alice", "operation": "list-traces"}),
        ):
            async with http.post(url + service, json=body, headers=headers) as resp:
                assert resp.status == 200  # the refusal is in the body, as the reference sends it
                assert (await resp.json())["error"]["type"] == "forbidden"
        async with http.post(
            stack.url + "api/v1/librarian",
            json={"operation": "list-documents", "user": "alice"},
            headers=headers,
        ) as resp:
            assert (await resp.json())["error"]["type"] == "forbidden"
        async with http.ws_connect(stack.url + "api/v1/socket", params={"token": bob}) as ws:
            await ws.send_str(frame("1", "triples", {"user": "alice", "p": {"t": "i", "i": P}}))
            reply = json.loads(await ws.receive_str(timeout=10))
            assert reply["id"] == "1" and reply["error"]["type"] == "forbidden"
            await ws.send_str(frame("2", "triples", {"p": {"t": "i", "i": P}}))
            reply = json.loads(await ws.receive_str(timeout=10))
            assert [t["s"]["i"] for t in reply["response"]["response"]] == ["urn:test:bob-default"]
        async with http.ws_connect(stack.url + "api/v1/socket") as ws:  # auth by first frame
            await ws.send_str(json.dumps({"type": "auth", "token": bob}))
            assert json.loads(await ws.receive_str(timeout=10)) == {"type": "auth-ok"}
            await ws.send_str(frame("3", "sparql", {"user": "alice", "query": "ASK {}"}))
            assert json.loads(await ws.receive_str(timeout=10))["error"]["type"] == "forbidden"

    # the admin token still acts for any user it names
    code, out, _ = await stack.cli("tg-query-triples", "-p", P, "-U", "alice", "-C", "work")
    assert code == 0 and "urn:test:alice-work" in out


async def test_a_key_limited_to_collections(stack: Stack) -> None:
    key = await create_key(stack, "alice", "--collection", "work")
    env = {"TRUSTGRAPH_TOKEN": key}
    code, out, _ = await stack.cli("tg-query-triples", "-p", P, "-C", "work", env=env)
    assert code == 0 and "urn:test:alice-work" in out
    code, _, err = await stack.cli("tg-query-triples", "-p", P, env=env)
    assert code == 1 and "may not use collection 'default' (allowed: work)" in err
    # nor through a processing record naming another collection as its target
    record = {"id": "p1", "document-id": "d", "collection": "default"}
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as http:
        async with http.post(
            stack.url + "api/v1/librarian",
            json={
                "operation": "add-processing",
                "collection": "work",
                "processing-metadata": record,
            },
        ) as resp:
            error = (await resp.json())["error"]
    assert error["type"] == "forbidden" and "'default' (allowed: work)" in error["message"]
    # The store's list of the user's collections names only those the key may use, as
    # collection management does (it named 'default' too).
    explain = stack.url + "api/v1/flow/default/service/explain"
    listing = {"operation": "list-collections", "collection": "work"}
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as http:
        async with http.post(explain, json=listing) as resp:
            assert (await resp.json())["collections"] == ["work"]
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {ADMIN}"}) as http:
        async with http.post(explain, json={**listing, "user": "alice"}) as resp:
            assert (await resp.json())["collections"] == ["default", "work"]
    # A trace id shown in the wrong collection is said to be in the right one, but only to
    # whom may read it: the key limited to 'work' is not told what 'default' holds.
    await stack.publish(TRIPLES_STORE, msg(graph_rag("k1", 1), user="alice"))
    trace = uris.graph_rag_question_uri("k1")
    shown = await eventually(
        lambda: stack.cli("tg-show-explain-trace", trace, "-U", "alice", "-C", "work"),
        lambda r: "It is in" in r.stderr,
    )
    assert shown.stderr == (
        f"Error: no trace {trace!r} in collection 'work' of user 'alice'. "
        "It is in collection 'default': pass -C default.\n"
    )
    limited = await stack.cli("tg-show-explain-trace", trace, "-C", "work", env=env)
    assert limited.stderr == (
        f"Error: no trace {trace!r} in collection 'work' of this API key's user.\n"
    )


async def test_keys_are_listed_revoked_and_stored_hashed(stack: Stack, tmp_path: Path) -> None:
    alice = await create_key(stack, "alice")
    code, out, _ = await stack.cli("tg-list-api-keys", "--user-id", "alice", "--format", "json")
    assert code == 0
    (record,) = json.loads(out)
    assert record["user_id"] == "alice" and alice.startswith(record["prefix"] + "_")
    assert alice not in out and "digest" not in record

    key_file = tmp_path / "gateway" / "gateway" / "api-keys.json"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert alice not in key_file.read_text() and alice.split("_", 2)[2] not in key_file.read_text()

    # only the admin token manages keys
    code, _, err = await stack.cli("tg-list-api-keys", env={"TRUSTGRAPH_TOKEN": alice})
    assert code == 1 and "needs the admin token" in err

    code, out, _ = await stack.cli("tg-revoke-api-key", "--key-id", record["id"])
    assert (code, out) == (0, f"Revoked key {record['id']}\n")
    # its holder is told it was revoked (the whole key proves they hold it), one line, on the
    # socket (tg-query-triples) and over REST (tg-list-collections); a guess at it is not
    for command in ("tg-query-triples", "-p", P), ("tg-list-collections",):
        code, _, err = await stack.cli(*command, env={"TRUSTGRAPH_TOKEN": alice})
        assert code == 1 and len(err.splitlines()) == 1, err
        assert f"refused the token: this API key ({record['prefix']}) was revoked at " in err
        assert "ask the gateway's admin for a new one" in err and "Pass the right" not in err
    guess = alice[:-4] + ("AAAA" if not alice.endswith("AAAA") else "BBBB")
    code, _, err = await stack.cli("tg-query-triples", "-p", P, env={"TRUSTGRAPH_TOKEN": guess})
    assert code == 1 and "refused the token (HTTP 401). Pass the right one" in err
    assert "was revoked" not in err and record["id"] not in err
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {alice}"}) as http:
        async with http.post(stack.url + "api/v1/config", json={"operation": "list"}) as resp:
            error = (await resp.json())["error"]  # the shape clients read is unchanged
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(stack.url + "api/v1/socket") as ws:  # the auth frame's reply
            await ws.send_str(json.dumps({"type": "auth", "token": alice}))
            refused = json.loads(await ws.receive_str(timeout=10))
    assert resp.status == 401 and error["type"] == "unauthorized"
    assert error["message"].startswith(f"this API key ({record['prefix']}) was revoked at ")
    assert refused["type"] == "auth-failed" and refused["error"] == error["message"]
    code, _, err = await stack.cli("tg-revoke-api-key", "--key-id", record["id"])
    assert code == 1 and "no API key with id" in err
    code, out, _ = await stack.cli("tg-list-api-keys")
    assert (code, out) == (0, "No keys.\n")
    # a key that would be born expired is refused, not created
    past = ("--expires", "2020-01-01T00:00:00Z")
    code, out, err = await stack.cli("tg-create-api-key", "--user-id", "u", "--name", "n", *past)
    assert (code, out) == (1, "") and "'2020-01-01T00:00:00Z' is in the past" in err
    assert len(err.splitlines()) == 1
    code, out, _ = await stack.cli("tg-list-api-keys")
    assert (code, out) == (0, "No keys.\n")


async def test_internal_operations_are_not_reachable(stack: Stack) -> None:
    """D8: what only processors call is refused at the gateway, even for the admin token."""
    headers = {"Authorization": f"Bearer {ADMIN}"}
    url = stack.url + "api/v1/flow/default/service/"
    refused = [
        (
            stack.url + "api/v1/librarian",
            {"operation": "put-content", "id": "urn:x", "content": ""},
        ),
        (url + "vectors", {"operation": "upsert", "items": []}),
        (url + "vectors", {"operation": "delete-collection"}),
        (url + "vectors", {"operation": "delete-document", "document": "urn:x"}),
        (url + "explain", {"operation": "delete-document", "id": "urn:x"}),
    ]
    async with aiohttp.ClientSession() as http:
        for target, body in refused:
            async with http.post(target, json=body, headers=headers) as resp:
                error = (await resp.json())["error"]
                assert resp.status == 200 and error["type"] == "forbidden", body
                assert "is internal" in error["message"]
        async with http.post(
            url + "explain", json={"operation": "list-traces"}, headers=headers
        ) as r:
            assert r.status == 200


async def test_iam_refusals_say_what_to_do(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    """Open mode names how to turn auth on; user and workspace operations are not offered
    in either mode (they used to be told "API keys need auth on", which misled)."""
    iam = "api/v1/iam"
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path / "open") as open_stack:
        code, _, err = await open_stack.cli("tg-create-api-key", "--user-id", "u", "--name", "n")
        assert code == 1 and "this gateway is open" in err
        assert "TG_GATEWAY_TOKEN=SECRET tg-start" in err and "tg-gateway --token SECRET" in err
        async with aiohttp.ClientSession() as http:
            async with http.post(open_stack.url + iam, json={"operation": "update-user"}) as r:
                users = (await r.json())["error"]
    assert users["type"] == "bad-request" and "need auth on" not in users["message"]
    assert "'update-user' is not offered here: there are no accounts" in users["message"]
    async with Stack(
        pulsar_url, prefix + "a", [store], data_dir=tmp_path / "on", token=ADMIN
    ) as on:
        headers = {"Authorization": f"Bearer {ADMIN}"}
        async with aiohttp.ClientSession() as http:
            body = {"operation": "create-workspace"}
            async with http.post(on.url + iam, json=body, headers=headers) as r:
                workspace = (await r.json())["error"]["message"]
    assert "'create-workspace' is not offered here" in workspace
    assert "create-api-key, list-api-keys, revoke-api-key, list-users and whoami" in workspace
