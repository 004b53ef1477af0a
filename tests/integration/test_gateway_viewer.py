"""The viewer's files, headers and sign-in, on a real gateway and store (no browser needed)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp

from tests.support.poll import eventually
from tests.support.stack import Stack
from tests.support.store import graph_rag, msg
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.provenance import uris
from trustgraph_flow.gateway.viewer import COOKIE, FILES, HEADER
from trustgraph_flow.store.processor import proc as store

EXPLAIN = "api/v1/flow/default/service/explain"
LIST = {"operation": "list-traces", "limit": 5}
VIEWER = {HEADER: "1"}


async def test_pages_and_files_are_served_with_a_strict_policy(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with (
        Stack(pulsar_url, prefix, [], data_dir=tmp_path) as stack,
        aiohttp.ClientSession() as http,
    ):
        async with http.get(stack.url) as resp:
            page = await resp.text()
            assert resp.status == 200 and resp.content_type == "text/html"
            csp = resp.headers["Content-Security-Policy"]
            assert (
                "script-src 'self'" in csp
                and "unsafe-inline" not in csp
                and "default-src 'none'" in csp
            )
            assert resp.headers["X-Content-Type-Options"] == "nosniff"
            assert resp.headers["X-Frame-Options"] == "DENY"
        assert '<script type="module" src="/viewer/app.js">' in page and "<script>" not in page
        assert "http://" not in page and "https://" not in page  # nothing fetched from elsewhere
        async with http.get(stack.url + "viewer/app.js") as resp:
            assert resp.status == 200 and resp.content_type == "text/javascript"
            assert resp.headers["X-Content-Type-Options"] == "nosniff"
        for name in sorted(FILES):
            async with http.get(stack.url + "viewer/" + name) as resp:
                text = await resp.text()
                assert resp.status == 200, name
                for sink in (
                    ".innerHTML",
                    ".outerHTML",
                    "insertAdjacentHTML",
                    "document.write",
                    "eval(",
                    "new Function",
                ):
                    assert sink not in text, (
                        name,
                        sink,
                    )  # stored text reaches the DOM as text only
        for bad in ("viewer/..%2Fserver.py", "viewer/server.py", "viewer/nope.js"):
            async with http.get(stack.url + bad) as resp:
                assert resp.status == 404, bad
        async with http.get(stack.url + "viewer/session") as resp:
            assert await resp.json() == {
                "auth": False,
                "signed_in": True,
                "who": {"user": None, "collections": None, "admin": False},
            }


async def test_a_key_entered_once_is_kept_in_an_httponly_cookie(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token="s3cret") as stack:
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as http:
            async with http.post(stack.url + EXPLAIN, json=LIST, headers=VIEWER) as resp:
                assert resp.status == 401
            async with http.get(stack.url + "viewer/session") as resp:
                assert await resp.json() == {"auth": True, "signed_in": False, "who": None}
            async with http.post(
                stack.url + "viewer/login", json={"key": "wrong"}, headers=VIEWER
            ) as resp:
                assert resp.status == 401 and (await resp.json())["error"]["type"] == "unauthorized"
                assert COOKIE not in resp.cookies
            async with http.post(stack.url + "viewer/login", json={"key": "s3cret"}) as resp:
                assert resp.status == 400  # not from the viewer's own pages
            async with http.post(
                stack.url + "viewer/login", json={"key": "s3cret"}, headers=VIEWER
            ) as resp:
                assert resp.status == 200
                cookie = resp.cookies[COOKIE]
                assert (
                    cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/"
                )
            async with http.get(stack.url + "viewer/session") as resp:
                assert (await resp.json())["who"] == {
                    "user": None,
                    "collections": None,
                    "admin": True,
                }
            async with http.post(stack.url + EXPLAIN, json=LIST, headers=VIEWER) as resp:
                assert resp.status == 200 and (await resp.json())["traces"] == []
            # The cookie alone, without the viewer's header (what another page could send), is not enough.
            async with http.post(
                stack.url + EXPLAIN, data=json.dumps(LIST), headers={"Content-Type": "text/plain"}
            ) as resp:
                assert resp.status == 401
            # Nor does it open a WebSocket (a socket is authenticated by token only).
            async with http.ws_connect(stack.url + "api/v1/socket", headers=VIEWER) as ws:
                await ws.send_str(json.dumps({"id": "1", "service": "explain", "request": LIST}))
                reply = json.loads(await asyncio.wait_for(ws.receive_str(), 10))
                assert reply["error"]["type"] == "unauthorized"
            # Signing out needs the header too: a page of another origin cannot sign anyone out.
            async with http.post(stack.url + "viewer/logout") as resp:
                assert resp.status == 400 and COOKIE not in resp.cookies
                assert "X-TG-Viewer" in (await resp.json())["error"]["message"]
            async with http.post(stack.url + EXPLAIN, json=LIST, headers=VIEWER) as resp:
                assert resp.status == 200  # still signed in
            async with http.post(stack.url + "viewer/logout", headers=VIEWER) as resp:
                assert resp.status == 200
            async with http.post(stack.url + EXPLAIN, json=LIST, headers=VIEWER) as resp:
                assert resp.status == 401


async def test_the_viewer_sees_only_what_its_key_may(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """Signed in with alice's API key, the viewer's calls are alice's, exactly as her commands are."""
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token="admin-t0ken") as stack:
        for user, sid in (("alice", "a1"), ("bob", "b1"), ("alice", "a2")):
            await stack.publish(TRIPLES_STORE, msg(graph_rag(sid, int(sid[1])), sid, user=user))
        code, out, err = await stack.cli(
            "tg-create-api-key", "--user-id", "alice", "--name", "viewer", "--collection", "default"
        )
        assert code == 0, err
        key = out.strip()
        listed = await eventually(
            lambda: stack.cli(
                "tg-list-explain-traces", "--format", "json", env={"TRUSTGRAPH_TOKEN": key}
            ),
            lambda r: r.stdout.count('"id"') == 2,
        )
        by_command = [t["id"] for t in json.loads(listed.stdout)]
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.post(
                stack.url + "viewer/login", json={"key": key}, headers=VIEWER
            ) as resp:
                assert (await resp.json())["who"] == {
                    "user": "alice",
                    "collections": ["default"],
                    "admin": False,
                }
            async with http.post(stack.url + EXPLAIN, json=LIST, headers=VIEWER) as resp:
                assert [t["id"] for t in (await resp.json())["traces"]] == by_command
            assert by_command == [
                uris.graph_rag_question_uri("a2"),
                uris.graph_rag_question_uri("a1"),
            ]
            for other in ({"user": "bob"}, {"collection": "work"}):
                async with http.post(
                    stack.url + EXPLAIN, json={**LIST, **other}, headers=VIEWER
                ) as resp:
                    assert (
                        resp.status == 200 and (await resp.json())["error"]["type"] == "forbidden"
                    )
            code, out, err = await stack.cli(
                "tg-list-api-keys", "--user-id", "alice", "--format", "json"
            )
            [key_id] = [k["id"] for k in json.loads(out)]
            code, _, err = await stack.cli("tg-revoke-api-key", "--key-id", key_id)
            assert code == 0, err
            async with http.post(stack.url + EXPLAIN, json=LIST, headers=VIEWER) as resp:
                assert resp.status == 401  # a revoked key's cookie opens nothing
            async with http.get(stack.url + "viewer/session") as resp:
                assert (await resp.json())["signed_in"] is False
            # signing in again with it says what became of it (app.js shows that, not "check it")
            async with http.post(
                stack.url + "viewer/login", json={"key": key}, headers=VIEWER
            ) as resp:
                said = (await resp.json())["error"]["message"]
            assert resp.status == 401 and said.startswith(f"this API key (tg_{key_id}) was revoked")
